"""``change_test_exit`` (changing, upstream): the task's tests now fail.

As upstream: the test_result's ``exit_code`` becomes 1 and ``functional_pass`` false, so the
record stays self-consistent (docs/replay.md). Expected: ``tests-passed`` fails.
"""

from __future__ import annotations

from dataclasses import dataclass

from tracekit.formats.agentguard.writer import DraftTrace
from tracekit.judging.metamorphic.base import Klass, NotApplicable, Relation, RelationKind
from tracekit.judging.metamorphic.edits import clone, events_of

RELATION = Relation(RelationKind.CHECK_FAILS, ("tests-passed",))


@dataclass(frozen=True, slots=True)
class ChangeTestExit:
    name: str = "change_test_exit"
    klass: Klass = Klass.CHANGING
    relation: Relation = RELATION
    summary: str = "Sets the test run's exit code to 1 and functional_pass to false."
    upstream: bool = True

    def apply(self, draft: DraftTrace, trial: int, seed: int) -> DraftTrace:
        out = clone(draft)
        tests = events_of(out, "test_result")
        if len(tests) != 1:
            raise NotApplicable("the trace has no single test_result event")
        tests[0].payload["exit_code"] = 1
        tests[0].payload["functional_pass"] = False
        return out


TRANSFORM = ChangeTestExit()
