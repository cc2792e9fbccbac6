"""The three generations of GenAI content on a span, read into one shape (docs/formats.md,
"OpenTelemetry GenAI", step 4): current ``gen_ai.input.messages`` / ``gen_ai.output.messages``
(JSON-valued attributes, parts), the <= 1.36 span events (``gen_ai.user.message``,
``gen_ai.choice``, ...) and the legacy ``gen_ai.prompt`` / ``gen_ai.completion`` attributes
(a JSON blob or flattened ``gen_ai.prompt.N.*``).

A JSON-valued attribute that no longer parses was cut (``OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT``):
it is reported in :attr:`Content.cut`, never guessed at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import msgspec

from tracekit.formats.base import FormatLimits
from tracekit.kernel.jsonscan import depth_exceeds

INPUT = "gen_ai.input.messages"
OUTPUT = "gen_ai.output.messages"
SYSTEM = "gen_ai.system_instructions"
_ROLE_EVENTS = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
_FLAT = re.compile(r"gen_ai\.(prompt|completion)\.(\d{1,6})\.(role|content|tool_call_id|finish_reason)")
_FLAT_CALL = re.compile(r"gen_ai\.completion\.(\d{1,6})\.tool_calls\.(\d{1,6})\.(id|name|arguments)")


@dataclass(slots=True)
class Call:
    """A tool call as a message holds it: arguments as found (string or object)."""

    call_id: str | None
    name: str
    arguments: Any


@dataclass(slots=True)
class Msg:
    """One message in any generation's shape."""

    role: str
    text: str | None
    calls: list[Call] = field(default_factory=list)
    tool_call_id: str | None = None
    response: Any = None
    finish_reason: str | None = None


@dataclass(slots=True)
class Content:
    """What one span holds: input and output messages (None when not recorded), which
    attributes were cut, and the schema paths read."""

    inputs: list[Msg] | None = None
    outputs: list[Msg] | None = None
    system: list[Msg] | None = None
    cut: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)


def json_value(value: Any, limits: FormatLimits) -> tuple[Any, bool]:
    """A JSON-valued attribute: (decoded value, cut). A string is parsed; a structured value
    (``arrayValue`` / ``kvlistValue``) is taken as is."""
    if not isinstance(value, str):
        return value, False
    raw = value.encode("utf-8", "surrogatepass")
    if depth_exceeds(raw, limits.depth):
        return None, True
    try:
        return msgspec.json.decode(raw), False
    except msgspec.DecodeError:
        return None, True


def _text_of(parts: list[Any]) -> str | None:
    texts = [p["content"] for p in parts if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("content"), str)]
    return "\n".join(texts) if texts else None


def _parts_message(item: Any, role: str | None = None) -> Msg | None:
    """A current-convention message ``{role, parts: [...], finish_reason?}``."""
    if not isinstance(item, dict):
        return None
    parts = item.get("parts")
    parts = parts if isinstance(parts, list) else []
    msg = Msg(role if role is not None else str(item.get("role", "other")), _text_of(parts))
    for part in parts:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "tool_call" and isinstance(part.get("name"), str):
            call_id = part.get("id")
            msg.calls.append(Call(call_id if isinstance(call_id, str) else None, part["name"], part.get("arguments")))
        elif kind == "tool_call_response":
            call_id = part.get("id")
            msg.tool_call_id = call_id if isinstance(call_id, str) else None
            msg.response = part.get("response")
    reason = item.get("finish_reason")
    msg.finish_reason = reason if isinstance(reason, str) else None
    return msg


def _messages(value: Any, limits: FormatLimits, key: str, content: Content) -> list[Msg] | None:
    decoded, cut = json_value(value, limits)
    if cut:
        content.cut.append(key)
        return None
    if not isinstance(decoded, list):
        return None
    content.sources.append(key)
    return [m for m in (_parts_message(item) for item in decoded[: limits.items_per_episode]) if m is not None]


def _legacy_message(item: Any) -> Msg | None:
    """``{role, content, tool_calls[{id, function{name, arguments}}], tool_call_id}``: the
    shape of <= 1.36 events and of legacy ``gen_ai.prompt`` blobs."""
    if not isinstance(item, dict):
        return None
    content = item.get("content")
    msg = Msg(str(item.get("role", "other")), content if isinstance(content, str) else None)
    calls = item.get("tool_calls")
    for call in calls if isinstance(calls, list) else []:
        if not isinstance(call, dict):
            continue
        function = call.get("function")
        function = function if isinstance(function, dict) else call
        name, call_id = function.get("name"), call.get("id")
        if isinstance(name, str):
            msg.calls.append(Call(call_id if isinstance(call_id, str) else None, name, function.get("arguments")))
    call_id = item.get("tool_call_id", item.get("id"))
    if msg.role == "tool" and isinstance(call_id, str):
        msg.tool_call_id = call_id
    return msg


