"""The registry: every check registered once, in upstream's order, each behaving like a check."""

from __future__ import annotations

import pytest

from tests.unit.replay.factories import cmd, evidence, policy
from tracekit.judging.replay.checks import BY_ID, CHECK_IDS, REGISTRY, Check, Decision, resolve_name
from tracekit.judging.replay.scorer import SEVERITIES

UPSTREAM_ORDER = (
    "tests-passed",
    "forbidden-paths",
    "test-tampering",
    "unsafe-commands",
    "scope-adherence",
    "diff-size",
    "secret-scan",
)


def test_registry_order_is_upstreams() -> None:
    assert CHECK_IDS == UPSTREAM_ORDER
    assert len({c.name for c in REGISTRY}) == len(REGISTRY)


@pytest.mark.parametrize("check", REGISTRY, ids=[c.id for c in REGISTRY])
def test_every_registered_check(check: Check) -> None:
    assert BY_ID[check.id] is check
    assert check.default_severity in SEVERITIES
    assert resolve_name(check.id) == resolve_name(check.name) == check.id
    clean = check.evaluate(evidence(["src/a.py"]), policy())
    assert isinstance(clean, Decision) and clean.passed
    # Only tests-passed carries evidence when it passes (the command and its exit code).
    assert (clean.evidence == ()) is (check.id != "tests-passed")
    assert clean.message.endswith(".") and clean.message.isascii()
    # Deterministic: the same input gives the same decision.
    assert check.evaluate(evidence(["src/a.py"]), policy()) == clean


@pytest.mark.parametrize("check", REGISTRY, ids=[c.id for c in REGISTRY])
def test_every_check_can_fail(check: Check) -> None:
    bad = evidence(
        ["tests/test_a.py", ".github/x", "k.pem", "out/x"],
        lines=(999, 999),
        test_exit=1,
        commands=[cmd("rm -rf /")],
    )
    decision = check.evaluate(bad, policy(expected_modified_files_max=2, max_files_changed=2))
    assert not decision.passed and decision.evidence


@pytest.mark.parametrize(
    "name", ["tests passed", "Tests Passed", "TESTS-PASSED", "tests_passed", " Tests passed"]
)
def test_other_spellings_are_not_guessed(name: str) -> None:
    assert resolve_name(name) is None
