"""Trace loading (upstream's shape rules, tracekit's bounds) and tool-name extraction."""

from __future__ import annotations

import json

import pytest

from tracekit.formats.harness.trace import all_names, observed_names, split_mcp_name, tool_name
from tracekit.judging.harness import parse_trace
from tracekit.kernel.errors import Code, TracekitError
from tracekit.kernel.limits import Limits


def _code(data: bytes, limits: Limits | None = None) -> Code:
    with pytest.raises(TracekitError) as caught:
        parse_trace(data) if limits is None else parse_trace(data, limits)
    return caught.value.finding.code


def test_missing_lists_default_and_other_keys_are_dropped() -> None:
    trace = parse_trace(b'{"events": [{"type": "goal", "id": "g"}], "extra": 1}')
    assert trace.as_dict() == {"messages": [], "tool_calls": [], "events": [{"type": "goal", "id": "g"}]}
    assert trace.dumped == '{"messages": [], "tool_calls": [], "events": [{"type": "goal", "id": "g"}]}'


@pytest.mark.parametrize(
    ("data", "rule"),
    [
        (b"[]", "trace must be a JSON object"),
        (b'{"messages": {}}', "messages must be a list"),
        (b'{"tool_calls": "x"}', "tool_calls must be a list"),
        (b'{"events": null}', "events must be a list"),
        (b'{"events": [{}, 3]}', "events[1] must be an object"),
    ],
)
def test_shape_rules(data: bytes, rule: str) -> None:
    with pytest.raises(TracekitError) as caught:
        parse_trace(data)
    assert caught.value.finding.code is Code.HARNESS_TRACE_INVALID
    assert rule in caught.value.finding.message


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b'{"a": 1, "a": 2}', Code.JSON_DUPLICATE_KEY),
        (b'{"a": NaN}', Code.JSON_NON_FINITE_NUMBER),
        (b'{"a": 1e999}', Code.JSON_NON_FINITE_NUMBER),
        (b'{"a": "\\ud800"}', Code.JSON_LONE_SURROGATE),
        (b"\xef\xbb\xbf{}", Code.JSON_INVALID),
        (b'{"a": ' + b"9" * 5000 + b"}", Code.JSON_INVALID),
        (b"{", Code.JSON_INVALID),
        (b'{"a": "\xff"}', Code.HARNESS_TRACE_NOT_UTF8),
        (b"[" * 70 + b"]" * 70, Code.JSON_TOO_DEEP),
    ],
)
def test_strict_json(data: bytes, code: Code) -> None:
    assert _code(data) is code


def test_bounds() -> None:
    small = Limits(total_bytes=64, depth=4, values=6, string_chars=4, list_items=3, key_chars=3)
    assert _code(b'{"events": []}' + b" " * 64, small) is Code.HARNESS_TRACE_TOO_LARGE
    assert _code(b'{"a": "abcde"}', small) is Code.JSON_STRING_TOO_LONG
    assert _code(b'{"a": [1, 2, 3, 4]}', small) is Code.JSON_LIST_TOO_LONG
    assert _code(b'{"abcd": 1}', small) is Code.JSON_KEY_TOO_LONG
    assert _code(b'{"a": [{}, {}, {}], "b": {}, "c": 1}', small) is Code.JSON_TOO_MANY_VALUES


def test_long_strings_are_allowed_by_default() -> None:
    text = "x" * 100_000
    trace = parse_trace(json.dumps({"messages": [{"role": "tool", "content": text}]}).encode())
    assert trace.messages[0]["content"] == text


def test_tool_name_order_and_stripping() -> None:
    assert tool_name({"name": " a ", "tool": "b", "tool_name": "c"}) == "a"
    assert tool_name({"name": "", "tool": "b", "tool_name": "c"}) == "b"
    assert tool_name({"name": 3, "tool": "  ", "tool_name": "c"}) == "c"
    assert tool_name({"function": "x"}) is None
    trace = parse_trace(b'{"tool_calls": [{"name": "a"}, {"x": 1}, {"tool": "b"}]}')
    assert observed_names(trace) == ["a", "b"]


def test_mcp_names() -> None:
    assert split_mcp_name("mcp/server/tool") == ("server", "tool")
    for bad in ("mcp/server", "mcp//tool", "mcp/server/", "mcp/a/b/c", "tool"):
        assert split_mcp_name(bad) is None
    call = {"name": "read", "tool_name": "send", "mcp_server_id": "s", "mcp_tool_name": "delete"}
    assert all_names(call) == ["read", "send", "mcp/s/delete"]