def _events(events: list[Any], limits: FormatLimits, content: Content) -> None:
    for event in events:
        role = _ROLE_EVENTS.get(event.name)
        attrs = event.attributes
        if role is not None:
            msg = _legacy_message({"role": role, **attrs})
            if msg is not None and isinstance(attrs.get("tool_calls"), str):
                calls, cut = json_value(attrs["tool_calls"], limits)
                if cut:
                    content.cut.append(f"{event.name}.tool_calls")
                msg = _legacy_message({"role": role, **attrs, "tool_calls": calls})
            if msg is not None:
                content.inputs = (content.inputs or []) + [msg]
                content.sources.append(event.name)
        elif event.name == "gen_ai.choice":
            message, cut = json_value(attrs.get("message"), limits)
            if cut:
                content.cut.append("gen_ai.choice.message")
            msg = _legacy_message({"role": "assistant", **(message if isinstance(message, dict) else {})})
            if msg is not None:
                reason = attrs.get("finish_reason")
                msg.finish_reason = reason if isinstance(reason, str) else None
                content.outputs = (content.outputs or []) + [msg]
                content.sources.append("gen_ai.choice")


def _flattened(attrs: dict[str, Any], content: Content) -> None:
    found: dict[tuple[str, int], dict[str, Any]] = {}
    calls: dict[tuple[int, int], dict[str, Any]] = {}
    for key, value in attrs.items():
        if match := _FLAT.fullmatch(key):
            found.setdefault((match[1], int(match[2])), {})[match[3]] = value
        elif match := _FLAT_CALL.fullmatch(key):
            calls.setdefault((int(match[1]), int(match[2])), {})[match[3]] = value
    by_owner: dict[int, list[Call]] = {}
    for (owner, _), call in sorted(calls.items()):
        if isinstance(call.get("name"), str):
            call_id = call.get("id")
            by_owner.setdefault(owner, []).append(
                Call(call_id if isinstance(call_id, str) else None, call["name"], call.get("arguments"))
            )
    for (kind, index), fields in sorted(found.items()):
        msg = _legacy_message(fields)
        if msg is None:
            continue
        reason = fields.get("finish_reason")
        msg.finish_reason = reason if isinstance(reason, str) else None
        if kind == "completion":
            msg.calls.extend(by_owner.get(index, []))
            content.outputs = (content.outputs or []) + [msg]
        else:
            content.inputs = (content.inputs or []) + [msg]
    if found:
        content.sources.append("gen_ai.prompt.N")


def read_content(attrs: dict[str, Any], events: list[Any], limits: FormatLimits) -> Content:
    """Everything a span says about messages, in the newest generation present."""
    content = Content()
    if INPUT in attrs or OUTPUT in attrs:
        if INPUT in attrs:
            content.inputs = _messages(attrs[INPUT], limits, INPUT, content)
        if OUTPUT in attrs:
            content.outputs = _messages(attrs[OUTPUT], limits, OUTPUT, content)
    elif any(e.name in _ROLE_EVENTS or e.name == "gen_ai.choice" for e in events):
        _events(events, limits, content)
    else:
        for key, target in (("gen_ai.prompt", "inputs"), ("gen_ai.completion", "outputs")):
            if key in attrs:
                decoded, cut = json_value(attrs[key], limits)
                if cut:
                    content.cut.append(key)
                elif isinstance(decoded, list):
                    msgs = [m for m in (_legacy_message(d) for d in decoded[: limits.items_per_episode]) if m]
                    setattr(content, target, msgs)
                    content.sources.append(key)
        if content.inputs is None and content.outputs is None:
            _flattened(attrs, content)
    if SYSTEM in attrs:
        decoded, cut = json_value(attrs[SYSTEM], limits)
        if cut:
            content.cut.append(SYSTEM)
        elif isinstance(decoded, list):
            content.system = [Msg("system", _text_of(decoded))]
            content.sources.append(SYSTEM)
    return content
