"""Replayability: every reason in docs/replay.md "Replayability" with its stable code, and
tracekit's own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from gen import base

from tests.unit.replay.factories import verified
from tracekit.formats.agentguard.writer import DraftTrace
from tracekit.judging.replay import replay
from tracekit.kernel.errors import Code, Severity


def _draft(**snapshot: Any) -> DraftTrace:
    draft = base.clean_trace(2, "replayability")
    draft.header["policy_snapshot"].update(snapshot)
    return draft


def _codes(draft: DraftTrace, strict: bool = False) -> list[Code]:
    return [f.code for f in replay(verified(draft, strict), strict_sources=strict).reasons]


def test_clean_trace_is_replayable() -> None:
    report = replay(verified(_draft()))
    assert report.replayable and report.reasons == () and report.replayability.missing_inputs == ()


def test_v1_is_never_replayable() -> None:
    report = replay(verified(base.clean_trace(1, "old")))
    assert not report.replayable
    assert [f.code for f in report.reasons] == [Code.REPLAY_NOT_REPLAYABLE_V1]
    assert report.replayability.missing_inputs == (
        "policy_snapshot",
        "enabled_checks",
        "check_severities",
        "score_weights",
        "path_patterns",
        "diff_thresholds",
        "expected_modified_file_bounds",
    )
    assert report.recomputed is None and report.equivalence is None


@pytest.mark.parametrize(
    ("snapshot", "code"),
    [
        ({"redacted_inputs": ["unsafe_commands"]}, Code.REPLAY_REDACTED_INPUTS),
        ({"command_policy_patterns": []}, Code.REPLAY_COMMAND_PATTERNS_DIFFER),
        (
            {"command_policy_patterns": ["curl ", "rm -rf", "git push"]},
            Code.REPLAY_COMMAND_PATTERNS_DIFFER,
        ),
        ({"enabled_checks": [*base.CHECK_IDS, "custom"]}, Code.REPLAY_UNKNOWN_CHECK),
        (
            {"score_weights": {"critical": 50, "error": 30, "warning": 10}},
            Code.REPLAY_SCORE_WEIGHTS,
        ),
        (
            {"score_weights": {"critical": 50, "error": 30, "warning": 10, "info": 0, "x": 1}},
            Code.REPLAY_SCORE_WEIGHTS,
        ),
    ],
)
def test_snapshot_reasons(snapshot: dict[str, Any], code: Code) -> None:
    assert _codes(_draft(**snapshot)) == [code]


def test_missing_severity_names_registered_ids_only() -> None:
    severities = {
        k: v for k, v in base.DEFAULT_SEVERITIES.items() if k not in ("diff-size", "tests-passed")
    }
    draft = _draft(severities=severities, enabled_checks=[*base.CHECK_IDS, "zz-unknown"])
    report = replay(verified(draft))
    assert report.replayability.missing_inputs == ("severity:tests-passed", "severity:diff-size")
    assert [f.code for f in report.reasons] == [
        Code.REPLAY_UNKNOWN_CHECK,
        Code.REPLAY_MISSING_SEVERITY,
        Code.REPLAY_MISSING_SEVERITY,
    ]
    assert "zz-unknown" not in " ".join(f.message for f in report.reasons)
    assert (
        report.reasons[1].message
        == "Enabled check tests-passed has no severity in the policy snapshot."
    )


def test_disabled_check_needs_no_severity() -> None:
    enabled = [c for c in base.CHECK_IDS if c != "diff-size"]
    severities = {k: v for k, v in base.DEFAULT_SEVERITIES.items() if k != "diff-size"}
    draft = _draft(enabled_checks=enabled, severities=severities)
    draft.events = [e for e in draft.events if e.payload.get("name") != "Diff size"]
    assert _codes(draft) == []


def _edit(index: int, edit: Callable[[dict[str, Any]], None]) -> DraftTrace:
    draft = _draft()
    edit(draft.events[index].payload)
    return draft


@pytest.mark.parametrize(
    ("index", "edit", "code"),
    [
        (1, lambda p: p["truncation"].update(command=True), Code.REPLAY_TRUNCATED_EVIDENCE),
        (2, lambda p: p["truncation"].update(patterns=True), Code.REPLAY_TRUNCATED_EVIDENCE),
        (5, lambda p: p["truncation"].update(command=True), Code.REPLAY_TRUNCATED_EVIDENCE),
        (6, lambda p: p["truncation"].update(message=True), Code.REPLAY_TRUNCATED_EVIDENCE),
        (
            -1,
            lambda p: p["modified_files"].update(truncated=True),
            Code.REPLAY_TRUNCATED_MODIFIED_FILES,
        ),
    ],
)
def test_truncation_reasons(index: int, edit: Callable[[dict[str, Any]], None], code: Code) -> None:
    assert _codes(_edit(index, edit)) == [code]


def test_truncation_reason_counts_events_and_names_the_type() -> None:
    draft = _draft()
    for index in (1, 2):
        draft.events[index].payload["truncation"]["argv"] = True
    (reason,) = replay(verified(draft)).reasons
    assert reason.message == "Policy-relevant agent_command evidence was truncated (2 event(s))."
    assert reason.line == 3 and reason.severity is Severity.WARNING


def test_output_truncation_is_not_a_reason() -> None:
    assert _codes(_edit(1, lambda p: p["stdout"].update(truncated=True))) == []


@pytest.mark.parametrize(
    "message",
    [
        "No path-based or content-based secret findings appeared in the diff.",
        "Secret-content scan was incomplete.",
    ],
)
def test_unrecomputable_secret_scan(message: str) -> None:
    assert _codes(_edit(12, lambda p: p.update(message=message))) == [
        Code.REPLAY_SECRET_SCAN_NOT_RECOMPUTABLE
    ]


def test_content_based_message_on_another_check_is_just_a_message() -> None:
    draft = _edit(6, lambda p: p.update(message="content-based"))
    report = replay(verified(draft))
    assert report.replayable and report.equivalence == "semantic"


def test_inconsistent_evidence_blocks_replay() -> None:
    draft = _edit(
        -1, lambda p: p["modified_files"].update(paths=["docs/widget.md", "src/widget.py"])
    )
    assert _codes(draft) == [Code.REPLAY_INCONSISTENT_FILE_CHANGES]


def test_strict_sources() -> None:
    draft = _draft()
    draft.header["source_artifacts"] = [
        {"path": "absent.json", "required": False, "role": "manifest", "sha256": "0" * 64},
    ]
    assert _codes(draft) == []
    assert _codes(draft, strict=True) == [Code.REPLAY_STRICT_SOURCES]


def test_reasons_accumulate_in_documented_order() -> None:
    draft = _draft(redacted_inputs=["x"], command_policy_patterns=[], score_weights={})
    draft.events[5].payload["truncation"]["command"] = True
    assert _codes(draft) == [
        Code.REPLAY_REDACTED_INPUTS,
        Code.REPLAY_COMMAND_PATTERNS_DIFFER,
        Code.REPLAY_SCORE_WEIGHTS,
        Code.REPLAY_TRUNCATED_EVIDENCE,
    ]
