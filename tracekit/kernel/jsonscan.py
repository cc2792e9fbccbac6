"""Strict JSON: byte-level pre-scans and the exact, slow parse with every bound checked.

Everything here is pure: bytes or values in, a value or a :class:`JsonProblem` out. The CLI and
the loaders use it for AgentGuard lines (docs/trace-format.md step 2) and for whole JSON
documents such as OWASP harness traces.
"""

from __future__ import annotations

import json
import math
from typing import Any

from tracekit.kernel.errors import Code
from tracekit.kernel.limits import Limits

_KEEP_STRUCTURE = bytes(sorted(set(range(256)) - set(b'[]{}"\\')))
_SQUARE = bytes.maketrans(b"{}", b"[]")


class JsonProblem(Exception):
    """A JSON document breaks a rule; ``code`` says which, ``params`` hold counts only."""

    def __init__(self, code: Code, **params: int) -> None:
        super().__init__(code.value)
        self.code = code
        self.params = params


def _structure_only(raw: bytes) -> bytes:
    """Brackets of ``raw`` outside strings, ``{}`` folded to ``[]``.

    Escaped backslashes go first, then escaped quotes, so every quote left delimits a string; the
    odd pieces between quotes are string contents and are dropped. Exact for valid JSON; on
    invalid JSON the parser rejects the line afterwards anyway.
    """
    if b"\\" in raw:
        raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    kept = raw.translate(None, _KEEP_STRUCTURE)
    return b"".join(kept.split(b'"')[0::2]).translate(_SQUARE)


def depth_exceeds(raw: bytes, limit: int) -> bool:
    """True when a JSON text nests containers deeper than ``limit`` (the top value is depth 0).

    Costs one ``count`` for any line with at most ``limit`` opening brackets, which is every
    ordinary record; otherwise removes one innermost level per pass, at most ``limit + 1`` passes.
    """
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False
    return nesting_exceeds(_structure_only(raw), limit)


def nesting_exceeds(brackets: bytes, limit: int) -> bool:
    """:func:`depth_exceeds` on a text's brackets outside strings, ``{}`` folded to ``[]``:
    one innermost level removed per pass, at most ``limit + 1`` passes.

    Brackets that never close (a truncated or hostile text such as a thousand ``[``) count too:
    when no pair is left to remove, what remains is closers then openers, and a decoder would
    descend through every opener left plus the levels already removed before failing."""
    for removed in range(limit + 1):
        shorter = brackets.replace(b"[]", b"")
        if not shorter:
            return False
        if len(shorter) == len(brackets):
            return removed + shorter.count(b"[") - 1 > limit
        brackets = shorter
    return True


def values_may_exceed(raw: bytes, limit: int) -> bool:
    """Cheap upper bound: False proves ``raw`` holds at most ``limit`` JSON values."""
    if len(raw) < 2 * limit - 1:
        return False
    return 1 + raw.count(b",") + raw.count(b"[") + raw.count(b"{") > limit


def check_prescan(raw: bytes, limits: Limits) -> None:
    """Reject nesting beyond the depth limit before any decoder sees the bytes."""
    if depth_exceeds(raw, limits.depth):
        raise JsonProblem(Code.JSON_TOO_DEEP, limit=limits.depth)


def _reject_constant(_name: str) -> float:
    raise JsonProblem(Code.JSON_NON_FINITE_NUMBER)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise JsonProblem(Code.JSON_NON_FINITE_NUMBER)
    return value


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise JsonProblem(Code.JSON_DUPLICATE_KEY)
    return obj


_DECODER = json.JSONDecoder(
    object_pairs_hook=_no_duplicates, parse_constant=_reject_constant, parse_float=_finite_float
)


def strict_loads(text: str, limits: Limits) -> Any:
    """Parse one JSON text exactly as Python's ``json`` does, but refuse what upstream lets by.

    Duplicate keys, NaN/Infinity, numbers that overflow to infinity, lone surrogates and every
    generic bound in ``limits`` raise :class:`JsonProblem`. The caller has already run
    :func:`check_prescan`, so the decoder never recurses past the depth limit.
    """
    check_prescan(text.encode("utf-8", "surrogatepass"), limits)
    try:
        value = _DECODER.decode(text)
    except JsonProblem:
        raise
    except (ValueError, RecursionError):
        raise JsonProblem(Code.JSON_INVALID) from None
    check_bounds(value, limits)
    return value


def check_bounds(value: Any, limits: Limits) -> None:
    """Walk a parsed value iteratively and enforce the generic bounds of docs step 2.

    Every value counts as one node; the top value is depth 0; a string may hold
    ``limits.diff_chars`` characters when its nearest key is ``unified_diff``.
    """
    nodes = 0
    stack: list[tuple[Any, int, bool]] = [(value, 0, False)]
    while stack:
        item, depth, is_diff = stack.pop()
        nodes += 1
        if nodes > limits.values:
            raise JsonProblem(Code.JSON_TOO_MANY_VALUES, limit=limits.values)
        if depth > limits.depth:
            raise JsonProblem(Code.JSON_TOO_DEEP, limit=limits.depth)
        kind = type(item)
        if kind is str:
            _check_string(item, depth, limits.diff_chars if is_diff else limits.string_chars)
        elif kind is list:
            if len(item) > limits.list_items:
                raise JsonProblem(Code.JSON_LIST_TOO_LONG, depth=depth, limit=limits.list_items)
            stack.extend((child, depth + 1, is_diff) for child in item)
        elif kind is dict:
            for key, child in item.items():
                if len(key) > limits.key_chars:
                    raise JsonProblem(Code.JSON_KEY_TOO_LONG, depth=depth, limit=limits.key_chars)
                _check_surrogates(key)
                stack.append((child, depth + 1, key == "unified_diff"))


def _check_string(text: str, depth: int, limit: int) -> None:
    if len(text) > limit:
        raise JsonProblem(Code.JSON_STRING_TOO_LONG, depth=depth, limit=limit)
    _check_surrogates(text)


def _check_surrogates(text: str) -> None:
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise JsonProblem(Code.JSON_LONE_SURROGATE) from None
