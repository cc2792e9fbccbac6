"""``check_evidence_order`` (preserving, upstream): recorded check evidence is reordered.

Upstream reverses every check_result's evidence list on odd trials and leaves it alone on even
ones. tracekit reverses on odd trials as upstream does and, so that no trial is a no-op, rotates
each list on even trials by ``1 + (trial // 2 - 1 + seed) mod (length - 1)`` places, which is
never a full turn. Recorded evidence is never an input to the recomputation. A trace in which no
evidence list has two different items offers nothing to reorder: the case is not applicable
(upstream counts it as a pass).
"""

from __future__ import annotations

from dataclasses import dataclass

from tracekit.formats.agentguard.writer import DraftTrace
from tracekit.judging.metamorphic.base import Klass, NotApplicable, Relation, RelationKind
from tracekit.judging.metamorphic.edits import clone, events_of

RELATION = Relation(RelationKind.SAME_OUTCOME)


def reorder(evidence: list[str], trial: int, seed: int) -> list[str]:
    """Reversed on odd trials; rotated left by 1..length-1 places on even trials."""
    if trial % 2:
        return list(reversed(evidence))
    if len(evidence) < 2:
        return list(evidence)
    shift = 1 + (trial // 2 - 1 + seed) % (len(evidence) - 1)
    return evidence[shift:] + evidence[:shift]


@dataclass(frozen=True, slots=True)
class CheckEvidenceOrder:
    name: str = "check_evidence_order"
    klass: Klass = Klass.PRESERVING
    relation: Relation = RELATION
    summary: str = "Reverses (odd trials) or rotates (even trials) recorded check evidence."
    upstream: bool = True

    def apply(self, draft: DraftTrace, trial: int, seed: int) -> DraftTrace:
        out = clone(draft)
        moved = False
        for event in events_of(out, "check_result"):
            before = list(event.payload["evidence"])
            event.payload["evidence"] = reorder(before, trial, seed)
            moved = moved or event.payload["evidence"] != before
        if not moved:
            raise NotApplicable("no recorded evidence list has two different items")
        return out


TRANSFORM = CheckEvidenceOrder()
