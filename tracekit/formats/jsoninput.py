"""Bounded JSON input for the JSON-based importers (OTel, AgentDojo, garak): one document or
JSON lines from a :class:`~tracekit.formats.base.Source`, every bound checked before decoding
(docs/formats.md, "Bounds").

Each importer names its own codes in a :class:`Codes`, so a broken file is reported with the
format's code and never another's. Messages carry limits and our field names only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import Any, NoReturn

import msgspec

from tracekit.formats.base import FormatError, FormatLimits, Source
from tracekit.kernel.errors import Code, finding
from tracekit.kernel.jsonscan import depth_exceeds

_READ = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Codes:
    """One format's codes for the failures every JSON importer shares."""

    format: str
    too_large: Code
    document_too_large: Code
    invalid_json: Code
    too_deep: Code
    schema: Code
    too_many_episodes: Code
    too_many_items: Code
    empty: Code
    duplicate_key: Code

    @classmethod
    def of(cls, fmt: str) -> Codes:
        """The shared codes of format ``fmt``: ``<fmt>.too_large``, ``<fmt>.schema``, ... (every
        JSON importer names them alike; a missing one is a ValueError at import, not at run time)."""
        names = [f.name for f in fields(cls) if f.name != "format"]
        return cls(fmt, *(Code(f"{fmt}.{name}") for name in names))


def fail(code: Code, line: int | None = None, **params: int | str) -> NoReturn:
    """Raise the format error for ``code`` (params: counts and our names only)."""
    raise FormatError(finding(code, line, **params))


def schema_error(codes: Codes, field: str, line: int | None = None) -> NoReturn:
    """The envelope matched but ``field`` (our schema's name for it) has the wrong type."""
    fail(codes.schema, line, format=codes.format, field=field)


def check_size(source: Source, limits: FormatLimits, codes: Codes) -> None:
    """Refuse a file over the total bound before reading any of it."""
    if source.size > limits.total_bytes:
        fail(codes.too_large, limit=limits.total_bytes)


def decode(raw: bytes, limits: FormatLimits, codes: Codes, line: int | None = None) -> Any:
    """One JSON value: size and depth checked on the bytes, then strict UTF-8 and msgspec; then
    no object may repeat a key (a second, stdlib pass: its recursion is bounded by the depth
    pre-check)."""
    if len(raw) > limits.member_bytes:
        fail(codes.document_too_large, line, limit=limits.member_bytes)
    if depth_exceeds(raw, limits.depth):
        fail(codes.too_deep, line, limit=limits.depth)
    try:
        text = raw.decode("utf-8")
        value = msgspec.json.decode(text)
    except (UnicodeDecodeError, msgspec.DecodeError):
        fail(codes.invalid_json, line)
    if _may_repeat_keys(raw):
        try:
            json.loads(text, object_pairs_hook=_unique)
        except _Repeated:
            fail(codes.duplicate_key, line)
    return value


class _Repeated(Exception):
    """A JSON object repeats a key (msgspec keeps the last value, other readers the first)."""


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _Repeated
    return out


def _may_repeat_keys(raw: bytes) -> bool:
    """False when no object holds two members (no comma): nothing to check."""
    return b"," in raw and b"{" in raw


def read_document(source: Source, limits: FormatLimits, codes: Codes) -> Any:
    """The whole file as one JSON document (at most ``member_bytes``)."""
    check_size(source, limits, codes)
    source.handle.seek(0)
    raw = source.handle.read(limits.member_bytes + 1)
    if not raw.strip():
        fail(codes.empty)
    return decode(raw, limits, codes)


def iter_lines(source: Source, limits: FormatLimits, codes: Codes) -> Iterator[tuple[int, Any]]:
    """Decoded JSON lines with their 1-based numbers; blank lines are skipped. A line longer
    than ``member_bytes`` is refused before it is held whole."""
    check_size(source, limits, codes)
    handle = source.handle
    handle.seek(0)
    number = 0
    seen = 0
    while True:
        raw = handle.readline(limits.member_bytes + 1)
        if not raw:
            break
        number += 1
        if len(raw) > limits.member_bytes and not raw.endswith(b"\n"):
            fail(codes.document_too_large, number, limit=limits.member_bytes)
        if not raw.strip():
            continue
        seen += 1
        yield number, decode(raw, limits, codes, number)
    if not seen:
        fail(codes.empty)


def first_line(prefix: bytes) -> Any:
    """The first non-blank line of a sniff prefix, decoded, or None when it is not a complete
    JSON object within the prefix (sniffing never raises)."""
    for raw in prefix.split(b"\n"):
        if not raw.strip():
            continue
        if depth_exceeds(raw, 64):
            return None
        try:
            value = msgspec.json.decode(raw)
        except msgspec.DecodeError:
            return None
        return value if isinstance(value, dict) else None
    return None


class Budget:
    """Counts items of one episode (and episodes of one file) against the limits."""

    def __init__(self, limits: FormatLimits, codes: Codes) -> None:
        self._limits = limits
        self._codes = codes
        self.items = 0

    def take(self, count: int = 1) -> None:
        """Account for ``count`` more items; raise when the episode's bound is passed."""
        self.items += count
        if self.items > self._limits.items_per_episode:
            fail(self._codes.too_many_items, limit=self._limits.items_per_episode)

    def episodes(self, count: int) -> None:
        """Raise when a file holds more episodes than allowed."""
        if count > self._limits.episodes:
            fail(self._codes.too_many_episodes, limit=self._limits.episodes)


def as_str(value: Any) -> str | None:
    """``value`` when it is a string, else None."""
    return value if isinstance(value, str) else None


def as_list(value: Any, codes: Codes, field: str, line: int | None = None) -> list[Any]:
    """``value`` as a list (absent or null: empty); anything else is a schema error."""
    if value is None:
        return []
    if not isinstance(value, list):
        schema_error(codes, field, line)
    return value


def as_dict(value: Any, codes: Codes, field: str, line: int | None = None) -> dict[str, Any]:
    """``value`` as an object (absent or null: empty); anything else is a schema error."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        schema_error(codes, field, line)
    return value


def opt_str(value: Any, codes: Codes, field: str, line: int | None = None) -> str | None:
    """A string or null; anything else is a schema error."""
    if value is None or isinstance(value, str):
        return value
    schema_error(codes, field, line)


def opt_bool(value: Any, codes: Codes, field: str, line: int | None = None) -> bool | None:
    """A boolean or null; anything else is a schema error."""
    if value is None or isinstance(value, bool):
        return value
    schema_error(codes, field, line)
