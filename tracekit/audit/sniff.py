"""Which trace format a file holds, decided from its first bytes (docs/audit.md, "Formats").

Pure: takes a prefix of the file (at most :data:`SNIFF_BYTES`) and, as a last resort, its name.

1. A UTF-8 byte order mark and leading whitespace are skipped (verify reports the BOM itself).
2. The first non-blank byte must be ``{``: both formats are JSON objects.
3. If the object's first key is ``messages``, ``tool_calls`` or ``events``, it is an OWASP
   harness trace (upstream writes these keys first; tracekit's canonical AgentGuard header starts
   with ``agent_adapter``).
4. If the first line holds ``"record_type": "header"`` or
   ``"schema": "agentguard.execution-trace"``, it is an AgentGuard trace (JSON Lines, header
   first). A header whose identity was tampered with still sniffs as AgentGuard, so verify can
   say precisely what is wrong.
5. If ``"messages"``, ``"tool_calls"`` or ``"events"`` appears as a key anywhere in the prefix,
   it is a harness trace (a harness object whose first key is something else).
6. Otherwise the bytes are inconclusive: a name ending in ``.jsonl`` selects AgentGuard, so an
   empty or garbled AgentGuard file gets verify's exact finding; anything else is unknown
   (``audit.unknown_format``, exit 2).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from tracekit.audit.model import Format

SNIFF_BYTES = 64 * 1024
"""How much of a file sniffing looks at."""

Basis = Literal["first_key", "header_line", "harness_keys", "file_name", "none"]

_BOM = b"\xef\xbb\xbf"
_WHITESPACE = b" \t\r\n"
_FIRST_KEY = re.compile(rb'\{\s*"(messages|tool_calls|events)"\s*:')
_HEADER = re.compile(rb'"record_type"\s*:\s*"header"|"schema"\s*:\s*"agentguard\.execution-trace"')
_HARNESS_KEY = re.compile(rb'"(?:messages|tool_calls|events)"\s*:\s*\[')


@dataclass(frozen=True, slots=True)
class Sniffed:
    """The format and what decided it."""

    format: Format
    basis: Basis


def sniff(prefix: bytes, name: str = "") -> Sniffed:
    """The format of a file whose first bytes are ``prefix``; ``name`` breaks ties (rule 6)."""
    data = prefix[:SNIFF_BYTES]
    data = data.removeprefix(_BOM).lstrip(_WHITESPACE)
    if data.startswith(b"{"):
        if _FIRST_KEY.match(data):
            return Sniffed("harness", "first_key")
        first_line = data.split(b"\n", 1)[0]
        if _HEADER.search(first_line):
            return Sniffed("agentguard", "header_line")
        if _HARNESS_KEY.search(data):
            return Sniffed("harness", "harness_keys")
    if name.lower().endswith(".jsonl"):
        return Sniffed("agentguard", "file_name")
    return Sniffed("unknown", "none")
