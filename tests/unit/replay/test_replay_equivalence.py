"""Equivalence: pairing by identity, exact / semantic / divergent, every difference listed."""

from __future__ import annotations

from msgspec.structs import replace

from tracekit.judging.replay.equivalence import compare
from tracekit.judging.replay.results import CheckOutcome, Verdict

WEIGHTS = {"error": 30, "warning": 10, "critical": 50, "info": 0}


def _check(
    cid: str,
    name: str,
    passed: bool = True,
    severity: str = "error",
    message: str = "ok",
    evidence: tuple[str, ...] = (),
) -> CheckOutcome:
    return CheckOutcome(
        cid, name, passed, severity, 0 if passed else -WEIGHTS[severity], message, evidence
    )


A = _check("tests-passed", "Tests passed", evidence=("t exited 0",))
B = _check("diff-size", "Diff size", severity="warning")
C = _check("secret-scan", "Secret scan", severity="critical")
NEW = Verdict("PASS", 100, (), (), (A, B, C))


def _recorded(*checks: CheckOutcome, **run: object) -> Verdict:
    base = Verdict("PASS", 100, (), (), tuple(checks))
    return replace(base, **run)  # type: ignore[arg-type]


def test_identical_is_exact() -> None:
    result = compare(_recorded(A, B, C), NEW)
    assert result.classification == "exact" and result.differences == ()
    assert [c.status for c in result.comparisons] == ["matched"] * 3


def test_reordered_checks_still_pair() -> None:
    result = compare(_recorded(C, A, B), NEW)
    assert result.classification == "exact"
    assert [(c.id, c.recorded_position, c.recomputed_position) for c in result.comparisons] == [
        ("tests-passed", 1, 0),
        ("diff-size", 2, 1),
        ("secret-scan", 0, 2),
    ]


def test_names_recorded_as_ids_pair() -> None:
    result = compare(_recorded(replace(A, name="tests-passed"), B, C), NEW)
    assert result.classification == "exact"


def test_message_only_is_semantic() -> None:
    result = compare(_recorded(replace(A, message="All good."), B, C), NEW)
    assert result.classification == "semantic"
    (diff,) = result.differences
    assert (diff.field, diff.check, diff.recorded, diff.recomputed) == (
        "message",
        "tests-passed",
        "All good.",
        "ok",
    )


def test_each_policy_field_is_divergent() -> None:
    for change in (
        {"passed": False},
        {"severity": "warning"},
        {"evidence": ("x",)},
        {"evidence": tuple(reversed(("a", "b")))},
        {"score_contribution": -30},
    ):
        result = compare(_recorded(replace(A, **change), B, C), NEW)
        assert result.classification == "divergent", change


def test_evidence_order_matters() -> None:
    new = Verdict("PASS", 100, (), (), (replace(A, evidence=("a", "b")), B, C))
    assert (
        compare(_recorded(replace(A, evidence=("b", "a")), B, C), new).classification == "divergent"
    )


def test_missing_unexpected_and_duplicate() -> None:
    stray = CheckOutcome(None, "License scan", True, "info", 0, "m", ())
    result = compare(_recorded(A, B, B, stray), NEW)
    statuses = sorted((c.status, c.id) for c in result.comparisons)
    assert statuses == sorted(
        [
            ("matched", "tests-passed"),
            ("matched", "diff-size"),
            ("missing", "secret-scan"),
            ("duplicate", "diff-size"),
            ("unexpected", None),
        ]
    )
    assert result.classification == "divergent"
    assert sorted(d.field for d in result.differences) == ["duplicate", "missing", "unexpected"]


def test_recorded_check_for_a_disabled_check_is_unexpected() -> None:
    extra = _check("unsafe-commands", "Unsafe commands", severity="critical")
    result = compare(_recorded(A, B, C, extra), NEW)
    assert [d.field for d in result.differences] == ["unexpected"]


def test_run_level_fields() -> None:
    result = compare(
        _recorded(
            A,
            B,
            C,
            result="FAIL",
            score=50,
            failed_checks=("Tests passed",),
            warning_checks=("Diff size",),
        ),
        NEW,
    )
    assert [d.field for d in result.differences] == [
        "score",
        "result",
        "failed_checks",
        "warning_checks",
    ]
    assert all(d.scope == "run" and d.classification == "divergent" for d in result.differences)


def test_failed_checks_are_a_multiset_of_identities() -> None:
    new = replace(NEW, failed_checks=("Tests passed", "Diff size"), warning_checks=("Diff size",))
    same = _recorded(
        A, B, C, failed_checks=("diff-size", "Tests passed"), warning_checks=("Diff size",)
    )
    assert not [d for d in compare(same, new).differences if d.scope == "run"]
    twice = _recorded(
        A,
        B,
        C,
        failed_checks=("Tests passed", "Diff size", "Diff size"),
        warning_checks=("Diff size",),
    )
    assert [d.field for d in compare(twice, new).differences if d.scope == "run"] == [
        "failed_checks"
    ]
    unknown = _recorded(
        A, B, C, failed_checks=("Tests passed", "diff size"), warning_checks=("Diff size",)
    )
    assert [d.field for d in compare(unknown, new).differences if d.scope == "run"] == [
        "failed_checks"
    ]


def test_score_is_compared_numerically() -> None:
    assert compare(_recorded(A, B, C, score=100.0), NEW).classification == "exact"
    assert compare(_recorded(A, B, C, score=99.5), NEW).classification == "divergent"
