"""Cross-field rules that both replay and audit report: each rule held once, here.

Replay reports them as notices that do not block (``replay.*``, evidence.py); audit reports them
under its own consistency codes (``audit.*``, tracekit/judging/audit/consistency.py) and drops replay's
copy (``SUPERSEDED`` in tracekit/judging/audit/engine.py), so a trace is never counted twice. Both call
these folds and functions, so the two commands cannot disagree on what the rule is. The
per-event rules are folds applied while the events pass (:class:`OffsetWatch`, :func:`role_known`
with a :class:`Tally`, in tracekit/judging/replay/grouping.py's ``EventGroups``), each giving the first
offending line and the number of offenders, or None.
"""

from __future__ import annotations

from collections.abc import Sequence

from tracekit.formats.agentguard.records import EventRecord
from tracekit.formats.agentguard.schema import agentguard as ag

KNOWN_WORKING_DIRECTORY_ROLES = frozenset(
    {"repository", "run", "configuration", "external", "unspecified"}
)
"""The roles upstream's builder writes; anything else draws a notice
(docs/replay.md, "Replayability")."""

Hit = tuple[int, int]
"""(first offending line, number of offenders)."""


class Tally:
    """The first offending line and the number of offenders, counted as events stream past."""

    __slots__ = ("count", "first")

    def __init__(self) -> None:
        self.first: int | None = None
        self.count = 0

    def add(self, line: int) -> None:
        """Count one offender at ``line``."""
        if self.first is None:
            self.first = line
        self.count += 1

    def hit(self) -> Hit | None:
        """(first line, count), or None when nothing offended."""
        return None if self.first is None else (self.first, self.count)


class OffsetWatch:
    """The offset rule over a stream: ``relative_offset_seconds`` never decreases (nulls are
    skipped); each decrease is one offender."""

    __slots__ = ("drops", "last")

    def __init__(self) -> None:
        self.drops = Tally()
        self.last: int | float | None = None

    def see(self, line: int, offset: int | float | None) -> None:
        """Take the next event's line and offset."""
        if offset is None:
            return
        if self.last is not None and offset < self.last:
            self.drops.add(line)
        self.last = offset


def role_known(role: str) -> bool:
    """Whether an agent_command's ``working_directory_role`` is one upstream's builder writes."""
    return role in KNOWN_WORKING_DIRECTORY_ROLES


def line_totals_match(
    summary: ag.ModifiedFiles, changes: Sequence[EventRecord]
) -> bool:
    """The completion summary's line totals equal the sums over the file_change events."""
    added = deleted = 0
    for event in changes:
        if isinstance(event.payload, ag.FileChange):
            added += event.payload.lines_added
            deleted += event.payload.lines_deleted
    return (summary.lines_added, summary.lines_deleted) == (added, deleted)
