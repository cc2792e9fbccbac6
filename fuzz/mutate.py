"""Hypothesis strategies that mutate real inputs: bytes, lines and parsed JSON values."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from fuzz.targets import CANARY

JSON_LEAVES = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False), st.text(max_size=20), st.just(CANARY), st.just("../" + CANARY),
    st.just("C:/" + CANARY), st.just("//" + CANARY + "/s"), st.just(CANARY * 400),
)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8) | st.just(CANARY), c, max_size=4),
    max_leaves=12,
)
NASTY = [b"NaN", b"Infinity", b"1e999", b'"\\ud800"', b"\xff", b"\xef\xbb\xbf", b"\x00", b"\r",
         b"[" * 200, b"{" * 70, b'"a":1,"a":2', b"-0.0", b"1" * 400, b"\\u0000", b"*&alias", b"&a [*a,*a]"]


def _mutate_json(value: Any, path: list[int], new: Any, mode: int) -> Any:
    if not path:
        return new
    if isinstance(value, dict) and value:
        keys = sorted(value)
        key = keys[path[0] % len(keys)]
        if mode == 1 and len(path) == 1:
            value = dict(value)
            value.pop(key)
            return value
        if mode == 2 and len(path) == 1:
            value = dict(value)
            value[CANARY] = new
            return value
        value = dict(value)
        value[key] = _mutate_json(value[key], path[1:], new, mode)
        return value
    if isinstance(value, list) and value:
        value = list(value)
        index = path[0] % len(value)
        value[index] = _mutate_json(value[index], path[1:], new, mode)
        return value
    return new


@st.composite
def mutated(draw: st.DrawFn, seeds: list[bytes]) -> bytes:
    """A seed with a few byte-, line- or value-level mutations."""
    data = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        kind = draw(st.integers(min_value=0, max_value=5))
        if kind == 0 and data:  # flip a byte
            i = draw(st.integers(min_value=0, max_value=len(data) - 1))
            data = data[:i] + bytes([draw(st.integers(0, 255))]) + data[i + 1 :]
        elif kind == 1:  # splice a nasty token
            i = draw(st.integers(min_value=0, max_value=len(data)))
            data = data[:i] + draw(st.sampled_from(NASTY)) + data[i:]
        elif kind == 2 and data:  # truncate
            data = data[: draw(st.integers(min_value=0, max_value=len(data)))]
        elif kind == 3:  # duplicate, drop or swap lines
            lines = data.split(b"\n")
            i = draw(st.integers(min_value=0, max_value=len(lines) - 1))
            j = draw(st.integers(min_value=0, max_value=len(lines) - 1))
            op = draw(st.integers(0, 2))
            if op == 0:
                lines.insert(i, lines[j])
            elif op == 1 and len(lines) > 1:
                lines.pop(i)
            else:
                lines[i], lines[j] = lines[j], lines[i]
            data = b"\n".join(lines)
        else:  # structure-aware: edit a parsed JSON line or document
            lines = data.split(b"\n")
            i = draw(st.integers(min_value=0, max_value=max(0, len(lines) - 1)))
            try:
                value = json.loads(lines[i])
            except (ValueError, UnicodeDecodeError, RecursionError):  # a binary bundle holds any bytes
                continue
            path = draw(st.lists(st.integers(min_value=0, max_value=50), min_size=1, max_size=5))
            new = draw(JSON_VALUES)
            mode = draw(st.integers(0, 2))
            encoded = json.dumps(_mutate_json(value, path, new, mode), sort_keys=kind == 4,
                                 separators=(",", ":"), ensure_ascii=kind == 4)
            lines[i] = encoded.encode("utf-8", "surrogatepass")
            data = b"\n".join(lines)
    return data
