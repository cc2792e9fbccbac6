"""Vercel AI SDK spans (``ai.*`` attributes) read as GenAI spans (docs/formats.md,
"OpenTelemetry GenAI", "Vercel AI SDK").

The AI SDK names each span's operation in ``ai.operationId``. A model call
(``ai.generateText.doGenerate``, ``ai.streamText.doStream`` and the object variants) carries the
prompt as ``ai.prompt.messages`` (a JSON string of ``{role, content}`` messages whose content is
text or parts: ``text``, ``tool-call``, ``tool-result``) and the answer as ``ai.response.text``
and ``ai.response.toolCalls``; a tool execution (``ai.toolCall``) carries ``ai.toolCall.name``,
``.id``, ``.args`` (``.input`` in later versions) and ``.result`` (``.output``). A span that has
such an operation and no ``gen_ai.operation.name`` gets the GenAI attributes they imply.
"""

from __future__ import annotations

from typing import Any

from tracekit.formats.base import FormatLimits
from tracekit.formats.otel_content import json_value
from tracekit.formats.otel_spans import Span

_MODEL_CALLS = frozenset(
    {"ai.generateText.doGenerate", "ai.streamText.doStream", "ai.generateObject.doGenerate", "ai.streamObject.doStream"}
)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _first(attrs: dict[str, Any], *keys: str) -> Any:
    return next((attrs[k] for k in keys if attrs.get(k) is not None), None)


def _parts(content: Any) -> list[dict[str, Any]]:
    """One AI SDK message's content as GenAI parts."""
    if isinstance(content, str):
        return [{"type": "text", "content": content}]
    parts: list[dict[str, Any]] = []
    for part in content if isinstance(content, list) else []:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str):
            parts.append({"type": "text", "content": part["text"]})
        elif kind == "tool-call" and isinstance(part.get("toolName"), str):
            arguments = part.get("args", part.get("input"))
            parts.append({"type": "tool_call", "id": _str(part.get("toolCallId")), "name": part["toolName"], "arguments": arguments})
        elif kind == "tool-result":
            response = part.get("result", part.get("output"))
            parts.append({"type": "tool_call_response", "id": _str(part.get("toolCallId")), "response": response})
    return parts


def _messages(raw: Any, limits: FormatLimits) -> list[dict[str, Any]] | None:
    """``ai.prompt.messages`` as GenAI messages; each tool result its own ``tool`` message."""
    decoded, cut = json_value(raw, limits)
    if cut or not isinstance(decoded, list):
        return None
    out: list[dict[str, Any]] = []
    for item in decoded[: limits.items_per_episode]:
        if not isinstance(item, dict):
            continue
        role = _str(item.get("role")) or "other"
        parts = _parts(item.get("content"))
        results = [p for p in parts if p["type"] == "tool_call_response"]
        if role == "tool" and results:
            out += [{"role": "tool", "parts": [p]} for p in results]
        else:
            out.append({"role": role, "parts": parts})
    return out


def _answer(attrs: dict[str, Any], limits: FormatLimits) -> list[dict[str, Any]] | None:
    """``ai.response.text`` and ``ai.response.toolCalls`` as one assistant message."""
    parts: list[dict[str, Any]] = []
    text = _str(attrs.get("ai.response.text"))
    if text is not None:
        parts.append({"type": "text", "content": text})
    calls, _ = json_value(attrs.get("ai.response.toolCalls"), limits)
    for call in calls[: limits.items_per_episode] if isinstance(calls, list) else []:
        if isinstance(call, dict) and isinstance(call.get("toolName"), str):
            arguments = call.get("args", call.get("input"))
            parts.append({"type": "tool_call", "id": _str(call.get("toolCallId")), "name": call["toolName"], "arguments": arguments})
    if not parts:
        return None
    reason = _str(attrs.get("ai.response.finishReason"))
    return [{"role": "assistant", "parts": parts, **({"finish_reason": reason} if reason else {})}]


def normalise(span: Span, limits: FormatLimits) -> None:
    """Give an AI SDK span the GenAI attributes it implies (module docstring)."""
    attrs = span.attributes
    operation = attrs.get("ai.operationId")
    if not isinstance(operation, str) or "gen_ai.operation.name" in attrs:
        return
    extra: dict[str, Any] = {}
    if operation in _MODEL_CALLS:
        extra["gen_ai.operation.name"] = "chat"
        for ours, theirs in (("gen_ai.request.model", "ai.model.id"), ("gen_ai.provider.name", "ai.model.provider")):
            if isinstance(attrs.get(theirs), str):
                extra[ours] = attrs[theirs]
        prompt = attrs.get("ai.prompt.messages")
        inputs: Any = _messages(prompt, limits) if prompt is not None else None
        if isinstance(prompt, str) and json_value(prompt, limits)[1]:
            inputs = prompt  # cut by a length limit: left as text, reported as cut (step 6)
        outputs = _answer(attrs, limits)
        if inputs is not None:
            extra["gen_ai.input.messages"] = inputs
        if outputs is not None:
            extra["gen_ai.output.messages"] = outputs
    elif operation == "ai.toolCall":
        extra["gen_ai.operation.name"] = "execute_tool"
        for ours, keys in (
            ("gen_ai.tool.name", ("ai.toolCall.name",)),
            ("gen_ai.tool.call.id", ("ai.toolCall.id",)),
            ("gen_ai.tool.call.arguments", ("ai.toolCall.args", "ai.toolCall.input")),
            ("gen_ai.tool.call.result", ("ai.toolCall.result", "ai.toolCall.output")),
        ):
            value = _first(attrs, *keys)
            if value is not None:
                extra[ours] = value
    attrs.update(extra)
