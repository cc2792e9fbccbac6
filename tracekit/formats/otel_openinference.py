"""OpenInference spans (Arize Phoenix and the instrumentations that follow it) read as GenAI
spans (docs/formats.md, "OpenTelemetry GenAI", "OpenInference").

OpenInference flattens messages into indexed attributes (``llm.input_messages.0.message.role``,
``...message.tool_calls.1.tool_call.function.arguments``) and names the span's kind in
``openinference.span.kind``. A span that has a kind and no ``gen_ai.operation.name`` gets the
GenAI attributes the rest of the importer reads, built from its own: ``LLM`` → ``chat`` with
``gen_ai.input.messages`` / ``gen_ai.output.messages`` as parts; ``TOOL`` → ``execute_tool``;
``AGENT`` → ``invoke_agent``. ``tool.parameters`` is the tool's parameter schema, not a call's
arguments: it is not read as arguments (``input.value`` is). Indices at or above ``items_per_episode`` are not read; the
attributes were already bounded when the span was decoded.
"""

from __future__ import annotations

from typing import Any

from tracekit.formats.otel_spans import Span

KIND = "openinference.span.kind"
_OPERATION = {"LLM": "chat", "TOOL": "execute_tool", "AGENT": "invoke_agent"}


def _indexed(attrs: dict[str, Any], prefix: str, limit: int) -> dict[int, dict[str, Any]]:
    """``prefix.N.rest`` attributes grouped by ``N`` (below ``limit``), keyed by ``rest``."""
    groups: dict[int, dict[str, Any]] = {}
    for key, value in attrs.items():
        if not key.startswith(prefix):
            continue
        number, _, rest = key[len(prefix) :].partition(".")
        if number.isascii() and number.isdigit() and len(number) < 7 and int(number) < limit and rest:
            groups.setdefault(int(number), {})[rest] = value
    return groups


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _message(fields: dict[str, Any], limit: int) -> dict[str, Any]:
    """One flattened ``message.*`` group as a GenAI message with parts."""
    role = _text(fields.get("message.role")) or "other"
    parts: list[dict[str, Any]] = []
    content = _text(fields.get("message.content"))
    texts = [content] if content is not None else []
    for _, item in sorted(_indexed(fields, "message.contents.", limit).items()):
        if item.get("message_content.type") == "text" and isinstance(item.get("message_content.text"), str):
            texts.append(item["message_content.text"])
    if role == "tool":
        parts.append({"type": "tool_call_response", "id": _text(fields.get("message.tool_call_id")), "response": "\n".join(texts) if texts else None})
    else:
        parts += [{"type": "text", "content": text} for text in texts]
    for _, call in sorted(_indexed(fields, "message.tool_calls.", limit).items()):
        name = call.get("tool_call.function.name")
        if isinstance(name, str):
            parts.append({"type": "tool_call", "id": _text(call.get("tool_call.id")), "name": name, "arguments": call.get("tool_call.function.arguments")})
    return {"role": role, "parts": parts}


def _messages(attrs: dict[str, Any], prefix: str, limit: int) -> list[dict[str, Any]] | None:
    groups = _indexed(attrs, prefix, limit)
    return [_message(fields, limit) for _, fields in sorted(groups.items())] if groups else None


def normalise(span: Span, limit: int) -> None:
    """Give an OpenInference span the GenAI attributes it implies (module docstring)."""
    attrs = span.attributes
    kind = attrs.get(KIND)
    if not isinstance(kind, str) or "gen_ai.operation.name" in attrs or kind.upper() not in _OPERATION:
        return
    kind = kind.upper()
    extra: dict[str, Any] = {"gen_ai.operation.name": _OPERATION[kind]}
    if kind == "LLM":
        for ours, theirs in (
            ("gen_ai.request.model", "llm.model_name"),
            ("gen_ai.response.model", "llm.response.model_name"),
            ("gen_ai.provider.name", "llm.provider"),
        ):
            if isinstance(attrs.get(theirs), str):
                extra[ours] = attrs[theirs]
        for ours, prefix in (("gen_ai.input.messages", "llm.input_messages."), ("gen_ai.output.messages", "llm.output_messages.")):
            messages = _messages(attrs, prefix, limit)
            if messages is not None:
                extra[ours] = messages
    elif kind == "TOOL":
        for ours, keys in (
            ("gen_ai.tool.name", ("tool.name",)),
            ("gen_ai.tool.call.id", ("tool_call.id", "tool.id")),
            ("gen_ai.tool.call.arguments", ("input.value",)),
            ("gen_ai.tool.call.result", ("output.value",)),
        ):
            value = next((attrs[k] for k in keys if attrs.get(k) is not None), None)
            if value is not None:
                extra[ours] = value
        extra.setdefault("gen_ai.tool.name", span.name)
    else:
        extra["gen_ai.agent.name"] = _text(attrs.get("agent.name")) or span.name
    attrs.update(extra)
