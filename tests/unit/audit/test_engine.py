"""The audit engine on the bundled and third-party traces, and its exit-code policy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gen import audit as audit_gen
from gen import base

from tests.helpers import CORPUS
from tests.unit.audit.support import (
    HARNESS_THIRD_PARTY,
    audit_draft,
    audit_file,
    audit_harness_value,
    codes,
    scenario,
)
from tracekit.formats.agentguard.verify import VerifyOptions, verify_file
from tracekit.judging.audit import audit_agentguard, audit_harness
from tracekit.judging.harness.scenario import parse_scenario
from tracekit.kernel.errors import Code

OBSERVED = json.loads((HARNESS_THIRD_PARTY / "observed-results.json").read_text())["pairs"]
EXAMPLES = sorted(
    p
    for p in [
        *HARNESS_THIRD_PARTY.glob("examples/**/*.json"),
        *HARNESS_THIRD_PARTY.glob("docs/**/*.json"),
    ]
)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_upstream_harness_examples_cannot_prove_a_finding(path: Path) -> None:
    report = audit_file(path)
    assert report.readable and report.format == "harness" and report.intact is None
    assert report.exit_code == 1 and not report.rerunnable
    missing = {row.field for row in report.completeness if row.status == "missing"}
    assert {"model_version", "seed", "harness_revision", "scorer"} <= missing
    assert Code.AUDIT_NO_INTEGRITY.value in codes(report)


@pytest.mark.parametrize(
    "pair", OBSERVED, ids=lambda p: p["scenario_id"] + ":" + Path(p["trace"]).name
)
def test_scenario_results_match_upstream(pair: dict[str, object]) -> None:
    loaded = parse_scenario((HARNESS_THIRD_PARTY / str(pair["scenario"])).read_bytes())
    report = audit_file(HARNESS_THIRD_PARTY / str(pair["trace"]), loaded)
    assert report.harness is not None
    assert report.harness.scenario_id == pair["scenario_id"]
    assert report.harness.result == pair["result"]


def test_recorded_outcome_reproduced_or_not() -> None:
    basic = scenario("goal_hijack/basic.yaml")
    report = audit_harness_value(audit_gen.complete(), basic)
    assert report.harness is not None and report.harness.result == "fail"
    assert Code.AUDIT_OUTCOME_REPRODUCED.value in codes(report)
    assert report.exit_code == 0
    lying = audit_gen.complete()
    lying["events"][-1]["result"] = "pass"
    report = audit_harness_value(lying, basic)
    assert Code.AUDIT_OUTCOME_MISMATCH.value in codes(report, serious=True)
    assert report.exit_code == 1


def test_tampered_agentguard_trace_is_not_intact_and_exits_2() -> None:
    report = audit_file(CORPUS / "invalid" / "chain__tampered_payload.jsonl")
    assert report.intact is False and report.exit_code == 2
    assert report.completeness == () and report.replay is None
    assert codes(report, serious=True)[0] == Code.CHAIN_EVENT_HASH_MISMATCH.value
    assert Code.AUDIT_INTEGRITY_NOT_AUTHENTICITY.value not in codes(report)


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b'{"messages": [', Code.JSON_INVALID),
        (b'{"messages": "hi"}', Code.HARNESS_TRACE_INVALID),
        (b'{"events": [1]}', Code.HARNESS_TRACE_INVALID),
        (b'{"events": [], "events": []}', Code.JSON_DUPLICATE_KEY),
        (b'{"events": [\xff]}', Code.HARNESS_TRACE_NOT_UTF8),
        (b'{"events": ' + b"[" * 100 + b"]" * 100 + b"}", Code.JSON_TOO_DEEP),
    ],
)
def test_unreadable_harness_trace_exits_2(data: bytes, code: Code) -> None:
    report = audit_harness("bad.json", data)
    assert not report.readable and report.exit_code == 2
    assert codes(report) == [code.value]


def test_scenario_on_agentguard_is_a_notice() -> None:
    verified = verify_file(
        CORPUS / "valid" / "v2__clean_run.jsonl", VerifyOptions(keep_events=True)
    )
    report = audit_agentguard(verified, scenario_given=True)
    assert Code.AUDIT_SCENARIO_NOT_APPLICABLE.value in codes(report)
    assert report.exit_code == 0


def test_intact_agentguard_says_integrity_is_not_authenticity() -> None:
    for path in [
        *CORPUS.glob("valid/*.jsonl"),
        CORPUS / "forgery" / "chain__forgery_rehashed.jsonl",
    ]:
        report = audit_file(path)
        assert report.intact is True
        assert Code.AUDIT_INTEGRITY_NOT_AUTHENTICITY.value in codes(report), path


def test_demonstration_ignores_when_and_which_run() -> None:
    first = audit_draft(base.clean_trace(name="first"))
    again = base.clean_trace(name="second")
    again.header["created_at"] = "2026-12-24T00:00:00+00:00"
    for event in again.events:
        if event.event_type == "agent_command":
            event.payload["duration_seconds"] = 9.5
    second = audit_draft(again)
    assert first.demonstration == second.demonstration
    other = base.clean_trace(name="third")
    other.events[1].payload["argv"] = ["cat", "src/other.py"]
    assert audit_draft(other).demonstration != first.demonstration


def test_replay_notices_are_not_double_counted() -> None:
    report = audit_file(CORPUS / "audit" / "agentguard" / "forgery__line_totals_mismatch.jsonl")
    found = codes(report)
    assert Code.AUDIT_LINE_TOTALS_MISMATCH.value in found
    assert Code.REPLAY_INCONSISTENT_LINE_TOTALS.value not in found
