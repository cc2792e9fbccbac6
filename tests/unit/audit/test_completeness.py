"""Completeness profiles: the registry, each status, and locations that never echo the trace."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from gen import audit as audit_gen
from gen import base

from tests.helpers import FIXTURE, ROOT
from tests.unit.audit.support import audit_draft, audit_file, audit_harness_value, codes
from tracekit.judging.audit.completeness import PROFILES
from tracekit.kernel.errors import Code, Severity
from tracekit.kernel.evidence import STATUSES

CANARY = "CANARY_7f3a"


def statuses(report: object) -> dict[str, str]:
    return {row.field: row.status for row in report.completeness}  # type: ignore[attr-defined]


@pytest.mark.parametrize("fmt", sorted(PROFILES))
def test_registered_profile_is_documented_and_well_formed(fmt: str) -> None:
    profile = PROFILES[fmt]
    names = [spec.name for spec in profile.fields]
    assert profile.format == fmt and len(names) == len(set(names)) > 10
    doc = (ROOT / "docs" / "audit.md").read_text()
    for name in names:
        assert f"`{name}`" in doc, name
    assert any(spec.needed_to_rerun for spec in profile.fields)


def test_rows_follow_profile_order_and_use_known_statuses() -> None:
    for report, fmt in (
        (audit_draft(base.clean_trace(name="order")), "agentguard"),
        (audit_harness_value(audit_gen.complete()), "harness"),
        (audit_harness_value({}), "harness"),
    ):
        assert [row.field for row in report.completeness] == [s.name for s in PROFILES[fmt].fields]
        assert {row.status for row in report.completeness} <= set(STATUSES)


def test_agentguard_clean_run_has_everything_needed_to_rerun() -> None:
    report = audit_draft(base.clean_trace(name="complete"))
    assert all(row.status == "present" for row in report.completeness if row.needed_to_rerun)
    found = statuses(report)
    assert found["containment_evidence"] == "not_carried"  # v2 cannot carry it
    assert found["file_diffs"] == "missing"
    assert report.rerunnable


def test_agentguard_v1_cannot_carry_a_policy_snapshot() -> None:
    report = audit_draft(base.clean_trace(version=1, name="v1"))
    assert statuses(report)["policy_snapshot"] == "not_carried"
    gaps = [f for f in report.findings if f.code is Code.AUDIT_FIELD_NOT_CARRIED]
    assert {f.severity for f in gaps} == {Severity.INFO}  # not the operator's fault
    assert not report.rerunnable  # but a v1 verdict cannot be replayed


def test_agentguard_v3_containment_present() -> None:
    report = audit_draft(base.clean_trace(version=3, name="v3", with_containment=True))
    assert statuses(report)["containment_evidence"] == "present"
    assert (
        statuses(audit_draft(base.clean_trace(version=3, name="v3b")))["containment_evidence"]
        == "missing"
    )


def test_agentguard_gaps_warn_only_when_needed_to_rerun() -> None:
    draft = base.clean_trace(name="gaps")
    draft.header.update(agent_model=None, sandbox_summary="unavailable", agentguard_commit=None)
    report = audit_draft(draft)
    found = statuses(report)
    assert (found["agent_model"], found["sandbox_summary"], found["tool_version"]) == (
        "missing",
        "missing",
        "partial",
    )
    severity = {(f.code, f.where): f.severity for f in report.findings}
    assert severity[(Code.AUDIT_FIELD_MISSING, "header.agent_model")] is Severity.WARNING
    assert severity[(Code.AUDIT_FIELD_MISSING, "header.sandbox_summary")] is Severity.NOTICE
    assert report.exit_code == 1 and not report.rerunnable


def test_agentguard_truncated_argv_is_partial() -> None:
    draft = base.clean_trace(name="argv")
    draft.events[2].payload["truncation"]["argv"] = True
    report = audit_draft(draft)
    row = next(r for r in report.completeness if r.field == "command_argv")
    assert (row.status, row.where) == ("partial", "events[3].argv")


def test_third_party_agentguard_fixture() -> None:
    report = audit_file(FIXTURE)
    found = statuses(report)
    assert found["agent_model"] == "missing" and found["agent_version"] == "missing"
    assert report.replayable is False and report.exit_code == 1


def test_harness_run_fields_only_at_top_level_are_partial() -> None:
    trace = audit_gen.complete()
    run = trace["events"].pop(0)
    trace.update({k: v for k, v in run.items() if k != "type"})
    report = audit_harness_value(trace)
    row = next(r for r in report.completeness if r.field == "seed")
    assert row.status == "partial" and row.where.startswith("top_level.seed")


def test_harness_mcp_server_versions_count_as_tool_server_revision() -> None:
    trace = audit_gen.complete()
    del trace["events"][0]["tool_server_revision"]
    for call in trace["tool_calls"]:
        call.update(mcp_server_id="docs", mcp_server_version="1.3.0")
    assert statuses(audit_harness_value(trace))["tool_server_revision"] == "present"
    del trace["tool_calls"][1]["mcp_server_version"]
    assert statuses(audit_harness_value(trace))["tool_server_revision"] == "partial"


def test_harness_injection_point_from_untrusted_context_event() -> None:
    trace = audit_gen.complete()
    del trace["events"][0]["injection_point"]
    trace["events"].append({"type": "untrusted_context_received", "policy": "observe"})
    assert statuses(audit_harness_value(trace))["injection_point"] == "partial"
    trace["events"][-1]["source"] = "retrieved_document"
    assert statuses(audit_harness_value(trace))["injection_point"] == "present"


def test_empty_harness_trace_misses_almost_everything() -> None:
    report = audit_harness_value({})
    found = statuses(report)
    assert found["outcome"] == "missing" and found["model_version"] == "missing"
    assert found["tool_name"] == "present"  # vacuously: no calls were recorded
    assert report.exit_code == 1 and not report.rerunnable


def _plant(value: object) -> object:
    """Put the canary in every key and string of a trace (keeping its structure)."""
    if isinstance(value, dict):
        return {
            k if k in ("type", "role", "messages", "tool_calls", "events") else k + CANARY: _plant(
                v
            )
            for k, v in value.items()
        } | {CANARY: CANARY}
    if isinstance(value, list):
        return [_plant(v) for v in value]
    if isinstance(value, str):
        return value + CANARY
    return value


@pytest.mark.parametrize("source", ["complete", "upstream"])
def test_locations_and_messages_never_echo_the_trace(source: str, tmp_path: Path) -> None:
    if source == "complete":
        trace = audit_gen.complete()
    else:
        trace = json.loads(
            (
                ROOT / "corpus/third_party/owasp-harness/examples/traces/denied_tool_call.json"
            ).read_text()
        )
    planted = _plant(trace)
    assert isinstance(planted, dict)
    for key in ("messages", "tool_calls", "events"):
        planted.setdefault(key, [])
    report = audit_harness_value(planted)
    text = msgspec.json.encode((report.findings, report.completeness)).decode()
    assert CANARY not in text
    assert codes(report)


def test_every_audit_code_is_explained_in_the_docs() -> None:
    doc = (ROOT / "docs" / "audit.md").read_text()
    audit_codes = [code.value for code in Code if code.value.startswith("audit.")]
    assert len(audit_codes) > 25
    for value in audit_codes:
        assert f"`{value}`" in doc, value
