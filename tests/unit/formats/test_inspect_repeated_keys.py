"""The repeated-key check of step D2 (tracekit/formats/inspect.py, ``decode``): the count of the
encoding's colons that stands in for its scan on a text without backslashes gives the scan's
answer, and both find exactly the texts that repeat a key in some object."""

from __future__ import annotations

import json
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from tracekit.formats.base import DEFAULT_FORMAT_LIMITS, FormatError
from tracekit.formats.inspect import _repeats_a_key, decode, outside_strings
from tracekit.kernel.errors import Code

_TEXT = st.text(alphabet=["a", "b", ":", " ", "{", "]", "\u00e9", '"', "\\", "\n"], max_size=4)
_KEY = st.sampled_from(["a", "b", "a:b", ":", "\u00e9"])
_ESCAPED = st.sampled_from(['"\\u0061"', '"\\u003a"', '"\\u003a:"'])
"""Escapes that spell a key the text also spells plainly, or a colon the text does not show."""


def _json(value: Any) -> st.SearchStrategy[str]:
    return st.just(json.dumps(value, ensure_ascii=False))


_KEY_TEXT = st.one_of(_KEY.map(lambda key: json.dumps(key, ensure_ascii=False)), _ESCAPED)


def _object(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A JSON object whose keys may repeat (the strategy writes the text itself)."""
    pair = st.tuples(_KEY_TEXT, children).map(lambda kv: f"{kv[0]}: {kv[1]}")
    return st.lists(pair, max_size=4).map(lambda pairs: "{" + ", ".join(pairs) + "}")


_LEAF = st.one_of(_TEXT.flatmap(_json), _ESCAPED, st.integers(-5, 5).flatmap(_json), st.just("null"), st.just("1.5e3"))
_VALUE = st.recursive(
    _LEAF,
    lambda children: st.one_of(
        _object(children), st.lists(children, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]")
    ),
    max_leaves=12,
)


def _repeats(text: str) -> bool:
    found = False

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal found
        keys = [key for key, _ in items]
        found = found or len(set(keys)) != len(keys)
        return dict(items)

    json.loads(text, object_pairs_hook=pairs)
    return found


@settings(max_examples=500, deadline=None)
@given(_VALUE)
def test_the_colon_count_answers_as_the_scan_does(text: str) -> None:
    """The scan (the text's keys against the encoding's, both counted outside strings, when the
    text has two keys at least) is what ``decode`` did for every text before; the colon count
    stands in for it on texts without a backslash."""
    data = text.encode()
    outside = outside_strings(data)
    value = msgspec.json.decode(data)
    keys = outside.count(b":")
    scan = keys > 1 and keys != outside_strings(msgspec.json.encode(value)).count(b":")
    assert _repeats_a_key(data, outside, value) is scan
    assert _repeats_a_key(data, None, value) is scan
    assert scan is _repeats(text)
    if scan:
        try:
            decode(data, DEFAULT_FORMAT_LIMITS, "sample")
            raise AssertionError("a repeated key was accepted")
        except FormatError as error:
            assert error.finding.code is Code.INSPECT_DUPLICATE_KEY
    else:
        assert decode(data, DEFAULT_FORMAT_LIMITS, "sample") == value


def test_texts_with_and_without_backslashes_are_both_met() -> None:
    """The strategy reaches both branches, with and without a repeated key."""
    plain, escaped = '{"a": ":", "a": 1}', '{"a": "\\"", "a": 1}'
    assert _repeats_a_key(plain.encode(), None, json.loads(plain))
    assert _repeats_a_key(escaped.encode(), None, json.loads(escaped))
    assert not _repeats_a_key(b'{"a": ":", "b": 1}', None, {"a": ":", "b": 1})
