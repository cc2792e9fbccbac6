"""Texts from a trace, made safe to hold and bounded to show (docs/report.md, "Bounds").

Autoescaping in the templates makes markup inert; this module makes the text itself printable
and bounded: control characters other than newline and tab are shown as ``\\xNN`` escapes, lone
surrogates (which UTF-8 cannot hold) as U+FFFD, and every text is cut to :data:`TEXT_LIMIT`
characters and to what is left of the report's :data:`TEXT_BUDGET`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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


@dataclass(frozen=True, slots=True)
class Held:
    """A text kept to be folded later (an episode section made before its place in the document
    is known): its first characters, at most the per-text limit, and the whole text's size."""

    text: str
    size: int
    """The whole text's size in UTF-8 bytes."""
    chars: int
    """The whole text's length in characters."""


def hold(text: str | None, limit: int = TEXT_LIMIT) -> Held | None:
    """``text``'s first ``limit`` characters and its size; None stays None."""
    if text is None:
        return None
    return Held(text[:limit], len(text.encode("utf-8", "surrogatepass")), len(text))


class Budget:
    """What is left of :data:`TEXT_BUDGET` for one report; spent in document order."""

    def __init__(self, total: int = TEXT_BUDGET, limit: int = TEXT_LIMIT) -> None:
        self.left = total
        self.limit = limit
        self.cut = 0
        """Texts shown in part or not at all."""

    def fold(self, text: str | None) -> Folded | None:
        """``text`` cut to the per-text limit and to the budget left; None stays None."""
        return self.spend(hold(text, self.limit))

    def spend(self, held: Held | None) -> Folded | None:
        """:meth:`fold` of a text held earlier (:func:`hold` with this budget's per-text limit)."""
        if held is None:
            return None
        take = min(held.chars, self.limit, self.left)
        self.left -= take
        if take < held.chars:
            self.cut += 1
        return Folded(clean(held.text[:take]), held.size, held.chars, take)
