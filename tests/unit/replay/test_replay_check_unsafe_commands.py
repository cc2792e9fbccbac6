"""unsafe-commands: substring matches, per command then per pattern, with a status."""

from __future__ import annotations

from tests.unit.replay.factories import cmd, evidence, policy
from tracekit.judging.replay.checks.unsafe_commands import CHECK, FAIL_MESSAGE, PASS_MESSAGE


def test_safe_commands_pass() -> None:
    decision = CHECK.evaluate(evidence(commands=[cmd("ls -la"), cmd("python x.py")]), policy())
    assert decision.passed and decision.message == PASS_MESSAGE and decision.evidence == ()


def test_statuses_and_order() -> None:
    commands = [
        cmd("rm -rf build", blocked=True, executed=False),
        cmd("curl -s x && git push", executed=True),
        cmd("git push origin", executed=False),
    ]
    decision = CHECK.evaluate(evidence(commands=commands), policy())
    assert not decision.passed and decision.message == FAIL_MESSAGE
    assert decision.evidence == (
        "rm -rf build matched pattern 'rm -rf' (blocked)",
        "curl -s x && git push matched pattern 'curl ' (executed)",
        "curl -s x && git push matched pattern 'git push' (executed)",
        "git push origin matched pattern 'git push' (simulated)",
    )


def test_blocked_takes_precedence_over_executed() -> None:
    decision = CHECK.evaluate(
        evidence(commands=[cmd("rm -rf /", blocked=True, executed=True)]), policy()
    )
    assert decision.evidence == ("rm -rf / matched pattern 'rm -rf' (blocked)",)


def test_patterns_come_from_unsafe_commands_not_the_guard() -> None:
    ev = evidence(commands=[cmd("make deploy")])
    assert CHECK.evaluate(ev, policy()).passed
    assert not CHECK.evaluate(ev, policy(unsafe_commands=["deploy"])).passed


def test_identity() -> None:
    assert (CHECK.id, CHECK.name, CHECK.default_severity) == (
        "unsafe-commands",
        "Unsafe commands",
        "critical",
    )
