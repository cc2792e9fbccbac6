"""Does a result payload look cut? The truncation heuristics every reader and the audit share
(docs/audit.md, "Failure modes": a flag is a record, a marker or a round width only a suspicion).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tracekit.formats.harness.view import TRUNCATION_FLAGS

ROUND_WIDTHS = frozenset({80, 100, 120, 200, 256, 500, 512, 1000, 1024, 2000, 2048, 4096, 8192})
"""Lengths at which console capture and log frameworks typically cut text."""
CAPTURE_WIDTHS = frozenset(w for w in ROUND_WIDTHS if w >= 1000)
"""For AgentGuard output byte counts: only capture-buffer sizes, since short command output of
exactly 100 or 200 bytes is common and its digest is over what was produced."""
MARKERS = (
    "[truncated]",
    "(truncated)",
    "<truncated>",
    "[...]",
    "...truncated",
    "[output truncated]",
)
ELLIPSES = ("...", "\u2026")
ELLIPSIS_MIN_LENGTH = 64
"""An ellipsis counts as a truncation marker only at the end of a string at least this long."""
MAX_STRINGS = 10_000
"""At most this many strings are inspected per result payload (bounded work per trace)."""

FLAG, WIDTH, MARKER = "truncation flag", "length at a round console width", "truncation marker"


def _strings(value: Any, budget: list[int], depth: int = 0) -> Iterator[str]:
    if budget[0] <= 0 or depth > 64:
        return
    if isinstance(value, str):
        budget[0] -= 1
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item, budget, depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, budget, depth + 1)


def truncation_reason(value: Any) -> str | None:
    """Why ``value`` (a result payload) looks cut, as fixed text; None when it does not."""
    if isinstance(value, dict) and any(value.get(flag) is True for flag in TRUNCATION_FLAGS):
        return FLAG
    for text in _strings(value, [MAX_STRINGS]):
        stripped = text.rstrip()
        lowered = stripped.lower()
        if any(lowered.endswith(marker) for marker in MARKERS):
            return MARKER
        if len(stripped) >= ELLIPSIS_MIN_LENGTH and stripped.endswith(ELLIPSES):
            return MARKER
        if len(text) in ROUND_WIDTHS:
            return WIDTH
    return None
