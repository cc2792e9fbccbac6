"""v3 containment evidence, carried into replay as recorded and never strengthened
(docs/replay.md, "Evidence reconstruction").

Replay does not evaluate containment: none of the seven checks reads it. It is reconstructed so a
replay report states what isolation the run *claimed*, with the same weakness it was recorded
with. The rules that keep it from being strengthened:

* a v3 trace without a ``containment_evidence`` event yields ``recorded: false`` with state,
  execution mode and claim level ``unknown``: absence is never read as "not needed";
* a claim level is reported only as recorded, next to the section states that back it, and
  ``complete`` is true only when the root and every section say ``recorded``;
* v1/v2 traces cannot carry containment evidence, so they yield no summary at all.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from tracekit.formats.agentguard.records import EventRecord
from tracekit.formats.agentguard.schema import containment as ce

SECTIONS = ("preflight", "image", "controls", "environment", "workspace", "execution", "cleanup")


class ContainmentSummary(msgspec.Struct, frozen=True):
    """What the run claimed about its isolation, copied from the trace; the fields, in order,
    are its JSON form in replay reports."""

    recorded: bool
    execution_mode: str
    state: str
    security_claim_level: str
    sections: dict[str, str]
    """Each section's recorded state, in :data:`SECTIONS` order."""
    complete: bool
    """True only when the root and every section state are ``recorded``."""

    @classmethod
    def of(
        cls, execution_mode: str, state: str, claim: str, sections: dict[str, str]
    ) -> ContainmentSummary:
        """A recorded summary, with ``complete`` derived from the states."""
        complete = state == "recorded" and all(s == "recorded" for s in sections.values())
        return cls(True, execution_mode, state, claim, sections, complete)


ABSENT = ContainmentSummary(False, "unknown", "unknown", "unknown", {}, False)


def summarise_containment(
    events: Sequence[EventRecord], schema_version: int
) -> ContainmentSummary | None:
    """The containment summary of a v3 trace, or None for v1/v2."""
    if schema_version < 3:
        return None
    for event in events:
        payload = event.payload
        if isinstance(payload, ce.ContainmentEvidence):
            return ContainmentSummary.of(
                payload.execution_mode,
                payload.state,
                payload.security_claim_level,
                {name: getattr(payload, name).state for name in SECTIONS},
            )
    return ABSENT
