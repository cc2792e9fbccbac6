"""Canonical JSON for bundle frames: RFC 8785 out, and in, a strict parse that must re-encode to
the exact bytes read (docs/bundle-format.md verification step 3)."""

from __future__ import annotations

import json
from typing import Any

import rfc8785

from tracekit.bundle.container import bad
from tracekit.errors import Code
from tracekit.jsonscan import depth_exceeds


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


def dumps(value: Any) -> bytes:
    """RFC 8785 canonical JSON bytes."""
    return rfc8785.dumps(value)


def loads_canonical(raw: bytes, frame: int, depth: int) -> Any:
    """Parse one JSON frame payload; it must be canonical (step 3)."""
    if depth_exceeds(raw, depth):
        raise bad(Code.BUNDLE_TOO_DEEP, frame=frame, limit=depth)
    try:
        value = _DECODER.decode(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        raise bad(Code.BUNDLE_JSON_INVALID, frame=frame) from None
    try:
        again = rfc8785.dumps(value)
    except (rfc8785.CanonicalizationError, ValueError, TypeError):
        raise bad(Code.BUNDLE_NOT_CANONICAL, frame=frame) from None
    if again != raw:
        raise bad(Code.BUNDLE_NOT_CANONICAL, frame=frame)
    return value
