"""A verified trace's events folded in one pass into what replay's rules read.

Replay's rules each read a few event types. :class:`EventGroups` takes the events one at a time,
in trace order, either from a list (``replay(report)`` with kept events) or while verify streams
them past (``VerifyOptions.observe``, so replay never holds every event; docs/performance.md):

* ``agent_command`` events, nearly all of a long trace, are digested as they pass and not held:
  the command as the command policy sees it (:class:`CommandEvidence`), the working-directory
  role rule (crosschecks.py) and the truncation rule (replayability.py rule 8);
* the truncation rule is applied to ``test_result`` and ``check_result`` events too, and the
  offset rule (crosschecks.py) to every event;
* the events the other rules read (:data:`HELD`) are held by type, in trace order, so a rule's
  "first offending line" is the same as over the whole trace; every other event is dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec
from msgspec.structs import astuple

from tracekit.formats.agentguard.records import EventRecord
from tracekit.formats.agentguard.schema import agentguard as ag
from tracekit.judging.replay import crosschecks

HELD = frozenset(
    {
        "execution_started",
        "test_result",
        "execution_completed",
        "file_change",
        "check_result",
        "containment_evidence",
    }
)
"""The event types replay's rules read as events (evidence.py, replayability.py, results.py)."""
TRUNCATION_EVENTS = ("agent_command", "test_result", "check_result")
"""The event types whose truthy truncation flag makes a trace not replayable."""


class CommandEvidence(msgspec.Struct, frozen=True):
    """One agent command as the command policy saw it (a Struct: one per command of a trace is
    built, and a Struct is built in C; docs/performance.md, "Round 2, second pass")."""

    command_text: str
    argv: tuple[str, ...]
    working_directory_role: str
    exit_code: int | None
    executed: bool
    blocked: bool
    timed_out: bool
    policy_mode: str
    matched_patterns: tuple[str, ...]

    @property
    def status(self) -> str:
        """``blocked``, ``executed`` or ``simulated``, in upstream's order of precedence."""
        if self.blocked:
            return "blocked"
        return "executed" if self.executed else "simulated"


def command_evidence(payload: ag.AgentCommand) -> CommandEvidence:
    """The command policy's view of one agent_command payload."""
    preflight = payload.preflight
    return CommandEvidence(
        payload.command,
        tuple(payload.argv),
        payload.working_directory_role,
        payload.exit_code,
        payload.executed,
        payload.blocked,
        payload.timed_out,
        preflight.mode,
        tuple(preflight.matched_patterns),
    )


class EventGroups:
    """The fold of a verified trace's events (see the module docstring). Feed it with
    :meth:`add` in trace order, or give the events to the constructor."""

    __slots__ = ("_groups", "commands", "offsets", "roles", "truncated")

    def __init__(self, events: Iterable[EventRecord] = ()) -> None:
        self._groups: dict[str, list[EventRecord]] = {}
        self.commands: list[CommandEvidence] = []
        """Every agent command, in order."""
        self.roles = crosschecks.Tally()
        """agent_command events whose working-directory role is not one upstream writes."""
        self.offsets = crosschecks.OffsetWatch()
        self.truncated: dict[str, crosschecks.Tally] = {
            kind: crosschecks.Tally() for kind in TRUNCATION_EVENTS
        }
        """Events with a truthy truncation flag, by type."""
        for event in events:  # verify bounds the number of events
            self.add(event)

    def add(self, event: EventRecord) -> None:
        """Take the next event (usable as ``VerifyOptions.observe``)."""
        self.offsets.see(event.line, event.relative_offset_seconds)
        payload = event.payload
        if isinstance(payload, (ag.AgentCommand, ag.TestResult, ag.CheckResult)):
            if True in astuple(payload.truncation):  # every truncation field is a bool
                self.truncated[event.event_type].add(event.line)
            if isinstance(payload, ag.AgentCommand):
                self.commands.append(command_evidence(payload))
                if not crosschecks.role_known(payload.working_directory_role):
                    self.roles.add(event.line)
                return
        kind = event.event_type
        if kind in HELD:
            group = self._groups.get(kind)
            if group is None:
                self._groups[kind] = [event]
            else:
                group.append(event)

    def of(self, event_type: str) -> Sequence[EventRecord]:
        """The held events of one type (:data:`HELD`), in trace order; empty otherwise."""
        return self._groups.get(event_type, ())


def grouped(events: Sequence[EventRecord] | EventGroups) -> EventGroups:
    """``events`` folded, or the fold itself when already folded."""
    return events if isinstance(events, EventGroups) else EventGroups(events)
