"""Structural sniffing helpers: the top-level keys of the first JSON object in a prefix
(docs/formats.md, "Detection", step 2).

Pure and bounded: one left-to-right pass over at most :data:`~tracekit.formats.base.SNIFF_BYTES`
bytes with anchored regular expressions; nested values are skipped, never decoded. A prefix cut
in the middle of the object yields the keys seen before the cut.
"""

from __future__ import annotations

import re

_BOM = b"\xef\xbb\xbf"
_WHITESPACE = b" \t\r\n"
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_COLON = re.compile(rb"[ \t\r\n]*:[ \t\r\n]*")
_SEPARATOR = re.compile(rb"[ \t\r\n]*([,}])[ \t\r\n]*")
_STRUCTURE = re.compile(rb'["\[\]{}]')
_SCALAR_END = re.compile(rb"[,}\] \t\r\n]")


def body(prefix: bytes) -> bytes:
    """``prefix`` without a UTF-8 byte order mark and leading whitespace."""
    return prefix.removeprefix(_BOM).lstrip(_WHITESPACE)


def _skip_container(data: bytes, pos: int) -> int | None:
    depth = 0
    while True:
        found = _STRUCTURE.search(data, pos)
        if found is None:
            return None
        char = found.group()
        if char == b'"':
            string = _STRING.match(data, found.start())
            if string is None:
                return None
            pos = string.end()
            continue
        pos = found.end()
        depth += 1 if char in (b"[", b"{") else -1
        if depth == 0:
            return pos


def _skip_value(data: bytes, pos: int) -> int | None:
    if pos >= len(data):
        return None
    first = data[pos : pos + 1]
    if first == b'"':
        string = _STRING.match(data, pos)
        return string.end() if string else None
    if first in (b"{", b"["):
        return _skip_container(data, pos)
    end = _SCALAR_END.search(data, pos)
    return end.start() if end else None


def top_level(prefix: bytes) -> dict[bytes, bytes] | None:
    """The top-level keys of the JSON object ``prefix`` starts with, each mapped to the first
    bytes of its value (up to 64: enough to tell a list from an object or read a short string);
    None when ``prefix`` does not start with ``{``. Keys are the raw bytes between the quotes
    (an escaped key never equals one of our plain ASCII names). The first occurrence of a key
    wins."""
    data = body(prefix)
    if not data.startswith(b"{"):
        return None
    keys: dict[bytes, bytes] = {}
    pos = 1 + (len(data[1:]) - len(data[1:].lstrip(_WHITESPACE)))
    while pos < len(data):
        key = _STRING.match(data, pos)
        if key is None:
            break
        colon = _COLON.match(data, key.end())
        if colon is None:
            break
        start = colon.end()
        keys.setdefault(key.group()[1:-1], data[start : start + 64])
        end = _skip_value(data, start)
        if end is None:
            break
        separator = _SEPARATOR.match(data, end)
        if separator is None or separator.group(1) == b"}":
            break
        pos = separator.end()
    return keys


def first_key(keys: dict[bytes, bytes]) -> bytes | None:
    """The first key of an envelope, or None for an empty object."""
    return next(iter(keys), None)


def is_list(value: bytes) -> bool:
    return value.startswith(b"[")


def is_object(value: bytes) -> bool:
    return value.startswith(b"{")


def string_equals(value: bytes, expected: bytes) -> bool:
    """True when ``value`` starts with exactly the JSON string ``expected`` (no escapes)."""
    return value.startswith(b'"' + expected + b'"')
