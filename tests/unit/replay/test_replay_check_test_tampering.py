"""test-tampering: changed files matching test_paths."""

from __future__ import annotations

from tests.unit.replay.factories import evidence, policy
from tracekit.judging.replay.checks.test_tampering import CHECK, PASS_MESSAGE


def test_untouched_tests_pass() -> None:
    decision = CHECK.evaluate(evidence(["src/a.py"]), policy())
    assert decision.passed and decision.message == PASS_MESSAGE


def test_modified_test_fails_once_even_with_two_patterns() -> None:
    decision = CHECK.evaluate(evidence(["tests/test_a.py"]), policy())
    assert not decision.passed
    assert decision.evidence == ("tests/test_a.py",)
    assert decision.message == "Modified test files: tests/test_a.py"


def test_nested_pattern_and_deleted_tests() -> None:
    decision = CHECK.evaluate(evidence(["pkg/test_b.py"], deleted=["tests/old.py"]), policy())
    assert decision.evidence == ("pkg/test_b.py", "tests/old.py")


def test_identity() -> None:
    assert (CHECK.id, CHECK.name, CHECK.default_severity) == (
        "test-tampering",
        "Test tampering",
        "error",
    )
