"""``invalid_dropped_event`` (invalid, tracekit): one event removed, the chain re-hashed.

A middle event (chosen by a generator seeded from (seed, trial)) is deleted and every hash is
recomputed, so the chain, the final hash and the root hash are all consistent. The header's
``event_count`` still commits to the original number of events, which is what verify must catch.
Expected: verify exits 2 (``structure.event_count_mismatch``). Fewer than three events make the
case not applicable.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from tracekit.formats.agentguard.writer import DraftTrace, write_trace
from tracekit.judging.metamorphic.base import Klass, NotApplicable, Relation, RelationKind
from tracekit.judging.metamorphic.edits import clone

RELATION = Relation(RelationKind.VERIFY_REJECTS)


@dataclass(frozen=True, slots=True)
class InvalidDroppedEvent:
    name: str = "invalid_dropped_event"
    klass: Klass = Klass.INVALID
    relation: Relation = RELATION
    summary: str = "Deletes one middle event and re-chains, keeping the committed event count."
    upstream: bool = False

    def apply(self, draft: DraftTrace, trial: int, seed: int) -> bytes:
        out = clone(draft)
        if len(out.events) < 3:
            raise NotApplicable("the trace has fewer than three events")
        out.header["event_count"] = len(out.events)
        victim = random.Random(f"invalid_dropped_event:{seed}:{trial}").randrange(
            1, len(out.events) - 1
        )
        del out.events[victim]
        return write_trace(out, keep_event_count=True)


TRANSFORM = InvalidDroppedEvent()
