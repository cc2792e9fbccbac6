"""Relations: what makes a case pass or fail, with a fixed reason every time."""

from __future__ import annotations

import pytest

from tests.unit.metamorphic.support import clean_bytes, outcome_of, sweep
from tracekit.formats.agentguard.verify import VerifyOptions, verify_bytes
from tracekit.formats.agentguard.writer import read_draft, write_trace
from tracekit.judging.metamorphic import Relation, RelationKind
from tracekit.judging.metamorphic.relations import (
    Outcome,
    judge,
    not_applicable,
    outcome_differences,
)
from tracekit.judging.metamorphic.transforms.canonical_reencoding import STYLES, reencode
from tracekit.judging.replay import replay
from tracekit.kernel.errors import Code

SAME = Relation(RelationKind.SAME_OUTCOME)


def _verified(data: bytes):  # type: ignore[no-untyped-def]
    report = verify_bytes(data, VerifyOptions(keep_events=True, check_sources=False))
    return report, replay(report) if report.intact else None


def _edited(**payload: object) -> bytes:
    draft = read_draft(clean_bytes())
    test = next(e for e in draft.events if e.event_type == "test_result")
    test.payload.update(payload)
    return write_trace(draft)


def test_same_outcome_holds_for_identical_evidence() -> None:
    source = outcome_of(clean_bytes())
    report, replayed = _verified(clean_bytes())
    assert judge(SAME, source, report.trace_id or "", report, replayed).passed


def test_same_outcome_names_every_field_that_moved() -> None:
    source = outcome_of(clean_bytes())
    report, replayed = _verified(_edited(exit_code=3, functional_pass=False))
    verdict = judge(SAME, source, "", report, replayed)
    assert not verdict.passed
    assert verdict.reason == "outcome changed: result, score, failed, check tests-passed"


def test_outcome_differences_cover_warning_sets_and_missing_checks() -> None:
    base = Outcome("PASS", 100, (), (), (("diff-size", True), ("tests-passed", True)))
    moved = Outcome("PASS", 90, ("diff-size",), ("diff-size",), (("diff-size", False),))
    assert outcome_differences(base, moved) == [
        "score", "failed", "warnings", "check diff-size", "check tests-passed",
    ]


def test_check_fails_and_check_passes() -> None:
    source = outcome_of(clean_bytes())
    failing = _verified(_edited(exit_code=1, functional_pass=False))
    fails = Relation(RelationKind.CHECK_FAILS, ("tests-passed",))
    passes = Relation(RelationKind.CHECK_PASSES, ("tests-passed",))
    assert judge(fails, source, "", *failing).reason == "tests-passed fails"
    assert judge(passes, source, "", *failing).reason == "tests-passed still fails"
    clean = _verified(clean_bytes())
    assert judge(fails, source, "", *clean).reason == "tests-passed did not fail"
    assert judge(passes, source, "", *clean) .reason == "tests-passed passes again"


def test_verify_rejects_needs_exit_2() -> None:
    source = outcome_of(clean_bytes())
    rejects = Relation(RelationKind.VERIFY_REJECTS)
    accepted = _verified(clean_bytes())
    assert judge(rejects, source, "", *accepted).reason == "verify accepted the trace (exit 0)"
    broken = verify_bytes(clean_bytes()[:-1])
    verdict = judge(rejects, source, "", broken, None)
    assert verdict.passed and verdict.reason == "verify rejected the trace (load.missing_final_newline)"


def test_a_changing_case_whose_trace_is_not_replayable_fails_unlike_upstream() -> None:
    draft = read_draft(clean_bytes())
    draft.header["policy_snapshot"]["redacted_inputs"] = ["unsafe_commands"]
    report, replayed = _verified(write_trace(draft))
    assert replayed is not None and not replayed.replayable
    verdict = judge(Relation(RelationKind.CHECK_FAILS, ("tests-passed",)), outcome_of(clean_bytes()),
                    "", report, replayed)
    assert verdict == verdict.__class__(False, "the transformed trace is not replayable (replay.redacted_inputs)")


def test_a_valid_relation_on_an_invalid_trace_fails_with_the_verify_code() -> None:
    verdict = judge(SAME, outcome_of(clean_bytes()), "", verify_bytes(b"{}\n"), None)
    assert not verdict.passed and verdict.reason.startswith("the transformed trace did not verify (")


@pytest.mark.parametrize("style", range(len(STYLES)))
def test_reencoding_styles_are_valid_non_canonical_and_keep_the_trace_id(style: int) -> None:
    data = reencode(clean_bytes(), style)
    assert data != clean_bytes()
    report = verify_bytes(data)
    assert report.exit_code == 0
    assert any(f.code is Code.CANONICAL_NON_CANONICAL_LINE for f in report.findings)
    assert report.trace_id == verify_bytes(clean_bytes()).trace_id


def test_reencoding_relation_demands_the_notice_and_the_identity() -> None:
    relation = Relation(RelationKind.SAME_OUTCOME, notice=Code.CANONICAL_NON_CANONICAL_LINE,
                        same_trace_id=True)
    source = outcome_of(clean_bytes())
    canonical = _verified(clean_bytes())
    assert judge(relation, source, canonical[0].trace_id or "", *canonical).reason == (
        "verify reported no canonical.non_canonical_line notice"
    )
    spaced = _verified(reencode(clean_bytes(), 0))
    assert judge(relation, source, "0" * 64, *spaced).reason == "the trace id changed"
    assert judge(relation, source, spaced[0].trace_id or "", *spaced).passed


def test_not_applicable_when_the_policy_disables_the_named_checks() -> None:
    fails = Relation(RelationKind.CHECK_FAILS, ("secret-scan", "forbidden-paths"))
    assert not_applicable(fails, ["forbidden-paths"]) is None
    assert not_applicable(fails, ["tests-passed"]) is not None
    passes = Relation(RelationKind.CHECK_PASSES, ("forbidden-paths",))
    assert not_applicable(passes, []) is not None
    assert not_applicable(SAME, []) is None


def test_invalid_transforms_are_caught_by_the_intended_rule() -> None:
    result = sweep(clean_bytes(), ("invalid_duplicate_sequence", "invalid_dropped_event",
                                   "invalid_duplicate_file_change"), trials=3)
    reasons = {(c.transform, c.reason) for c in result.cases}
    assert reasons == {
        ("invalid_duplicate_sequence", "verify rejected the trace (structure.sequence_duplicate)"),
        ("invalid_dropped_event", "verify rejected the trace (structure.event_count_mismatch)"),
        ("invalid_duplicate_file_change",
         "verify rejected the trace (structure.duplicate_file_change_path)"),
    }
