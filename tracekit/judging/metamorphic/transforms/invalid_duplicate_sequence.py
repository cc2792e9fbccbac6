"""``invalid_duplicate_sequence`` (invalid, upstream): event 2 reuses event 1's sequence.

As upstream: the second event gets sequence 1 and the chain is re-hashed, so every hash is
consistent and only structure checking can catch it. Expected: verify exits 2
(``structure.sequence_duplicate``).
"""

from __future__ import annotations

from dataclasses import dataclass

from tracekit.formats.agentguard.writer import DraftTrace
from tracekit.judging.metamorphic.base import Klass, NotApplicable, Relation, RelationKind
from tracekit.judging.metamorphic.edits import clone

RELATION = Relation(RelationKind.VERIFY_REJECTS)


@dataclass(frozen=True, slots=True)
class InvalidDuplicateSequence:
    name: str = "invalid_duplicate_sequence"
    klass: Klass = Klass.INVALID
    relation: Relation = RELATION
    summary: str = "Gives the second event the first event's sequence number, then re-chains."
    upstream: bool = True

    def apply(self, draft: DraftTrace, trial: int, seed: int) -> DraftTrace:
        out = clone(draft)
        if len(out.events) < 2:
            raise NotApplicable("the trace has fewer than two events")
        out.events[1].sequence = out.events[0].sequence or 1
        return out


TRANSFORM = InvalidDuplicateSequence()
