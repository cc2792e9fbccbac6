"""``reorder_agent_commands`` (preserving, tracekit): the agent commands change places.

No check depends on the order of agent commands: unsafe-commands decides per command, and only
its evidence lines (which the relation does not compare, as upstream's does not) follow command
order. The commands are permuted by a generator seeded from (seed, trial); a permutation that
happens to be the identity is rotated by one, so every case really moves something. Relative
offsets stay with their positions, so time still runs forward. Fewer than two commands make the
case not applicable.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from tracekit.formats.agentguard.writer import DraftTrace
from tracekit.judging.metamorphic.base import Klass, NotApplicable, Relation, RelationKind
from tracekit.judging.metamorphic.edits import clone


def permutation(size: int, trial: int, seed: int) -> list[int]:
    """A deterministic non-identity permutation of ``range(size)`` (size >= 2)."""
    order = list(range(size))
    random.Random(f"reorder_agent_commands:{seed}:{trial}").shuffle(order)
    if order == sorted(order):
        order = order[1:] + order[:1]
    return order


RELATION = Relation(RelationKind.SAME_OUTCOME)


@dataclass(frozen=True, slots=True)
class ReorderAgentCommands:
    name: str = "reorder_agent_commands"
    klass: Klass = Klass.PRESERVING
    relation: Relation = RELATION
    summary: str = "Permutes the agent_command events; offsets stay with their positions."
    upstream: bool = False

    def apply(self, draft: DraftTrace, trial: int, seed: int) -> DraftTrace:
        out = clone(draft)
        slots = [i for i, event in enumerate(out.events) if event.event_type == "agent_command"]
        if len(slots) < 2:
            raise NotApplicable("the trace records fewer than two agent commands")
        payloads = [out.events[i].payload for i in slots]
        for slot, source in zip(slots, permutation(len(slots), trial, seed), strict=True):
            out.events[slot].payload = payloads[source]
        return out


TRANSFORM = ReorderAgentCommands()
