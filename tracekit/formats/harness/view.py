"""Where the evidence of an OWASP harness trace lives, in tracekit's vocabulary (docs/audit.md).

The harness format fixes only ``{messages, tool_calls, events}`` and a tool call's name and
``arguments``; everything else a reviewer needs (call ids, results, timing, the request as sent,
run-level revisions) has no fixed key upstream. This module names the keys tracekit recognises for
each piece of evidence: a fixed vocabulary, so a location such as ``tool_calls[2].result`` or
``events[0].seed`` is always in our terms and never a key or value copied from the trace.

Run-level fields are looked for in events (any type; ``{"type": "run", ...}`` is the recommended
place), in their ``data`` object, and at the top level of the file. Upstream's loader drops
top-level keys other than the three lists, so a field found only there is reported as ``partial``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tracekit.kernel.evidence import Status

if TYPE_CHECKING:  # the harness package (and its YAML loader) loads only for harness traces
    from tracekit.formats.harness.trace import Trace

Obj = Mapping[str, Any]

REQUEST_TYPES = frozenset({"prompt", "model_request", "llm_request", "request"})
RESPONSE_TYPES = frozenset({"response", "model_response", "llm_response", "completion"})
OUTCOME_TYPES = frozenset({"outcome", "verdict", "score", "result"})
FINDING_TYPES = frozenset({"finding", "detection", "hit", "alert"})

ID_KEYS = ("id", "call_id", "tool_call_id")
ARGUMENT_KEYS = ("arguments", "args", "input", "parameters")
RESULT_KEYS = ("result", "output", "response", "content", "return_value", "structured_content")
ORDER_KEYS = ("sequence", "index", "order", "step")
START_KEYS = ("started_at", "start_time", "timestamp", "ts")
LATENCY_KEYS = ("latency_ms", "latency", "duration_ms", "duration_seconds", "ended_at")
ERROR_KEYS = ("error", "is_error", "status")
RETRY_KEYS = ("attempt", "retry", "retries", "retry_count")
FINISH_KEYS = ("finish_reason", "stop_reason")
RAW_RESPONSE_KEYS = ("raw", "raw_response", "choices", "messages", "content", "output")
OUTCOME_KEYS = ("outcome", "verdict", "result")
SCORER_KEYS = ("scorer", "detector", "scorer_name", "judge")
TRUNCATION_FLAGS = ("truncated", "content_truncated", "result_truncated", "output_truncated")

KNOWN_OUTCOMES = frozenset(
    {"pass", "fail", "error", "not_run", "PASS", "FAIL", "success", "failure", "hit", "miss"}
)
"""Recorded outcomes reported by value; anything else is reported as ``other``."""


def meaningful(value: Any) -> bool:
    """Not null, not an empty or blank string, not an empty container."""
    if value is None:
        return False
    if isinstance(value, str):
        return value.strip() != ""
    if isinstance(value, (list, dict)):
        return len(value) > 0
    return True


def first_key(obj: Obj, keys: Sequence[str], allow_null: bool = False) -> str | None:
    """The first of ``keys`` (our vocabulary) that ``obj`` carries with a meaningful value;
    with ``allow_null``, a present key counts even when its value is null (``error: null``)."""
    for key in keys:
        if key in obj and (allow_null or meaningful(obj[key])):
            return key
    return None


def event_type(event: Obj) -> str | None:
    kind = event.get("type")
    return kind if isinstance(kind, str) else None


def scopes(event: Obj) -> list[Obj]:
    """An event and its ``data`` object, where upstream's fixtures nest fields."""
    data = event.get("data")
    return [event, data] if isinstance(data, dict) else [event]


