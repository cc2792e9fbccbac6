"""One OTel trace into an episode: turns from inference spans, calls from the turns' output and
from ``execute_tool`` spans, the conversation de-duplicated across turns (docs/formats.md,
"OpenTelemetry GenAI", steps 4-6)."""

from __future__ import annotations

from typing import Any

from tracekit.formats.base import FormatLimits
from tracekit.formats.otel_content import INPUT, OUTPUT, SYSTEM, Msg, json_value, read_content
from tracekit.formats.otel_spans import Span
from tracekit.kernel.evidence import (
    Arguments,
    EpisodeError,
    Message,
    ModelTurn,
    Provenance,
    Role,
    ToolCall,
    ToolResult,
    ToolSchema,
    Truncation,
    message_runs,
)

CONTENT_KEYS = frozenset(
    {
        INPUT,
        OUTPUT,
        SYSTEM,
        "gen_ai.tool.definitions",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "gen_ai.prompt",
        "gen_ai.completion",
    }
)
"""Content-bearing string attributes: the ones an attribute length limit cuts first (step 6)."""

LIMIT_MARKER = "otel:attribute_length_limit"
_ROLES: dict[str, Role] = {"system": "system", "user": "user", "assistant": "assistant", "tool": "tool", "developer": "developer"}
_PLACE = {INPUT: "input_messages", OUTPUT: "output", SYSTEM: "system_instructions"}


def _bytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def arguments(value: Any, limits: FormatLimits) -> Arguments:
    """Arguments in the shape found: a string (parsed when it is JSON) or an object."""
    if value is None:
        return Arguments("absent")
    if isinstance(value, str):
        decoded, cut = json_value(value, limits)
        return Arguments("string", text=value, value=decoded if isinstance(decoded, dict) else None, parse_error=cut)
    return Arguments("object", value=value)


def _key(msg: Msg) -> tuple[Any, ...]:
    return (msg.role, msg.text, tuple(c.call_id for c in msg.calls), msg.tool_call_id)


