"""tests-passed: exit code 0 passes; timed_out is ignored; evidence '<cmd> exited <code>'."""

from __future__ import annotations

from tests.unit.replay.factories import evidence, policy
from tracekit.judging.replay.checks.tests_passed import CHECK, FAIL_MESSAGE, PASS_MESSAGE


def test_exit_zero_passes() -> None:
    decision = CHECK.evaluate(evidence(test_exit=0), policy())
    assert decision.passed
    assert decision.message == PASS_MESSAGE == "Configured test command passed."
    assert decision.evidence == ("python -m pytest -q exited 0",)


def test_nonzero_exit_fails() -> None:
    decision = CHECK.evaluate(evidence(test_exit=3, test_command="make test"), policy())
    assert not decision.passed
    assert decision.message == FAIL_MESSAGE
    assert decision.evidence == ("make test exited 3",)


def test_negative_exit_fails() -> None:
    assert not CHECK.evaluate(evidence(test_exit=-9), policy()).passed


def test_timed_out_with_exit_zero_still_passes() -> None:
    assert CHECK.evaluate(evidence(test_exit=0, timed_out=True), policy()).passed


def test_null_exit_code_fails_and_is_spelled_none() -> None:
    decision = CHECK.evaluate(evidence(test_exit=None), policy())
    assert not decision.passed
    assert decision.evidence == ("python -m pytest -q exited None",)


def test_identity() -> None:
    assert (CHECK.id, CHECK.name, CHECK.default_severity) == (
        "tests-passed",
        "Tests passed",
        "error",
    )
