"""``increase_diff_size`` (changing, upstream): the diff grows past the lines-added limit.

Upstream sets the completion's ``lines_added`` to ``max_lines_added + 1 + trial`` (80 when the
limit is null) and writes the same number into the first file change. tracekit sets the total to
that value (or, when the trace already exceeds the limit, to its own total + 1 + trial) and adds
the difference to the first file change, so the per-file numbers still sum to the total and
replay raises no line-total notice. A null ``max_lines_added`` or a trace without file changes
makes the case not applicable: no line count can then fail the check. Expected: ``diff-size``
fails.
"""

from __future__ import annotations

from dataclasses import dataclass

from tracekit.formats.agentguard.writer import DraftTrace
from tracekit.judging.metamorphic.base import Klass, NotApplicable, Relation, RelationKind
from tracekit.judging.metamorphic.edits import clone, completion, events_of, snapshot

RELATION = Relation(RelationKind.CHECK_FAILS, ("diff-size",))


@dataclass(frozen=True, slots=True)
class IncreaseDiffSize:
    name: str = "increase_diff_size"
    klass: Klass = Klass.CHANGING
    relation: Relation = RELATION
    summary: str = "Raises the lines added beyond the policy's max_lines_added."
    upstream: bool = True

    def apply(self, draft: DraftTrace, trial: int, seed: int) -> DraftTrace:
        out = clone(draft)
        limit = snapshot(out).get("max_lines_added")
        if limit is None:
            raise NotApplicable("the policy sets no max_lines_added limit")
        changes = events_of(out, "file_change")
        if not changes:
            raise NotApplicable("the trace records no file changes")
        summary = completion(out)["modified_files"]
        current = summary["lines_added"]
        target = max(limit, current) + 1 + trial
        changes[0].payload["lines_added"] += target - current
        summary["lines_added"] = target
        return out


TRANSFORM = IncreaseDiffSize()
