"""``check_message_variation`` (preserving, upstream): recorded check messages get a suffix.

Upstream appends `` [display variant <trial>]`` to every check_result message. Recorded check
results are comparison targets only, never inputs, so the recomputed verdict cannot move. The
message is shortened first when the suffix would push it past the schema's 4096 characters, and
a non-zero ``seed`` is added to the suffix.
"""

from __future__ import annotations

from dataclasses import dataclass

from tracekit.formats.agentguard.writer import DraftTrace
from tracekit.judging.metamorphic.base import Klass, NotApplicable, Relation, RelationKind
from tracekit.judging.metamorphic.edits import clone, events_of

MAX_MESSAGE = 4096


def suffix(trial: int, seed: int) -> str:
    """The display-variant suffix; upstream's exact text when ``seed`` is 0."""
    return f" [display variant {trial}]" if seed == 0 else f" [display variant {trial}/{seed}]"


RELATION = Relation(RelationKind.SAME_OUTCOME)


@dataclass(frozen=True, slots=True)
class CheckMessageVariation:
    name: str = "check_message_variation"
    klass: Klass = Klass.PRESERVING
    relation: Relation = RELATION
    summary: str = "Appends a display-variant suffix to every recorded check message."
    upstream: bool = True

    def apply(self, draft: DraftTrace, trial: int, seed: int) -> DraftTrace:
        out = clone(draft)
        checks = events_of(out, "check_result")
        if not checks:
            raise NotApplicable("the trace records no check results")
        tail = suffix(trial, seed)
        for event in checks:
            message = event.payload["message"]
            event.payload["message"] = message[: MAX_MESSAGE - len(tail)] + tail
        return out


TRANSFORM = CheckMessageVariation()
