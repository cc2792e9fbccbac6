"""The engine end to end on real traces: exact on clean runs, pure, and a stable JSON form."""

from __future__ import annotations

import json

import pytest
from gen import base

from tests.helpers import CORPUS, FIXTURE
from tests.unit.replay.factories import verified
from tracekit.formats.agentguard.verify import VerifyOptions, verify_bytes, verify_file
from tracekit.judging.replay import replay
from tracekit.judging.replay.engine import evaluate
from tracekit.kernel.errors import Code, TracekitError
from tracekit.report.replay_render import render_json, render_markdown, render_table


@pytest.mark.parametrize("name", sorted(p.name for p in (CORPUS / "valid").glob("v[23]*.jsonl")))
def test_valid_corpus_replays_exact(name: str) -> None:
    report = replay(verify_file(CORPUS / "valid" / name, VerifyOptions(keep_events=True)))
    assert report.replayable and report.equivalence == "exact", report.differences
    assert report.recomputed is not None and report.recomputed.result == "PASS"


def test_shared_fixture_is_not_replayable_for_its_score_weights() -> None:
    report = replay(verify_file(FIXTURE, VerifyOptions(keep_events=True)))
    assert not report.replayable
    assert [f.code for f in report.reasons] == [Code.REPLAY_SCORE_WEIGHTS]
    assert report.replayability.missing_inputs == ("score_weights",)


def test_invalid_trace_raises_and_events_are_required() -> None:
    data = (
        (CORPUS / "valid" / "v2__clean_run.jsonl")
        .read_bytes()
        .replace(b'"exit_code":0', b'"exit_code":1', 1)
    )
    with pytest.raises(TracekitError) as caught:
        replay(verify_bytes(data, VerifyOptions(keep_events=True)))
    assert caught.value.finding.code is Code.REPLAY_TRACE_INVALID
    with pytest.raises(ValueError):
        replay(verify_file(CORPUS / "valid" / "v2__clean_run.jsonl"))


def test_replay_is_a_pure_function_of_the_trace() -> None:
    data = (CORPUS / "replay" / "combo__all_seven_fail.jsonl").read_bytes()
    first = replay(verify_bytes(data, VerifyOptions(keep_events=True)))
    second = replay(verify_bytes(data, VerifyOptions(keep_events=True)))
    assert first == second
    assert render_json(first) == render_json(second)
    assert render_table(first) == render_table(second)
    assert render_markdown(first) == render_markdown(second)


def test_recorded_checks_never_feed_the_computation() -> None:
    draft = base.clean_trace(2, "independent")
    honest = replay(verified(draft))
    for event in draft.events:
        if event.event_type == "check_result":
            event.payload.update(
                passed=False, message="forged", evidence=["x"], score_contribution=-50
            )
    forged = replay(verified(draft))
    assert forged.recomputed == honest.recomputed
    assert forged.equivalence == "divergent"


def test_json_document_shape() -> None:
    report = replay(
        verify_file(
            CORPUS / "replay" / "equivalence__message_drift.jsonl", VerifyOptions(keep_events=True)
        )
    )
    doc = json.loads(render_json(report))
    assert (
        doc["report_version"] == 1
        and doc["replayable"] is True
        and doc["equivalence"] == "semantic"
    )
    assert {
        "trace_id",
        "recorded",
        "recomputed",
        "differences",
        "reasons",
        "missing_inputs",
    } <= set(doc)
    assert set(doc["recomputed"]) == {
        "result",
        "score",
        "failed_checks",
        "warning_checks",
        "checks",
    }
    assert set(doc["recomputed"]["checks"][0]) == {
        "id",
        "name",
        "passed",
        "severity",
        "score_contribution",
        "message",
        "evidence",
    }
    assert doc["differences"] == [
        {
            "scope": "check",
            "field": "message",
            "check": "tests-passed",
            "recorded": "All tests passed.",
            "recomputed": "Configured test command passed.",
            "classification": "semantic",
        }
    ]


def test_evaluate_is_usable_alone() -> None:
    report = verify_file(
        CORPUS / "replay" / "fail_alone__diff_size.jsonl", VerifyOptions(keep_events=True)
    )
    from tracekit.judging.replay.evidence import reconstruct

    assert report.header is not None
    evidence = reconstruct(report.events, 2).evidence
    assert evidence is not None
    snapshot = report.header.policy_snapshot
    verdict = evaluate(evidence, snapshot)  # type: ignore[arg-type]
    assert (verdict.result, verdict.score, verdict.warning_checks) == ("PASS", 90, ("Diff size",))


def test_table_escapes_and_bounds_trace_content() -> None:
    draft = base.clean_trace(2, "hostile")
    draft.events[1] = base.command(["rm", "-rf", "x\x1b[31m" + "A" * 500])
    report = replay(verified(draft))
    table = render_table(report)
    assert "\x1b" not in table and "A" * 200 not in table
    assert "\\x1b[31m" in table
    markdown = render_markdown(report)
    assert "\x1b" not in markdown
