"""The exact bytes of the two most frequent record frames, as regular expressions
(docs/bundle-format.md section 4; docs/performance.md, "Sealing and `bundle verify` at the frame
limit").

A ``message`` or ``turn`` record that is canonical (RFC 8785) and valid against its schema has
one spelling: its keys in sorted order, no space, its literals from their closed sets, its
digests 64 lowercase hex characters, its integers in their shortest form, ``finding`` present
only with a value (a default is never spelled out). :data:`TEMPLATES` matches exactly those
spellings (integers only up to 15 digits, which every count passes; a longer one is not matched
and takes the general path, which checks it), so a match proves what a strict decode and a
canonical re-encode would, and yields the fields as text in one ``findall`` over a block of
frames joined by newlines (a canonical frame holds no newline).
"""

from __future__ import annotations

import re

_INT = "(0|[1-9][0-9]{0,14})"
_POSITIVE = "[1-9][0-9]{0,14}"
_NAT = "(?:0|[1-9][0-9]{0,14})"
_FINDING = f'(?:"finding":{_INT},)?'


def _ref(key: str) -> str:
    """``"key":`` a blob reference or null: two groups, digest and length (empty for null)."""
    return f'"{key}":(?:null|\\{{"digest":"([0-9a-f]{{64}})","length":{_INT}\\}})'


_MESSAGE = (
    '\\{"capture":"(captured|not_captured|not_carried)",'
    f'"episode":{_INT},{_FINDING}"index":{_INT},'
    '"role":"(?:system|user|assistant|tool|developer|other)",'
    f'"seq":{_INT},{_ref("text")},"type":"message"\\}}'
)
"""Groups: capture, episode, finding, index, seq, text digest, text length."""

_TURN = (
    f'\\{{"episode":{_INT},"error":(true|false),{_FINDING}{_ref("finish_reason")},'
    f'"index":{_INT},"input":(null|\\[(?:\\[{_NAT},{_POSITIVE}\\](?:,\\[{_NAT},{_POSITIVE}\\])*)?\\]),'
    f'{_ref("model")},"seq":{_INT},"type":"turn"\\}}'
)
"""Groups: episode, error, finding, finish_reason digest and length, index, input, model digest
and length, seq."""

TEMPLATES = re.compile(f"^(?:{_MESSAGE}|{_TURN}|.*)$".encode(), re.MULTILINE)
"""One row per line: a message's 7 groups, a turn's 10, all empty for any other line."""
RUN = re.compile(f"\\[({_NAT}),({_POSITIVE})\\]".encode())
"""A turn input's runs, ``[start, count]``, in a matched input."""
MESSAGE_GROUPS = 7
"""A row's message groups come first (the capture's is never empty in a match), then the
turn's (the error's likewise)."""
MAX_RUNS = 1_000_000
"""A turn's input holds at most this many runs (the schema's bound, records.TurnRecord)."""
