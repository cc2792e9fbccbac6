"""Making result text safe for the medium it is rendered into.

Evidence strings quote trace values by upstream's design (a tool name, a recipient). They are
result content, not diagnostics, but a trace must not be able to drive a terminal or break an
XML report through them (docs/threat-model.md, "check").
"""

from __future__ import annotations

import re

_XML_INVALID = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def terminal_safe(text: str) -> str:
    """``text`` unchanged when every character is printable, else with Python escapes for
    control, format (bidi, tag) and other non-printable characters."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in text)


def xml_safe(text: str) -> str:
    """``text`` with every character XML 1.0 cannot carry replaced by a ``\\xNN`` escape
    (ElementTree escapes markup, not control characters or lone surrogates)."""
    return _XML_INVALID.sub(lambda m: m.group(0).encode("unicode_escape", "backslashreplace").decode("ascii"), text)
