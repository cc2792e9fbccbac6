"""Every consistency rule: a consistent forgery that verify accepts and audit flags."""

from __future__ import annotations

from pathlib import Path

import pytest
from gen import base

from tests.helpers import CORPUS
from tests.unit.audit.support import AUDIT, audit_draft, audit_file, codes, expected
from tracekit.formats.agentguard.verify import VerifyOptions, verify_file
from tracekit.judging.audit.consistency import CONSISTENCY_CODES, RULES, check_consistency
from tracekit.kernel.errors import Code, Severity

FORGERIES = {
    name: outcome
    for name, outcome in expected("agentguard").items()
    if name.startswith("forgery__")
}


def test_every_rule_has_a_forgery_and_every_forgery_a_rule() -> None:
    assert len(RULES) == len(CONSISTENCY_CODES) == 14
    assert {outcome["code"] for outcome in FORGERIES.values()} == set(CONSISTENCY_CODES)


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_forgery_is_intact_but_audit_flags_exactly_its_rule(name: str) -> None:
    path = AUDIT / "agentguard" / name
    verified = verify_file(path, VerifyOptions(keep_events=True))
    assert verified.exit_code == 0  # integrity is not authenticity
    assert verified.header is not None
    rule_codes = [f.code.value for f in check_consistency(verified.header, verified.events)]
    assert rule_codes == [FORGERIES[name]["code"]]
    report = audit_file(path)
    assert report.intact is True
    assert report.exit_code == 1
    assert Code.AUDIT_INTEGRITY_NOT_AUTHENTICITY.value in codes(report)


def test_honest_trace_triggers_no_rule() -> None:
    report = audit_file(AUDIT / "agentguard" / "consistent__clean_run.jsonl")
    assert not set(codes(report)) & CONSISTENCY_CODES
    assert report.exit_code == 0
    assert report.rerunnable
    assert report.replay is not None and report.replay.equivalence == "exact"


def test_shared_forgery_is_caught_by_functional_pass() -> None:
    report = audit_file(CORPUS / "forgery" / "chain__forgery_rehashed.jsonl")
    assert Code.AUDIT_FUNCTIONAL_PASS_MISMATCH.value in codes(report, serious=True)
    assert not report.rerunnable


@pytest.mark.parametrize(
    "path",
    sorted((CORPUS / "valid").glob("*.jsonl"))
    + sorted((CORPUS / "replay").glob("fail_alone__*.jsonl"))
    + sorted((CORPUS / "replay").glob("combo__*.jsonl")),
    ids=lambda p: Path(p).name,
)
def test_valid_corpus_traces_are_consistent(path: Path) -> None:
    verified = verify_file(path, VerifyOptions(keep_events=True))
    assert verified.header is not None
    assert check_consistency(verified.header, verified.events) == []


def test_error_rules_are_verdict_contradictions() -> None:
    draft = base.clean_trace(name="sev")
    completed = draft.events[-1].payload
    completed.update(result="FAIL", score=90)
    found = {f.code: f.severity for f in audit_draft(draft).findings}
    assert found[Code.AUDIT_RESULT_MISMATCH] is Severity.ERROR
    assert found[Code.AUDIT_SCORE_MISMATCH] is Severity.ERROR


def test_truncated_completion_may_count_more_than_it_lists() -> None:
    draft = base.clean_trace(name="trunc")
    files = draft.events[-1].payload["modified_files"]
    files.update(truncated=True, count=5, paths=files["paths"][:1])
    found = codes(audit_draft(draft))
    assert Code.AUDIT_MODIFIED_COUNT_MISMATCH.value not in found
    assert Code.AUDIT_MODIFIED_PATHS_MISMATCH.value not in found
    files.update(count=0)
    assert Code.AUDIT_MODIFIED_COUNT_MISMATCH.value in codes(audit_draft(draft))


def test_v1_is_scored_with_upstream_deductions() -> None:
    draft = base.clean_trace(version=1, name="v1")
    check = next(e.payload for e in draft.events if e.payload.get("name") == "Diff size")
    check.update(passed=False, score_contribution=-10)
    draft.events[-1].payload.update(
        score=90, failed_checks=["Diff size"], warning_checks=["Diff size"]
    )
    assert not set(codes(audit_draft(draft))) & CONSISTENCY_CODES
    check.update(score_contribution=-30)
    assert Code.AUDIT_SCORE_CONTRIBUTION_MISMATCH.value in codes(audit_draft(draft))


def test_unknown_weights_are_not_guessed() -> None:
    draft = base.clean_trace(name="weights")
    draft.header["policy_snapshot"]["score_weights"] = {"tests-passed": 20}
    check = next(e.payload for e in draft.events if e.payload.get("name") == "Diff size")
    check.update(passed=False, score_contribution=-7)
    draft.events[-1].payload.update(
        score=93, failed_checks=["Diff size"], warning_checks=["Diff size"]
    )
    found = codes(audit_draft(draft))
    assert Code.AUDIT_SCORE_CONTRIBUTION_MISMATCH.value not in found
    assert Code.AUDIT_SCORE_MISMATCH.value not in found
    assert Code.REPLAY_SCORE_WEIGHTS.value in found


def test_header_execution_id_is_checked_too() -> None:
    draft = base.clean_trace(name="ids")
    draft.header["execution_id"] = "exec-elsewhere"
    report = audit_draft(draft)
    mismatches = [f for f in report.findings if f.code is Code.AUDIT_HEADER_IDS_MISMATCH]
    assert [f.where for f in mismatches] == ["header.execution_id"]
    assert "execution_id" in mismatches[0].message
