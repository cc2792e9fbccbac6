"""A verified trace's events grouped by event type in one pass, for replay's rules.

Replay's rules each read a few event types (the singletons, the file changes, the commands, the
check results); grouping once lets every rule read only its own events instead of walking the
whole trace again (docs/performance.md). Groups keep trace order, so a rule's "first offending
line" is the same as over the whole trace.
"""

from __future__ import annotations

from collections.abc import Sequence

from tracekit.records import EventRecord


class EventGroups:
    """``events`` (a verified trace's typed events, in order) grouped by ``event_type``."""

    __slots__ = ("events", "_groups")

    def __init__(self, events: Sequence[EventRecord]) -> None:
        self.events = events
        """Every event, in order."""
        groups: dict[str, list[EventRecord]] = {}
        for event in events:  # one pass; verify bounds the number of events
            group = groups.get(event.event_type)
            if group is None:
                groups[event.event_type] = [event]
            else:
                group.append(event)
        self._groups = groups

    def of(self, event_type: str) -> Sequence[EventRecord]:
        """The events of one type, in trace order (empty when there are none)."""
        return self._groups.get(event_type, ())


def grouped(events: Sequence[EventRecord] | EventGroups) -> EventGroups:
    """``events`` grouped, or the groups themselves when already grouped."""
    return events if isinstance(events, EventGroups) else EventGroups(events)
