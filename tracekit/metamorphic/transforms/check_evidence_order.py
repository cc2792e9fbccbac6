"""``check_evidence_order`` (preserving, upstream): recorded check evidence is reordered.

Upstream reverses every check_result's evidence list on odd trials and leaves it alone on even
ones. tracekit reverses on odd trials as upstream does and, so that no trial is a no-op, rotates
the list by ``trial // 2 + seed`` places on even trials. Recorded evidence is never an input to
the recomputation.
"""

from __future__ import annotations

from dataclasses import dataclass

from tracekit.metamorphic.base import Klass, NotApplicable, Relation, RelationKind
from tracekit.metamorphic.edits import clone, events_of
from tracekit.writer import DraftTrace


def reorder(evidence: list[str], trial: int, seed: int) -> list[str]:
    """Reversed on odd trials; rotated left by ``trial // 2 + seed`` on even trials."""
    if trial % 2:
        return list(reversed(evidence))
    if not evidence:
        return []
    shift = (trial // 2 + seed) % len(evidence)
    return evidence[shift:] + evidence[:shift]


RELATION = Relation(RelationKind.SAME_OUTCOME)


@dataclass(frozen=True, slots=True)
class CheckEvidenceOrder:
    name: str = "check_evidence_order"
    klass: Klass = Klass.PRESERVING
    relation: Relation = RELATION
    summary: str = "Reverses (odd trials) or rotates (even trials) recorded check evidence."
    upstream: bool = True

    def apply(self, draft: DraftTrace, trial: int, seed: int) -> DraftTrace:
        out = clone(draft)
        checks = events_of(out, "check_result")
        if not checks:
            raise NotApplicable("the trace records no check results")
        for event in checks:
            event.payload["evidence"] = reorder(list(event.payload["evidence"]), trial, seed)
        return out


TRANSFORM = CheckEvidenceOrder()
