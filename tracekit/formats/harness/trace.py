"""Harness traces: bounded strict JSON in, a :class:`Trace` of three lists of objects out.

Upstream's loader (``Trace.from_dict``): the top level is a JSON object; ``messages``,
``tool_calls`` and ``events``, each *if present*, must be a list of objects; a missing key is
``[]``; any other top-level key is dropped. tracekit parses the same documents, but the bytes are
capped before parsing, nesting is pre-scanned, and duplicate keys, NaN/Infinity, lone surrogates
and oversized values are refused (docs/harness.md, "Loading a trace").

Tool names (shared by every assertion): the first non-empty string among ``name``, ``tool``,
``tool_name``, whitespace-stripped. MCP tools use the canonical name ``mcp/<server>/<tool>``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from tracekit.kernel.errors import Code, TracekitError, finding
from tracekit.kernel.jsonscan import JsonProblem, check_prescan, strict_loads
from tracekit.kernel.limits import HARNESS_LIMITS, Limits

NAME_FIELDS = ("name", "tool", "tool_name")
LISTS = ("messages", "tool_calls", "events")
MCP_PREFIX = "mcp/"

#: MCP lifecycle events normalised by upstream's MCP adapter (docs/harness.md section 2).
#: Server-scoped ones carry ``server_id`` and, when the workflow registry has it, a ``trust`` label.
MCP_EVENTS = frozenset(
    {
        "mcp_connection_initialized",
        "mcp_capabilities_negotiated",
        "mcp_tools_discovered",
        "mcp_resource_read",
        "mcp_prompt_get",
        "mcp_tool_result",
        "mcp_client_request",
        "mcp_policy_decision",
        "mcp_connection_closed",
    }
)

Obj = Mapping[str, Any]


@dataclass(frozen=True)
class Trace:
    """The three lists upstream keeps; everything else at the top level was dropped."""

    messages: list[Obj] = field(default_factory=list)
    tool_calls: list[Obj] = field(default_factory=list)
    events: list[Obj] = field(default_factory=list)

    def as_dict(self) -> dict[str, list[Obj]]:
        """Upstream's ``Trace.to_dict``: the three lists, in this key order."""
        return {"messages": self.messages, "tool_calls": self.tool_calls, "events": self.events}

    @cached_property
    def dumped(self) -> str:
        """``json.dumps(trace, ensure_ascii=False)`` with default separators, as upstream's
        memory_isolation scans it."""
        return json.dumps(self.as_dict(), ensure_ascii=False)


def tool_name(call: Obj) -> str | None:
    """Upstream's rule: the first non-empty string among name, tool, tool_name, stripped."""
    for key in NAME_FIELDS:
        value = call.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def observed_names(trace: Trace) -> list[str]:
    """The recognised name of every tool call that has one, in trace order."""
    return [name for call in trace.tool_calls if (name := tool_name(call)) is not None]


def split_mcp_name(name: str) -> tuple[str, str] | None:
    """``(server_id, tool)`` for a well-formed canonical ``mcp/<server>/<tool>``, else None.

    Neither part may be empty or contain ``/`` (upstream's adapter rejects both)."""
    if not name.startswith(MCP_PREFIX):
        return None
    parts = name[len(MCP_PREFIX) :].split("/")
    if len(parts) != 2 or not all(parts):
        return None
    return parts[0], parts[1]


def all_names(call: Obj) -> list[str]:
    """Strict mode: every name a call could be dispatched under, not just the first field.

    Each non-empty name field counts, plus ``mcp/<mcp_server_id>/<mcp_tool_name>`` when both
    MCP fields are present, so a call cannot hide a denied identity behind a benign ``name``.
    """
    names: list[str] = []
    for key in NAME_FIELDS:
        value = call.get(key)
        if isinstance(value, str) and value.strip() and value.strip() not in names:
            names.append(value.strip())
    server, tool = call.get("mcp_server_id"), call.get("mcp_tool_name")
    if isinstance(server, str) and isinstance(tool, str) and server.strip() and tool.strip():
        derived = f"{MCP_PREFIX}{server.strip()}/{tool.strip()}"
        if derived not in names:
            names.append(derived)
    return names


def _invalid(rule: str) -> TracekitError:
    return TracekitError(finding(Code.HARNESS_TRACE_INVALID, rule=rule))


def trace_from_value(value: object) -> Trace:
    """Apply upstream's shape rules to a parsed JSON value; raise :class:`TracekitError`."""
    if not isinstance(value, dict):
        raise _invalid("trace must be a JSON object")
    lists: dict[str, list[Obj]] = {}
    for key in LISTS:
        items = value.get(key, [])
        if not isinstance(items, list):
            raise _invalid(f"{key} must be a list")
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                raise _invalid(f"{key}[{index}] must be an object")
        lists[key] = items
    return Trace(lists["messages"], lists["tool_calls"], lists["events"])


def parse_trace(data: bytes, limits: Limits = HARNESS_LIMITS) -> Trace:
    """Load one harness trace from its bytes; raise :class:`TracekitError` (harness.trace_*,
    json.*). The size cap is checked first, then UTF-8, then depth, then the strict parse."""
    return parse_trace_document(data, limits)[1]


def parse_trace_document(data: bytes, limits: Limits = HARNESS_LIMITS) -> tuple[dict[str, Any], Trace]:
    """Like :func:`parse_trace`, but also return the whole top-level object (run-level fields
    that upstream's loader drops; audit reads them)."""
    if len(data) > limits.total_bytes:
        raise TracekitError(finding(Code.HARNESS_TRACE_TOO_LARGE, limit=limits.total_bytes))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise TracekitError(finding(Code.HARNESS_TRACE_NOT_UTF8)) from None
    try:
        check_prescan(data, limits)
        value = strict_loads(text, limits)
    except JsonProblem as problem:
        params: dict[str, Any] = dict(problem.params)
        raise TracekitError(finding(problem.code, **params)) from None
    trace = trace_from_value(value)
    assert isinstance(value, dict)
    return value, trace
