"""The byte-level depth pre-scan agrees with a real walk; the strict parse refuses what it must."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tracekit.kernel.errors import Code
from tracekit.kernel.jsonscan import (
    JsonProblem,
    check_bounds,
    depth_exceeds,
    strict_loads,
    values_may_exceed,
)
from tracekit.kernel.limits import DEFAULT_LIMITS, Limits


def _container_depth(value: object, depth: int = 0) -> int:
    if isinstance(value, list):
        return max([_container_depth(v, depth + 1) for v in value], default=depth)
    if isinstance(value, dict):
        return max([_container_depth(v, depth + 1) for v in value.values()], default=depth)
    return depth - 1


@pytest.mark.parametrize("levels", [1, 2, 63, 64, 65, 66, 67, 100, 100_000])
def test_depth_boundary(levels: int) -> None:
    raw = b"[" * levels + b"]" * levels
    assert depth_exceeds(raw, 64) == (levels - 1 > 64)


def test_brackets_inside_strings_do_not_count() -> None:
    text = json.dumps({"a": "[[[[" * 100 + "\\\"]]" * 3, "b": [[["\\"]]]})
    assert depth_exceeds(text.encode(), 64) is False


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet="[]{}\"\\ab,:"),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(alphabet="[]{}\"\\ab"), children, max_size=3),
    max_leaves=40,
)


@given(json_values, st.integers(min_value=0, max_value=8))
def test_depth_prescan_matches_a_walk(value: object, limit: int) -> None:
    raw = json.dumps(value).encode()
    containers = _container_depth(value)
    assert depth_exceeds(raw, limit) == (containers > limit)


def test_value_bound_is_an_upper_bound() -> None:
    raw = json.dumps([0] * 99_999).encode()
    assert values_may_exceed(raw, 100_000) is False or len(raw) >= 199_999


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ('{"a":1,"a":2}', Code.JSON_DUPLICATE_KEY),
        ('{"a":NaN}', Code.JSON_NON_FINITE_NUMBER),
        ('{"a":-Infinity}', Code.JSON_NON_FINITE_NUMBER),
        ('{"a":1e400}', Code.JSON_NON_FINITE_NUMBER),
        ('{"a":"\\udc00"}', Code.JSON_LONE_SURROGATE),
        ('{"\\ud800":1}', Code.JSON_LONE_SURROGATE),
        ('{"a":[}', Code.JSON_INVALID),
        ("[" * 70 + "]" * 70, Code.JSON_TOO_DEEP),
    ],
)
def test_strict_loads_refuses(text: str, code: Code) -> None:
    with pytest.raises(JsonProblem) as caught:
        strict_loads(text, DEFAULT_LIMITS)
    assert caught.value.code is code


def test_bounds_walk_counts_every_value_and_scalar_depth() -> None:
    with pytest.raises(JsonProblem) as caught:
        check_bounds([[1, 2], 3], Limits(values=4))
    assert caught.value.code is Code.JSON_TOO_MANY_VALUES
    check_bounds([[1, 2], 3], Limits(values=5))
    with pytest.raises(JsonProblem):
        check_bounds([[1]], Limits(depth=1))
    check_bounds([[]], Limits(depth=1))


def test_unified_diff_gets_the_wider_string_bound() -> None:
    check_bounds({"unified_diff": "x" * 32768}, DEFAULT_LIMITS)
    with pytest.raises(JsonProblem):
        check_bounds({"other": "x" * 4097}, DEFAULT_LIMITS)
    with pytest.raises(JsonProblem):
        check_bounds({"unified_diff": "x" * 32769}, DEFAULT_LIMITS)
