"""diff-size: files, lines added and lines deleted against non-null limits (strictly greater)."""

from __future__ import annotations

from tests.unit.replay.factories import evidence, policy
from tracekit.judging.replay.checks.diff_size import CHECK, FAIL_MESSAGE, PASS_MESSAGE


def test_within_limits_passes() -> None:
    decision = CHECK.evaluate(evidence(lines=(400, 400)), policy())
    assert decision.passed and decision.message == PASS_MESSAGE


def test_every_limit_in_order() -> None:
    ev = evidence(["a", "b", "c"], lines=(401, 402))
    decision = CHECK.evaluate(ev, policy(max_files_changed=2))
    assert not decision.passed and decision.message == FAIL_MESSAGE
    assert decision.evidence == (
        "Changed 3 files; limit is 2.",
        "Added 401 lines; limit is 400.",
        "Deleted 402 lines; limit is 400.",
    )


def test_null_limits_are_ignored() -> None:
    ev = evidence(["a"] * 1, lines=(10**6, 10**6))
    assert CHECK.evaluate(
        ev, policy(max_files_changed=None, max_lines_added=None, max_lines_deleted=None)
    ).passed


def test_zero_limit() -> None:
    decision = CHECK.evaluate(evidence(lines=(1, 0)), policy(max_lines_added=0))
    assert decision.evidence == ("Added 1 lines; limit is 0.",)


def test_identity() -> None:
    assert (CHECK.id, CHECK.name, CHECK.default_severity) == ("diff-size", "Diff size", "warning")
