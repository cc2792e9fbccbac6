"""``tests-passed``: the configured test command exited 0 (docs/replay.md, "The seven checks").

``timed_out`` is ignored, as upstream ignores it: a timed-out run that still reports exit code 0
passes. A null exit code is not 0, so it fails; the evidence then spells it ``None`` as upstream's
formatting does.
"""

from __future__ import annotations

from dataclasses import dataclass

from tracekit.formats.agentguard.schema.agentguard import PolicySnapshot
from tracekit.judging.replay.checks.base import Decision, Work
from tracekit.judging.replay.evidence import Evidence

PASS_MESSAGE = "Configured test command passed."
FAIL_MESSAGE = "Configured test command failed."


@dataclass(frozen=True, slots=True)
class TestsPassed:
    __test__ = False  # not a pytest test class

    id: str = "tests-passed"
    name: str = "Tests passed"
    default_severity: str = "error"

    def evaluate(
        self, evidence: Evidence, policy: PolicySnapshot, work: Work | None = None
    ) -> Decision:
        del work  # no pattern matching, and at most three evidence lines
        test = evidence.test
        passed = test.exit_code == 0
        code = "None" if test.exit_code is None else str(test.exit_code)
        return Decision(
            passed,
            PASS_MESSAGE if passed else FAIL_MESSAGE,
            (f"{test.command} exited {code}",),
        )


CHECK = TestsPassed()
