"""``remove_forbidden_change`` (changing, repairing, tracekit): forbidden changes are undone.

Every file change whose path matches the snapshot's ``forbidden_paths`` is removed, together
with its entry and line counts in the completion summary. The verdict must move back: the
``forbidden-paths`` check passes again. A trace with no forbidden change gives the transform
nothing to repair, so its case is not applicable (sweep it after ``add_secret_file`` to
exercise it on clean traces, as the tests do).
"""

from __future__ import annotations

from dataclasses import dataclass

from tracekit.formats.agentguard.writer import DraftTrace
from tracekit.judging.metamorphic.base import Klass, NotApplicable, Relation, RelationKind
from tracekit.judging.metamorphic.edits import clone, events_of, remove_file_changes, snapshot
from tracekit.judging.replay.matching import matching_patterns

RELATION = Relation(RelationKind.CHECK_PASSES, ("forbidden-paths",))


@dataclass(frozen=True, slots=True)
class RemoveForbiddenChange:
    name: str = "remove_forbidden_change"
    klass: Klass = Klass.CHANGING
    relation: Relation = RELATION
    summary: str = "Removes every file change on a forbidden path; the check must pass again."
    upstream: bool = False

    def apply(self, draft: DraftTrace, trial: int, seed: int) -> DraftTrace:
        out = clone(draft)
        patterns = list(snapshot(out).get("forbidden_paths", []))
        forbidden = {
            event.payload["path"]
            for event in events_of(out, "file_change")
            if matching_patterns(event.payload["path"], patterns)
        }
        if not forbidden:
            raise NotApplicable("the trace changes no forbidden path")
        remove_file_changes(out, forbidden)
        return out


TRANSFORM = RemoveForbiddenChange()
