"""The canonical-form check's fast path agrees with RFC 8785 (the ``rfc8785`` implementation)
on every JSON value, canonical or not."""

from __future__ import annotations

import json

import pytest
import rfc8785
from hypothesis import given
from hypothesis import strategies as st

from tracekit.bundle import jcs
from tracekit.bundle.container import BundleError

SCALARS = st.none() | st.booleans() | st.integers(-(2**60), 2**60) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=20)


def _accepts(raw: bytes) -> bool:
    try:
        jcs.loads_canonical(raw, 0, 32)
    except BundleError:
        return False
    return True


def _reference(raw: bytes) -> bool:
    try:
        value = json.loads(raw)
        return rfc8785.dumps(value) == raw
    except (ValueError, rfc8785.CanonicalizationError):
        return False


@given(VALUES)
def test_canonical_bytes_are_judged_as_rfc8785_judges_them(value: object) -> None:
    try:
        raw = rfc8785.dumps(value)
    except rfc8785.CanonicalizationError:
        return
    # accepted unless the parse is outside RFC 8785's domain (a float like 1e16 parses back as
    # an integer beyond 2**53)
    assert _accepts(raw) == _reference(raw)


@given(st.recursive(st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(max_size=12),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
                    max_leaves=20))
def test_records_shaped_values_are_accepted(value: object) -> None:
    assert _accepts(rfc8785.dumps(value))


@given(VALUES, st.sampled_from(["spaced", "unsorted", "python"]))
def test_other_encodings_are_judged_as_rfc8785_judges_them(value: object, style: str) -> None:
    if style == "spaced":
        raw = json.dumps(value, sort_keys=True).encode()
    elif style == "unsorted":
        raw = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    else:
        raw = json.dumps(value, separators=(",", ":"), sort_keys=True).encode()
    assert _accepts(raw) == _reference(raw)


@pytest.mark.parametrize(
    "raw",
    [b'{"a":1.0}', b'{"a":1e3}', b'{"a":-0}', b'{"a":12345678901234567890}', b'{"b":1,"a":2}', b'{"a":"\\u0041"}'],
)
def test_near_misses_are_refused(raw: bytes) -> None:
    assert not _accepts(raw)


@given(VALUES)
def test_dumps_is_rfc8785(value: object) -> None:
    try:
        expected = rfc8785.dumps(value)
    except rfc8785.CanonicalizationError:
        with pytest.raises(rfc8785.CanonicalizationError):
            jcs.dumps(value)
        return
    assert jcs.dumps(value) == expected
