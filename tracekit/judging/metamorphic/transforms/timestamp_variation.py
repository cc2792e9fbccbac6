"""``timestamp_variation`` (preserving, upstream): new ``created_at`` and relative offsets.

Upstream sets ``created_at`` to ``2026-01-01T00:00:<trial>+00:00`` and every event's
``relative_offset_seconds`` to ``round(index * 0.125 + trial, 6)``. tracekit computes the
timestamp with real date arithmetic (trial seconds, plus ``seed`` minutes), so it stays a valid
ISO timestamp past trial 59 and equals upstream's for seed 0 and trials 0-59. Offsets increase
strictly, so replay raises no offset notice. Neither value is policy evidence.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from tracekit.formats.agentguard.writer import DraftTrace
from tracekit.judging.metamorphic.base import Klass, Relation, RelationKind
from tracekit.judging.metamorphic.edits import clone

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
OFFSET_STEP_SECONDS = 0.125


RELATION = Relation(RelationKind.SAME_OUTCOME)


@dataclass(frozen=True, slots=True)
class TimestampVariation:
    name: str = "timestamp_variation"
    klass: Klass = Klass.PRESERVING
    relation: Relation = RELATION
    summary: str = "Sets the header's created_at and every event's relative offset."
    upstream: bool = True

    def apply(self, draft: DraftTrace, trial: int, seed: int) -> DraftTrace:
        out = clone(draft)
        moment = EPOCH + timedelta(seconds=trial, minutes=seed)
        out.header["created_at"] = moment.isoformat()
        for index, event in enumerate(out.events):
            event.relative_offset_seconds = round(index * OFFSET_STEP_SECONDS + trial, 6)
        return out


TRANSFORM = TimestampVariation()
