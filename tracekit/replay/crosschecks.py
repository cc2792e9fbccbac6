"""Cross-field rules that both replay and audit report: each rule held once, here.

Replay reports them as notices that do not block (``replay.*``, evidence.py); audit reports them
under its own consistency codes (``audit.*``, tracekit/audit/consistency.py) and drops replay's
copy (``SUPERSEDED`` in tracekit/audit/engine.py), so a trace is never counted twice. Both call
these functions, so the two commands cannot disagree on what the rule is. Each returns the first
offending line and the number of offenders, or None; one linear pass over the events.
"""

from __future__ import annotations

from collections.abc import Sequence

from tracekit.records import EventRecord
from tracekit.schema import agentguard as ag

KNOWN_WORKING_DIRECTORY_ROLES = frozenset(
    {"repository", "run", "configuration", "external", "unspecified"}
)
"""The roles upstream's builder writes (spec §6); anything else is flagged (spec §17.12)."""

Hit = tuple[int, int]
"""(first offending line, number of offenders)."""


def offset_drops(events: Sequence[EventRecord]) -> Hit | None:
    """``relative_offset_seconds`` never decreases along the trace (nulls are skipped)."""
    first: int | None = None
    count = 0
    last: int | float | None = None
    for event in events:
        offset = event.relative_offset_seconds
        if offset is None:
            continue
        if last is not None and offset < last:
            count += 1
            if first is None:
                first = event.line
        last = offset
    return (first, count) if first is not None else None


def unknown_working_directory_roles(events: Sequence[EventRecord]) -> Hit | None:
    """Every agent_command's ``working_directory_role`` is one upstream's builder writes."""
    odd = [
        e.line
        for e in events
        if isinstance(e.payload, ag.AgentCommand)
        and e.payload.working_directory_role not in KNOWN_WORKING_DIRECTORY_ROLES
    ]
    return (odd[0], len(odd)) if odd else None


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