@dataclass(frozen=True)
class HarnessView:
    """A harness trace: the whole top-level object (as read) and upstream's three lists."""

    top: Obj
    trace: Trace

    @property
    def calls(self) -> list[Obj]:
        return self.trace.tool_calls

    def events_of(self, kinds: frozenset[str]) -> list[tuple[int, Obj]]:
        return [(i, e) for i, e in enumerate(self.trace.events) if event_type(e) in kinds]

    def run_field(self, keys: Sequence[str]) -> tuple[Status, str] | None:
        """``(status, where)`` for a run-level field: ``present`` in an event, ``partial`` when
        only the top level carries it (upstream's loader drops it); None when absent."""
        for index, event in enumerate(self.trace.events):
            for scope, prefix in zip(scopes(event), ("", "data."), strict=False):
                key = first_key(scope, keys)
                if key is not None:
                    return "present", f"events[{index}].{prefix}{key}"
        for name in ("run", "metadata"):
            nested = self.top.get(name)
            if isinstance(nested, dict) and (key := first_key(nested, keys)) is not None:
                return "partial", f"top_level.{name}.{key} (dropped by the harness loader)"
        key = first_key(self.top, keys)
        if key is not None:
            return "partial", f"top_level.{key} (dropped by the harness loader)"
        return None

    def call_id(self, call: Obj) -> str | None:
        for key in ID_KEYS:
            value = call.get(key)
            if isinstance(value, (str, int)) and not isinstance(value, bool) and meaningful(value):
                return str(value)
        return None

    def results(self) -> list[tuple[str, Any] | None]:
        """Per tool call, ``(where, payload)`` of the result handed back to the agent, or None.

        Looked for on the call itself, then in a ``tool`` message with the call's id, then in
        the ``mcp_tool_result`` event for the call's name (in order of occurrence)."""
        tool_messages = {
            str(m.get("tool_call_id")): (j, m)
            for j, m in enumerate(self.trace.messages)
            if m.get("role") == "tool" and m.get("tool_call_id") is not None
        }
        mcp_results: dict[str, list[tuple[int, Obj]]] = {}
        for index, event in self.events_of(frozenset({"mcp_tool_result"})):
            name = event.get("name")
            if isinstance(name, str):
                mcp_results.setdefault(name, []).append((index, event))
        from tracekit.formats.harness.trace import tool_name

        out: list[tuple[str, Any] | None] = []
        for index, call in enumerate(self.calls):
            key = first_key(call, RESULT_KEYS, allow_null=False)
            cid = self.call_id(call)
            name = tool_name(call)
            if key is not None:
                out.append((f"tool_calls[{index}].{key}", call[key]))
            elif cid is not None and cid in tool_messages:
                j, message = tool_messages[cid]
                out.append((f"messages[{j}].content", message.get("content")))
            elif name is not None and mcp_results.get(name):
                j, event = mcp_results[name].pop(0)
                found = first_key(event, RESULT_KEYS) or "content"
                out.append((f"events[{j}].{found}", event.get(found)))
            else:
                out.append(None)
        return out

    def recorded_outcome(self) -> tuple[str, str] | None:
        """``(value, where)`` of the recorded outcome; the value from a fixed vocabulary."""
        for index, event in self.events_of(OUTCOME_TYPES):
            for scope in scopes(event):
                key = first_key(scope, OUTCOME_KEYS)
                if key is not None:
                    value = scope[key]
                    shown = value if isinstance(value, str) and value in KNOWN_OUTCOMES else "other"
                    return shown, f"events[{index}].{key}"
        return None


RUN_KEYS: dict[str, tuple[str, ...]] = {
    "endpoint": ("endpoint", "endpoint_id", "target_url"),
    "model_version": ("model_version", "model", "model_id"),
    "sampling": ("sampling", "temperature", "top_p", "sampling_settings"),
    "seed": ("seed",),
    "harness_revision": ("harness_revision", "harness_version", "harness_commit"),
    "tool_server_revision": (
        "tool_server_revision",
        "environment_revision",
        "tool_server_version",
        "env_revision",
    ),
    "injection_point": ("injection_point", "injection_channel"),
    "scorer": SCORER_KEYS,
}
TOOL_LIST_KEYS = ("tools", "tool_schemas", "functions")
