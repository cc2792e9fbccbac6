"""The scorer: 100 minus the snapshot weights of failed checks, clamped at 0; FAIL on error or
critical failures only."""

from __future__ import annotations

from tracekit.judging.replay.checks import Decision
from tracekit.judging.replay.results import CheckOutcome
from tracekit.judging.replay.scorer import contribution, outcome, score

WEIGHTS = {"critical": 50, "error": 30, "warning": 10, "info": 0}


def _outcomes(*failed: tuple[str, str]) -> list[CheckOutcome]:
    fails = dict(failed)
    return [
        outcome(cid, Decision(cid not in fails, "m"), fails.get(cid, "error"), WEIGHTS)
        for cid in (
            "tests-passed",
            "forbidden-paths",
            "scope-adherence",
            "diff-size",
            "secret-scan",
        )
    ]


def test_all_passing() -> None:
    verdict = score(_outcomes(), WEIGHTS)
    assert (verdict.result, verdict.score, verdict.failed_checks, verdict.warning_checks) == (
        "PASS",
        100,
        (),
        (),
    )


def test_warnings_and_info_do_not_fail_the_run() -> None:
    verdict = score(_outcomes(("scope-adherence", "warning"), ("diff-size", "info")), WEIGHTS)
    assert verdict.result == "PASS" and verdict.score == 90
    assert verdict.failed_checks == ("Scope adherence", "Diff size")
    assert verdict.warning_checks == ("Scope adherence",)


def test_error_and_critical_fail_the_run() -> None:
    assert score(_outcomes(("tests-passed", "error")), WEIGHTS).result == "FAIL"
    assert score(_outcomes(("secret-scan", "critical")), WEIGHTS).result == "FAIL"


def test_score_clamps_at_zero() -> None:
    verdict = score(
        _outcomes(
            ("forbidden-paths", "critical"), ("secret-scan", "critical"), ("tests-passed", "error")
        ),
        WEIGHTS,
    )
    assert verdict.score == 0


def test_snapshot_weights_are_used() -> None:
    weights = {"critical": 7, "error": 3, "warning": 1, "info": 0}
    checks = [
        outcome("tests-passed", Decision(False, "m"), "error", weights),
        outcome("diff-size", Decision(False, "m"), "critical", weights),
    ]
    verdict = score(checks, weights)
    assert verdict.score == 90
    assert [c.score_contribution for c in checks] == [-3, -7]


def test_contribution() -> None:
    assert contribution(True, "critical", WEIGHTS) == 0
    assert contribution(False, "warning", WEIGHTS) == -10
    assert contribution(False, "unknown", WEIGHTS) == 0  # as upstream's .get(severity, 0)


def test_outcome_uses_display_name() -> None:
    out = outcome("secret-scan", Decision(True, "ok", ("e",)), "critical", WEIGHTS)
    assert (out.id, out.name, out.evidence) == ("secret-scan", "Secret scan", ("e",))
