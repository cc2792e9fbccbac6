"""Canonical JSON for bundle frames: RFC 8785 out, and in, a strict parse that must re-encode to
the exact bytes read (docs/bundle-format.md verification step 3)."""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec
import rfc8785

from tracekit.bundle.container import bad
from tracekit.kernel.errors import Code
from tracekit.kernel.jsonscan import depth_exceeds


class _Duplicate(ValueError):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _Duplicate
    return obj


def _no_constant(_name: str) -> Any:
    raise ValueError("non-finite number")


_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicates, parse_constant=_no_constant)


_CONTROL = re.compile(rb"[\x00-\x1f\x7f]")
_NUMBER_RISK = re.compile(rb"[.eE+]|[0-9]{16}")
_ENCODER = msgspec.json.Encoder(order="sorted")
ENCODER = _ENCODER
"""The compact, key-sorted encoder :func:`dumps_record` starts from."""


def _plain(raw: bytes) -> bool:
    """True for JSON text on which RFC 8785 and a compact, key-sorted encoding provably agree:
    printable ASCII without a backslash (every string is written as-is by both, and keys sort
    the same: ASCII's UTF-16 order is its byte order), and no number but a small integer (no
    float formatting or integer-domain rule applies). The frames tracekit writes are all so."""
    if not raw.isascii() or b"\\" in raw or _CONTROL.search(raw):
        return False
    structure = b"".join(raw.split(b'"')[0::2]).replace(b"true", b"").replace(b"false", b"")
    return not _NUMBER_RISK.search(structure)


def dumps(value: Any) -> bytes:
    """RFC 8785 canonical JSON bytes (the compact key-sorted encoding where it is provably the
    same, see :func:`_plain`; the RFC 8785 implementation otherwise)."""
    try:
        fast = _ENCODER.encode(value)
    except (TypeError, ValueError, OverflowError):
        return rfc8785.dumps(value)
    if _plain(fast):
        return fast
    return rfc8785.dumps(value)


def dumps_record(value: Any) -> bytes:
    """As :func:`dumps`, for a bundle record (a ``msgspec`` Struct, encoded as is): its only
    numbers are integers that count or index what the sealer holds in memory, far below the
    16 digits :func:`_plain` guards against, and it holds no float; the encoder escapes every
    control character. So printable ASCII without a backslash is all :func:`_plain` would
    prove, and is checked without scanning the structure."""
    fast = _ENCODER.encode(value)
    if fast.isascii() and b"\\" not in fast:
        return fast
    return rfc8785.dumps(msgspec.to_builtins(value))


def loads_canonical(raw: bytes, frame: int, depth: int) -> Any:
    """Parse one JSON frame payload; it must be canonical (step 3)."""
    if depth_exceeds(raw, depth):
        raise bad(Code.BUNDLE_TOO_DEEP, frame=frame, limit=depth)
    try:
        value = _DECODER.decode(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        raise bad(Code.BUNDLE_JSON_INVALID, frame=frame) from None
    if _plain(raw) and _ENCODER.encode(value) == raw:
        return value
    try:
        again = rfc8785.dumps(value)
    except (rfc8785.CanonicalizationError, ValueError, TypeError):
        raise bad(Code.BUNDLE_NOT_CANONICAL, frame=frame) from None
    if again != raw:
        raise bad(Code.BUNDLE_NOT_CANONICAL, frame=frame)
    return value
