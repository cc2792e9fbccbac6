"""Time between two records of a transcript, from their ISO 8601 timestamps (docs/formats.md,
"Claude Code", step 3; "Codex CLI", step 3)."""

from __future__ import annotations

from datetime import datetime


def seconds_between(start: str | None, end: str | None) -> float | None:
    """Seconds from ``start`` to ``end`` when both parse, carry the same kind of zone, and do
    not run backwards; else None."""
    if start is None or end is None:
        return None
    try:
        delta = (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()
    except (ValueError, TypeError):
        return None
    return delta if delta >= 0 else None
