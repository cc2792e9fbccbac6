"""Texts from a trace, made safe to hold and bounded to show (docs/report.md, "Bounds").

Autoescaping in the templates makes markup inert; this module makes the text itself printable
and bounded: control characters other than newline and tab are shown as ``\\xNN`` escapes, lone
surrogates (which UTF-8 cannot hold) as U+FFFD, and every text is cut to :data:`TEXT_LIMIT`
characters and to what is left of the report's :data:`TEXT_BUDGET`.
"""

from __future__ import annotations

import re

from tracekit.report.html.model import Folded

TEXT_LIMIT = 2000
"""Most characters of one text (a message, arguments, a result) the report shows."""
TEXT_BUDGET = 1_000_000
"""Most characters of trace text one report shows in all; later texts show their size only."""
NAME_LIMIT = 64
"""Most characters of a name from a trace (a tool, a scorer) the report shows."""

_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F)}
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean(text: str) -> str:
    """``text`` with control characters escaped and lone surrogates replaced."""
    return _SURROGATE.sub("\ufffd", text.translate(_CONTROLS))


def name(value: str | None) -> str:
    """A name from a trace, cleaned and cut to :data:`NAME_LIMIT` characters."""
    if value is None:
        return "-"
    text = clean(value)
    return text if len(text) <= NAME_LIMIT else text[: NAME_LIMIT - 3] + "..."


class Budget:
    """What is left of :data:`TEXT_BUDGET` for one report; spent in document order."""

    def __init__(self, total: int = TEXT_BUDGET, limit: int = TEXT_LIMIT) -> None:
        self.left = total
        self.limit = limit
        self.cut = 0
        """Texts shown in part or not at all."""

    def fold(self, text: str | None) -> Folded | None:
        """``text`` cut to the per-text limit and to the budget left; None stays None."""
        if text is None:
            return None
        size = len(text.encode("utf-8", "surrogatepass"))
        take = min(len(text), self.limit, self.left)
        self.left -= take
        if take < len(text):
            self.cut += 1
        return Folded(clean(text[:take]), size, len(text), take)
