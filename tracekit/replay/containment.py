"""v3 containment evidence, carried into replay as recorded and never strengthened (spec §6, §12).

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
from dataclasses import dataclass
from typing import Any

from tracekit.records import EventRecord
from tracekit.schema import containment as ce

SECTIONS = ("preflight", "image", "controls", "environment", "workspace", "execution", "cleanup")


@dataclass(frozen=True, slots=True)
class ContainmentSummary:
    """What the run claimed about its isolation, copied from the trace."""

    recorded: bool
    execution_mode: str
    state: str
    security_claim_level: str
    section_states: tuple[tuple[str, str], ...]

    @property
    def complete(self) -> bool:
        """True only when the root and every section state are ``recorded``."""
        return (
            self.recorded
            and self.state == "recorded"
            and all(state == "recorded" for _, state in self.section_states)
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON form used in replay reports."""
        return {
            "recorded": self.recorded,
            "execution_mode": self.execution_mode,
            "state": self.state,
            "security_claim_level": self.security_claim_level,
            "sections": dict(self.section_states),
            "complete": self.complete,
        }


ABSENT = ContainmentSummary(False, "unknown", "unknown", "unknown", ())


def summarise_containment(
    events: Sequence[EventRecord], schema_version: int
) -> ContainmentSummary | None:
    """The containment summary of a v3 trace, or None for v1/v2."""
    if schema_version < 3:
        return None
    for event in events:
        payload = event.payload
        if isinstance(payload, ce.ContainmentEvidence):
            return ContainmentSummary(
                recorded=True,
                execution_mode=payload.execution_mode,
                state=payload.state,
                security_claim_level=payload.security_claim_level,
                section_states=tuple((name, getattr(payload, name).state) for name in SECTIONS),
            )
    return ABSENT
