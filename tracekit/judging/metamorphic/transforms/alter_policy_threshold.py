"""``alter_policy_threshold`` (changing, upstream): the policy's lines-added limit drops to 0.

As upstream: the snapshot's ``max_lines_added`` becomes 0 and the snapshot hash is recomputed
(the writer derives it). The evidence is untouched, so only the policy moves. A trace that added
no lines cannot exceed a limit of 0, so for it the case is not applicable (upstream would count
a failure). Expected: ``diff-size`` fails.
"""

from __future__ import annotations

from dataclasses import dataclass

from tracekit.formats.agentguard.writer import DraftTrace
from tracekit.judging.metamorphic.base import Klass, NotApplicable, Relation, RelationKind
from tracekit.judging.metamorphic.edits import clone, completion, snapshot

RELATION = Relation(RelationKind.CHECK_FAILS, ("diff-size",))


@dataclass(frozen=True, slots=True)
class AlterPolicyThreshold:
    name: str = "alter_policy_threshold"
    klass: Klass = Klass.CHANGING
    relation: Relation = RELATION
    summary: str = "Lowers the policy snapshot's max_lines_added to 0 (snapshot hash recomputed)."
    upstream: bool = True

    def apply(self, draft: DraftTrace, trial: int, seed: int) -> DraftTrace:
        out = clone(draft)
        policy = snapshot(out)
        if completion(out)["modified_files"]["lines_added"] <= 0:
            raise NotApplicable("the trace added no lines, so no limit can be exceeded")
        policy["max_lines_added"] = 0
        return out


TRANSFORM = AlterPolicyThreshold()