class EpisodeBuilder:
    """Accumulates one trace's evidence span by span (spans arrive in start order)."""

    def __init__(self, limits: FormatLimits, cut_at: int | None) -> None:
        self.limits = limits
        self.cut_at = cut_at
        self.messages: list[Message] = []
        self.turns: list[ModelTurn] = []
        self.errors: list[EpisodeError] = []
        self.truncations: list[Truncation] = []
        self.provenance: list[Provenance] = []
        self.losses: list[str] = []
        self._keys: list[tuple[Any, ...]] = []
        self._system = 0
        self._calls: list[ToolCall] = []
        self._by_id: dict[str, int] = {}
        self._results: dict[int, ToolResult] = {}
        self._answers: dict[str, str | None] = {}
        self._where: dict[str, str] = {}

    def _loss(self, name: str) -> None:
        if name not in self.losses:
            self.losses.append(name)

    def _cut(self, where: str, text: str) -> None:
        self.truncations.append(Truncation(where, LIMIT_MARKER, kept_bytes=_bytes(text), suspected=True))

    def _append(self, msg: Msg) -> int:
        index = len(self.messages)
        response = msg.response if isinstance(msg.response, str) else None
        text = msg.text if msg.text is not None else response
        call_ids = tuple(c.call_id for c in msg.calls if c.call_id is not None)
        self.messages.append(Message(index, _ROLES.get(msg.role, "other"), text, call_ids, msg.tool_call_id))
        self._keys.append(_key(msg))
        if msg.tool_call_id is not None and msg.role == "tool":
            self._answers.setdefault(msg.tool_call_id, text)
        return index

    def _extend(self, msgs: list[Msg]) -> tuple[int, ...]:
        """Indices of a turn's input: the conversation so far is matched as a prefix (with or
        without the system instructions recorded separately), the rest is appended."""
        keys = [_key(m) for m in msgs]
        for skip in (0, self._system):
            known = self._keys[skip:]
            if keys[: len(known)] == known:
                new = [self._append(m) for m in msgs[len(known) :]]
                return tuple(range(skip, skip + len(known))) + tuple(new)
        return tuple(self._append(m) for m in msgs)

    def system_from(self, span: Span) -> None:
        """``gen_ai.system_instructions`` (any span) as the first system message, once."""
        value = span.attributes.get(SYSTEM)
        if value is None or self._system or self.messages:
            return
        decoded, cut = json_value(value, self.limits)
        if cut and isinstance(value, str):
            self._cut("messages", value)
            return
        if isinstance(decoded, list):
            texts = [p["content"] for p in decoded if isinstance(p, dict) and isinstance(p.get("content"), str)]
            self._append(Msg("system", "\n".join(texts) if texts else None))
            self._system = 1
            self.provenance.append(Provenance("messages[0]", f"otel:span.attributes.{SYSTEM}"))

    def turn(self, span: Span) -> None:
        """An inference span: one model turn, its input and output messages, its calls."""
        t = len(self.turns)
        self._where[span.span_id] = f"turns[{t}]"
        content = read_content(span.attributes, span.events, self.limits)
        for key in content.cut:
            value = span.attributes.get(key)
            self._cut(f"turns[{t}].{_PLACE.get(key, 'content')}", value if isinstance(value, str) else "")
        for key in CONTENT_KEYS - set(content.cut):
            value = span.attributes.get(key)
            if isinstance(value, str) and self.cut_at is not None and len(value) == self.cut_at:
                self._cut(f"turns[{t}].{_PLACE.get(key, 'content')}", value)
        if content.inputs is None and content.outputs is None and not content.cut:
            self._loss("content_opt_in")
        for found in content.sources:
            self.provenance.append(Provenance(f"turns[{t}].messages", f"otel:{found}"))
        inputs = self._extend(content.inputs) if content.inputs is not None else None
        for msg in content.outputs or []:
            self._append(msg)
            for call in msg.calls:
                index = len(self._calls)
                args = arguments(call.arguments, self.limits)
                if args.shape == "object":
                    self._loss("arguments_deserialised")
                self._calls.append(ToolCall(index, t, call.name, call.call_id, args, parallel_group=t))
                if call.call_id is not None:
                    self._by_id.setdefault(call.call_id, index)
        attrs = span.attributes
        reasons = attrs.get("gen_ai.response.finish_reasons")
        reason = reasons[0] if isinstance(reasons, list) and reasons and isinstance(reasons[0], str) else None
        source: str | None = "otel:gen_ai.response.finish_reasons" if reason is not None else None
        if reason is None and content.outputs and content.outputs[0].finish_reason is not None:
            reason, source = content.outputs[0].finish_reason, "otel:gen_ai.output.messages.finish_reason"
        model = attrs.get("gen_ai.response.model", attrs.get("gen_ai.request.model"))
        self.turns.append(
            ModelTurn(
                t,
                input_runs=None if inputs is None else message_runs(inputs),
                tool_schemas=_schemas(attrs.get("gen_ai.tool.definitions"), self.limits),
                finish_reason=reason,
                finish_reason_source=source,
                model=model if isinstance(model, str) else None,
                started_at=span.start_text,
                latency_s=_latency(span),
                error=span.error,
            )
        )
        if span.error:
            self.errors.append(EpisodeError("model_error", f"turns[{t}]"))

    def tool(self, span: Span) -> None:
        """An ``execute_tool`` span: the result (and the arguments as the tool got them) of
        the call with its ``gen_ai.tool.call.id``, or a call of its own."""
        attrs = span.attributes
        call_id = attrs.get("gen_ai.tool.call.id")
        index = self._by_id.get(call_id) if isinstance(call_id, str) else None
        if index is not None and index in self._results:
            index = None  # a second span for one id: keep both, as separate calls
        raw_args = attrs.get("gen_ai.tool.call.arguments")
        if index is None:
            turn = len(self.turns) - 1
            index = len(self._calls)
            name = attrs.get("gen_ai.tool.name")
            self._calls.append(
                ToolCall(
                    index,
                    turn,
                    name if isinstance(name, str) else span.name,
                    call_id if isinstance(call_id, str) else None,
                    arguments(raw_args, self.limits),
                    parallel_group=turn if turn >= 0 else None,
                )
            )
            self.provenance.append(Provenance(f"calls[{index}]", "otel:execute_tool"))
        elif isinstance(raw_args, str):
            old = self._calls[index]
            self._calls[index] = ToolCall(index, old.turn, old.name, old.call_id, arguments(raw_args, self.limits), parallel_group=old.parallel_group)
            self.provenance.append(Provenance(f"calls[{index}].arguments", "otel:span.attributes.gen_ai.tool.call.arguments"))
        self._where[span.span_id] = f"calls[{index}]"
        args = self._calls[index].arguments
        if args.text is not None and (args.parse_error or (self.cut_at is not None and len(args.text) == self.cut_at)):
            self._cut(f"calls[{index}].arguments", args.text)
        if raw_args is None and "gen_ai.tool.call.result" not in attrs:
            self._loss("content_opt_in")
        result = _result(span, self.cut_at, f"calls[{index}].result")
        if result.truncation is not None:
            self.truncations.append(result.truncation)
        self._results[index] = result
        if span.error:
            self.errors.append(EpisodeError("tool_error", f"calls[{index}]"))

    def dropped(self, span: Span) -> None:
        """``droppedAttributesCount`` / ``droppedEventsCount``: attributes the SDK discarded."""
        where = self._where.get(span.span_id, "episode")
        if span.dropped_attributes:
            self.truncations.append(Truncation(where, "otel:Span.droppedAttributesCount"))
            self._loss("attributes_dropped")
        if span.dropped_events:
            self.truncations.append(Truncation(where, "otel:Span.droppedEventsCount"))
            self._loss("attributes_dropped")

    def attach_message_results(self) -> None:
        """Calls with no ``execute_tool`` span take the ``tool_call_response`` a later turn's
        input carried for their id."""
        for call in self._calls:
            if call.call_id not in self._answers:
                continue
            answer = self._answers[call.call_id]
            found = self._results.get(call.index)
            if found is None:
                self._results[call.index] = ToolResult(answer)
            elif found.text is None and not found.is_error and answer is not None:
                self._results[call.index] = ToolResult(
                    answer, started_at=found.started_at, latency_s=found.latency_s
                )

    def final_calls(self) -> tuple[ToolCall, ...]:
        """The calls in emission order, each with its result."""
        return tuple(
            ToolCall(c.index, c.turn, c.name, c.call_id, c.arguments, self._results.get(c.index), c.parallel_group)
            for c in self._calls
        )


