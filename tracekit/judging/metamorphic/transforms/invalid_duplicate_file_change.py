"""``invalid_duplicate_file_change`` (invalid, tracekit): a file change is recorded twice.

The first file change is repeated after the last one and mirrored in the completion summary,
then the chain is re-hashed. Upstream's loader accepts this (replay alone notices); tracekit's
verify must reject it. Expected: verify exits 2 (``structure.duplicate_file_change_path``). A
trace without file changes makes the case not applicable.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from tracekit.formats.agentguard.writer import DraftTrace
from tracekit.judging.metamorphic.base import Klass, NotApplicable, Relation, RelationKind
from tracekit.judging.metamorphic.edits import add_file_change, clone, events_of

RELATION = Relation(RelationKind.VERIFY_REJECTS)


@dataclass(frozen=True, slots=True)
class InvalidDuplicateFileChange:
    name: str = "invalid_duplicate_file_change"
    klass: Klass = Klass.INVALID
    relation: Relation = RELATION
    summary: str = "Records the first file change a second time, then re-chains."
    upstream: bool = False

    def apply(self, draft: DraftTrace, trial: int, seed: int) -> DraftTrace:
        out = clone(draft)
        changes = events_of(out, "file_change")
        if not changes:
            raise NotApplicable("the trace records no file changes")
        add_file_change(out, copy.deepcopy(changes[0].payload))
        return out


TRANSFORM = InvalidDuplicateFileChange()
