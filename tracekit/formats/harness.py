"""OWASP harness traces as a trace format (docs/formats.md, "OWASP harness").

Detection looks at the harness's own envelope, never at a ``messages`` key alone: the top-level
object's first key is ``messages``, ``tool_calls`` or ``events`` (upstream's ``Trace.to_dict``
order), or it holds a top-level ``tool_calls`` or ``events`` key; and it holds none of the keys
that mark another supported format's envelope (an Inspect log's ``eval``, an AgentDojo run's
``suite_name``, an OTLP request's ``resourceSpans``, a garak entry's ``entry_type``).

Loading is upstream's shape rules with tracekit's strict JSON bounds (tracekit/harness/trace.py).
The format fixes only the three lists and a call's name and arguments; every other field is read
from the keys tracekit's audit vocabulary recognises (tracekit/audit/harness_view.py).
"""

from __future__ import annotations

import json
from typing import Any

from tracekit.errors import Code, finding
from tracekit.evidence import (
    Arguments,
    Episode,
    EvidenceFile,
    Message,
    Provenance,
    Role,
    RunFacts,
    ToolCall,
    ToolResult,
)
from tracekit.formats import envelope
from tracekit.formats.base import FormatError, FormatLimits, Source

NAME = "harness"
_LISTS = (b"messages", b"tool_calls", b"events")
_OTHER_ENVELOPES = (b"eval", b"samples", b"suite_name", b"resourceSpans", b"entry_type")
_ROLES: dict[str, Role] = {
    "system": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
    "developer": "developer",
}
_ARGUMENT_KEYS = ("arguments", "args", "input", "parameters")
_ID_KEYS = ("id", "call_id", "tool_call_id")
_RESULT_KEYS = ("result", "output")


class HarnessFormat:
    """OWASP harness ``{messages, tool_calls, events}`` JSON documents."""

    name = NAME

    def sniff(self, prefix: bytes, suffix: str) -> bool:
        keys = envelope.top_level(prefix)
        if not keys or any(key in keys for key in _OTHER_ENVELOPES):
            return False
        return envelope.first_key(keys) in _LISTS or b"tool_calls" in keys or b"events" in keys

    def load(self, source: Source, limits: FormatLimits) -> EvidenceFile:
        from tracekit.errors import TracekitError
        from tracekit.harness.trace import parse_trace_document
        from tracekit.limits import HARNESS_LIMITS

        if source.size > HARNESS_LIMITS.total_bytes:
            raise FormatError(
                finding(Code.HARNESS_TRACE_TOO_LARGE, limit=HARNESS_LIMITS.total_bytes)
            )
        source.handle.seek(0)
        data = source.handle.read(HARNESS_LIMITS.total_bytes + 1)
        try:
            document, trace = parse_trace_document(data, HARNESS_LIMITS)
        except TracekitError as error:
            raise FormatError(error.finding) from None
        items = len(trace.messages) + len(trace.tool_calls) + len(trace.events)
        if items > limits.items_per_episode:
            raise FormatError(
                finding(Code.HARNESS_FORMAT_TOO_MANY_ITEMS, limit=limits.items_per_episode)
            )
        return EvidenceFile(NAME, None, (_episode(document, trace),))


def _text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [b.get("text") for b in content if isinstance(b, dict)]
        texts = [p for p in parts if isinstance(p, str)]
        return "\n".join(texts) if texts else None
    return None


def _arguments(call: dict[str, Any]) -> tuple[Arguments, str | None]:
    for key in _ARGUMENT_KEYS:
        if key in call:
            value = call[key]
            if isinstance(value, str):
                try:
                    parsed = json.loads(value)
                except ValueError:
                    return Arguments("string", text=value, parse_error=True), key
                return Arguments(
                    "string", text=value, value=parsed if isinstance(parsed, dict) else None
                ), key
            return Arguments("object", value=value), key
    return Arguments("absent"), None


def _result(call: dict[str, Any]) -> ToolResult | None:
    for key in _RESULT_KEYS:
        if key in call:
            value = call[key]
            error = call.get("error")
            return ToolResult(
                text=value if isinstance(value, str) else None,
                value=None if isinstance(value, str) else value,
                is_error=error is not None and error is not False,
                stringified=False,
            )
    return None


def _episode(document: dict[str, Any], trace: Any) -> Episode:
    from tracekit.harness.trace import tool_name

    messages = tuple(
        Message(
            index=i,
            role=_ROLES.get(m.get("role") if isinstance(m.get("role"), str) else "", "other"),
            text=_text(m.get("content")),
            tool_call_id=m["tool_call_id"] if isinstance(m.get("tool_call_id"), str) else None,
        )
        for i, m in enumerate(trace.messages)
    )
    provenance = [Provenance("messages", "harness:messages")] if messages else []
    calls = []
    for i, call in enumerate(trace.tool_calls):
        arguments, key = _arguments(call)
        call_id = next((call[k] for k in _ID_KEYS if isinstance(call.get(k), str)), None)
        # turn -1: the harness format records no model turns (docs/formats.md, "OWASP harness").
        calls.append(ToolCall(i, -1, tool_name(call) or "", call_id, arguments, _result(call)))
        if key is not None:
            provenance.append(Provenance(f"calls[{i}].arguments", f"harness:tool_calls[].{key}"))
    if calls:
        provenance.append(Provenance("calls", "harness:tool_calls"))
    model = document.get("model")
    facts = RunFacts(tool=NAME, model=model if isinstance(model, str) else None)
    if facts.model is not None:
        provenance.append(Provenance("facts.model", "harness:model"))
    return Episode(
        id="trace",
        facts=facts,
        messages=messages,
        calls=tuple(calls),
        provenance=tuple(provenance),
        losses=("no_model_turns",),
    )


FORMAT = HarnessFormat()
