"""``add_test_file`` (changing, upstream): a new file under the policy's test paths.

Upstream adds ``tests/metamorphic_<trial>.py`` (one added line) before the test result and
appends it to the completion summary. tracekit uses the same path whenever it matches one of the
snapshot's ``test_paths``; otherwise it instantiates a test pattern, and a policy without any
usable test pattern makes the case not applicable (upstream would report a failure). Expected:
``test-tampering`` fails.
"""

from __future__ import annotations

from dataclasses import dataclass

from tracekit.formats.agentguard.writer import DraftTrace
from tracekit.judging.metamorphic.base import Klass, Relation, RelationKind
from tracekit.judging.metamorphic.edits import add_matching_file, clone, enabled_patterns, snapshot


def stem(trial: int, seed: int) -> str:
    """The file stem: ``metamorphic_<trial>``, plus ``_<seed>`` for a non-zero seed."""
    return f"metamorphic_{trial}" if seed == 0 else f"metamorphic_{trial}_{seed}"


RELATION = Relation(RelationKind.CHECK_FAILS, ("test-tampering",))


@dataclass(frozen=True, slots=True)
class AddTestFile:
    name: str = "add_test_file"
    klass: Klass = Klass.CHANGING
    relation: Relation = RELATION
    summary: str = "Adds a new file that matches the policy's test paths."
    upstream: bool = True

    def apply(self, draft: DraftTrace, trial: int, seed: int) -> DraftTrace:
        out = clone(draft)
        patterns = enabled_patterns(snapshot(out), {"test-tampering": "test_paths"})
        name = stem(trial, seed)
        add_matching_file(out, f"tests/{name}.py", patterns, name)
        return out


TRANSFORM = AddTestFile()
