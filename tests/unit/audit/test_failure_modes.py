"""Each evidence failure mode of seed 003, shown by a trace that has it."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from gen import audit as audit_gen
from gen import base

from tests.unit.audit.support import (
    AUDIT,
    audit_draft,
    audit_file,
    audit_harness_value,
    codes,
    expected,
)
from tracekit.formats.truncation import ROUND_WIDTHS, truncation_reason
from tracekit.judging.audit.digests import payload_digest
from tracekit.kernel.errors import Code

HARNESS_CASES = expected("harness")


@pytest.mark.parametrize("name", sorted(HARNESS_CASES))
def test_harness_case_gives_its_code(name: str) -> None:
    report = audit_file(AUDIT / "harness" / name)
    outcome = HARNESS_CASES[name]
    assert report.exit_code == outcome["exit"]
    serious = codes(report, serious=True)
    if outcome["code"] is None:
        assert serious == []
        assert report.rerunnable
    else:
        assert outcome["code"] in serious


def test_complete_trace_has_every_field_but_integrity() -> None:
    report = audit_file(AUDIT / "harness" / "complete.json")
    statuses = {row.field: row.status for row in report.completeness}
    assert statuses.pop("integrity") == "not_carried"
    assert set(statuses.values()) == {"present"}


def complete() -> dict[str, Any]:
    trace: dict[str, Any] = audit_gen.complete()
    return trace


def test_arguments_stringified_including_upstream_raw_normalisation() -> None:
    trace = complete()
    trace["tool_calls"][0]["arguments"] = {"raw": "doc_id=doc-42"}
    found = [
        f for f in audit_harness_value(trace).findings if f.code is Code.AUDIT_ARGUMENTS_STRINGIFIED
    ]
    assert [f.where for f in found] == ["tool_calls[0].arguments"]
    trace["tool_calls"][0]["arguments"] = {"raw": "x", "doc_id": "doc-42"}  # a real object
    assert Code.AUDIT_ARGUMENTS_STRINGIFIED.value not in codes(audit_harness_value(trace))


@pytest.mark.parametrize("width", sorted(ROUND_WIDTHS))
def test_round_widths_are_suspicious(width: int) -> None:
    assert truncation_reason("x" * width) == "length at a round console width"
    assert truncation_reason({"text": "x" * (width + 1)}) is None


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("output cut here [truncated]", "truncation marker"),
        ("output cut here (TRUNCATED)", "truncation marker"),
        ({"lines": ["a", "b [...]"]}, "truncation marker"),
        ("a" * 70 + "...", "truncation marker"),
        ("a" * 70 + "\u2026", "truncation marker"),
        ("Wait...", None),  # a short sentence may end in an ellipsis
        ({"content": "ok", "content_truncated": True}, "truncation flag"),
        ({"content": "ok", "truncated": False}, None),
        (12345, None),
    ],
)
def test_truncation_reasons(value: object, reason: str | None) -> None:
    assert truncation_reason(value) == reason


def test_truncated_tool_message_and_mcp_result_are_found() -> None:
    trace = complete()
    trace["messages"][3]["content"] = "y" * 1024
    found = [
        f for f in audit_harness_value(trace).findings if f.code is Code.AUDIT_RESULT_TRUNCATED
    ]
    assert found and found[0].where == "messages[3].content"
    trace = complete()
    trace["events"].append(
        {"type": "mcp_tool_result", "name": "mcp/files/read", "content_truncated": True}
    )
    assert Code.AUDIT_RESULT_TRUNCATED.value in codes(audit_harness_value(trace))


def test_one_call_without_id_is_not_flattening() -> None:
    trace = complete()
    trace["tool_calls"] = trace["tool_calls"][:1]
    del trace["tool_calls"][0]["id"]
    assert Code.AUDIT_PARALLEL_CALLS_FLATTENED.value not in codes(audit_harness_value(trace))


def test_narration_only_verdict_has_no_payloads() -> None:
    trace = {"events": [{"type": "outcome", "result": "fail", "scorer": "regex-detector"}]}
    report = audit_harness_value(trace)
    assert Code.AUDIT_VERDICT_WITHOUT_PAYLOADS.value in codes(report, serious=True)
    assert not report.rerunnable


def test_no_verdict_means_no_verdict_without_payloads() -> None:
    trace = complete()
    trace["events"] = [e for e in trace["events"] if e["type"] != "outcome"]
    for call in trace["tool_calls"]:
        del call["result"]
    assert Code.AUDIT_VERDICT_WITHOUT_PAYLOADS.value not in codes(audit_harness_value(trace))


def test_repeated_findings_differ_only_in_ids_and_timestamps() -> None:
    hit = {"type": "finding", "detector": "d", "tool": "send_email"}
    first = {**hit, "id": "F-1", "timestamp": "2026-01-01T00:00:00Z"}
    second = {**hit, "id": "F-2", "timestamp": "2026-01-01T00:00:09Z"}
    assert payload_digest(first) == payload_digest(second)
    assert payload_digest(first) != payload_digest({**first, "tool": "shell"})
    trace = complete()
    trace["events"] += [first, second, copy.deepcopy(second)]
    found = [
        f for f in audit_harness_value(trace).findings if f.code is Code.AUDIT_REPEATED_FINDING
    ]
    assert len(found) == 1
    assert "4 recorded finding(s) carry only 2 distinct payload(s)" in found[0].message


def test_agentguard_truncated_output_and_bare_failed_check() -> None:
    draft = base.clean_trace(name="cut")
    draft.events[1].payload["stdout"] = base.output("partial output", truncated=True)
    check = next(e.payload for e in draft.events if e.payload.get("name") == "Diff size")
    check.update(passed=False, score_contribution=-10, evidence=[])
    draft.events[-1].payload.update(
        score=90, failed_checks=["Diff size"], warning_checks=["Diff size"]
    )
    report = audit_draft(draft)
    found = {f.code: f.where for f in report.findings}
    assert found[Code.AUDIT_RESULT_TRUNCATED] == "events[2].stdout"
    assert found[Code.AUDIT_VERDICT_WITHOUT_PAYLOADS] == "events[12].evidence"
    assert not report.rerunnable


def test_agentguard_output_length_at_round_width() -> None:
    draft = base.clean_trace(name="width")
    draft.events[1].payload["stdout"] = base.output("z" * 4096)
    found = [f for f in audit_draft(draft).findings if f.code is Code.AUDIT_RESULT_TRUNCATED]
    assert [f.where for f in found] == ["events[2].stdout.bytes"]


def test_generated_harness_files_are_plain_json_objects() -> None:
    for path in (AUDIT / "harness").glob("*.json"):
        assert isinstance(json.loads(path.read_text()), dict)