def _latency(span: Span) -> float | None:
    if span.end is None or span.start is None:
        return None
    return (span.end - span.start) / 1e9


def _schemas(value: Any, limits: FormatLimits) -> tuple[ToolSchema, ...] | None:
    decoded, _ = json_value(value, limits)
    if not isinstance(decoded, list):
        return None
    out = []
    for item in decoded[: limits.items_per_episode]:
        if isinstance(item, dict):
            function = item.get("function")
            inner: dict[str, Any] = function if isinstance(function, dict) else item
            name, description = inner.get("name"), inner.get("description")
            if isinstance(name, str):
                out.append(ToolSchema(name, description if isinstance(description, str) else None, inner.get("parameters")))
    return tuple(out)


def _result(span: Span, cut_at: int | None, where: str) -> ToolResult:
    """An ``execute_tool`` span's result: ``gen_ai.tool.call.result`` (opt-in), the error
    status and message, timing."""
    value = span.attributes.get("gen_ai.tool.call.result")
    text = value if isinstance(value, str) else None
    truncation = None
    if text is not None and cut_at is not None and len(text) == cut_at:
        truncation = Truncation(where, LIMIT_MARKER, kept_bytes=_bytes(text), suspected=True)
    if text is None and span.error:
        text = span.status_message
    return ToolResult(
        text,
        is_error=span.error,
        error_kind="tool_error" if span.error else None,
        started_at=span.start_text,
        latency_s=_latency(span),
        truncation=truncation,
        capture="captured" if (value is not None or span.error) else "not_captured",
    )
