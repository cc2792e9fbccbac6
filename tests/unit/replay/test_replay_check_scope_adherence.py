"""scope-adherence: file count within [min, max] and every file under allowed_paths."""

from __future__ import annotations

from tests.unit.replay.factories import evidence, policy
from tracekit.judging.replay.checks.scope_adherence import CHECK, FAIL_MESSAGE, PASS_MESSAGE


def test_in_scope_passes() -> None:
    decision = CHECK.evaluate(evidence(["src/a.py", "docs/b.md"]), policy())
    assert decision.passed and decision.message == PASS_MESSAGE


def test_below_minimum() -> None:
    decision = CHECK.evaluate(evidence([]), policy())
    assert not decision.passed and decision.message == FAIL_MESSAGE
    assert decision.evidence == ("Modified 0 files; expected at least 1.",)


def test_above_maximum_then_outside_paths_in_changed_order() -> None:
    ev = evidence(["src/a.py", "x/1"], added=["y/2"], deleted=["src/z.py"])
    decision = CHECK.evaluate(ev, policy(expected_modified_files_max=3))
    assert decision.evidence == (
        "Modified 4 files; expected at most 3.",
        "Outside allowed paths: x/1",
        "Outside allowed paths: y/2",
    )


def test_bounds_are_inclusive() -> None:
    ev = evidence(["src/a.py", "src/b.py"])
    assert CHECK.evaluate(
        ev, policy(expected_modified_files_min=2, expected_modified_files_max=2)
    ).passed


def test_empty_allowed_paths_allows_nothing() -> None:
    decision = CHECK.evaluate(evidence(["src/a.py"]), policy(allowed_paths=[]))
    assert decision.evidence == ("Outside allowed paths: src/a.py",)


def test_identity() -> None:
    assert (CHECK.id, CHECK.name, CHECK.default_severity) == (
        "scope-adherence",
        "Scope adherence",
        "warning",
    )
