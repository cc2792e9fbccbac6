"""``canonical_reencoding`` (preserving, tracekit): the same trace, spelled differently.

Upstream hashes parsed values, so whitespace, key order and escape spelling are malleable
without changing any hash (docs/trace-format.md step 3). This transform writes the canonical trace, parses
each line back and re-encodes the *parsed values* in one of three valid but non-canonical
styles, chosen by (trial + seed) mod 3:

0. spaces after ``,`` and ``:``, keys in reverse order, ASCII escapes;
1. compact, keys in reverse order, raw UTF-8 instead of ``\\u`` escapes;
2. spaces after ``,`` and ``:``, sorted keys, raw UTF-8.

Expected: verify exits 0 with a ``canonical.non_canonical_line`` notice, the trace id is
unchanged, and the outcome is the same.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import Any

from tracekit.formats.agentguard.writer import DraftTrace, write_trace
from tracekit.judging.metamorphic.base import Klass, Relation, RelationKind
from tracekit.kernel.errors import Code

STYLES: tuple[tuple[tuple[str, str], bool, bool], ...] = (
    ((", ", ": "), True, True),
    ((",", ":"), True, False),
    ((", ", ": "), False, False),
)
"""(separators, reverse key order, ASCII escapes) per style."""


def _reversed_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _reversed_keys(value[key]) for key in sorted(value, reverse=True)}
    if isinstance(value, list):
        return [_reversed_keys(item) for item in value]
    return value


def reencode(canonical: bytes, style: int) -> bytes:
    """Re-encode canonical JSONL ``canonical`` in non-canonical ``style`` (0, 1 or 2).

    Lines are split on ``\n`` only (a record may hold a raw U+2028 inside a string) and streamed
    one at a time into the output, so only the input and the output are held.
    """
    separators, reverse, ascii_only = STYLES[style]
    out = io.BytesIO()
    for raw in io.BytesIO(canonical):
        line = raw.rstrip(b"\n")
        if not line:
            continue
        value = json.loads(line)
        value = _reversed_keys(value) if reverse else value
        text = json.dumps(
            value, separators=separators, sort_keys=not reverse, ensure_ascii=ascii_only,
            allow_nan=False,
        )
        out.write(text.encode("utf-8"))
        out.write(b"\n")
    return out.getvalue()


RELATION = Relation(
        RelationKind.SAME_OUTCOME, notice=Code.CANONICAL_NON_CANONICAL_LINE, same_trace_id=True
    )


@dataclass(frozen=True, slots=True)
class CanonicalReencoding:
    name: str = "canonical_reencoding"
    klass: Klass = Klass.PRESERVING
    relation: Relation = RELATION
    summary: str = "Re-encodes the parsed records with other spacing, key order or escapes."
    upstream: bool = False

    def apply(self, draft: DraftTrace, trial: int, seed: int) -> bytes:
        return reencode(write_trace(draft), (trial + seed) % len(STYLES))


TRANSFORM = CanonicalReencoding()
