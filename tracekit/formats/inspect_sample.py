"""One Inspect sample (one epoch) to one evidence :class:`~tracekit.kernel.evidence.Episode`
(docs/formats.md, "Inspect AI", steps S1-S8).

Pure: takes the decoded sample object (already depth-checked, so the short recursions below are
bounded by ``FormatLimits.depth``) and the run facts from the log header. Every type the
converter relies on is checked; a break raises ``inspect.schema`` naming our schema path only.
"""

from __future__ import annotations

from typing import Any

import msgspec

from tracekit.formats.base import FormatError, FormatLimits
from tracekit.formats.inspect_values import (
    Resolver,
    content_text,
    lst,
    obj,
    opt_str,
    schema,
    seconds,
    slices,
)
from tracekit.kernel.errors import Code, finding
from tracekit.kernel.evidence import (
    Arguments,
    Episode,
    EpisodeError,
    Message,
    ModelTurn,
    Provenance,
    Role,
    RunFacts,
    Score,
    ToolCall,
    ToolResult,
    ToolSchema,
    Truncation,
    message_runs,
)

_ROLES: dict[str, Role] = {
    "system": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
}
_ATTACHMENT = "attachment://"
_ERROR_KINDS = {"timeout": "timeout", "limit": "limit", "output_limit": "output_limit"}
_ENCODER = msgspec.json.Encoder()


class _Messages:
    """Step S1: ``sample.messages`` as evidence messages, and each message's ``id`` as found
    (checked later, where the table that places a model turn's input is made: ``_Builder``)."""

    __slots__ = ("ids", "messages", "odd_id")

    def __init__(self, sample: dict[str, Any], resolve: Resolver) -> None:
        raw = sample.get("messages", [])
        if not isinstance(raw, list):
            raise schema("sample.messages must be a list")
        out: list[Message] = []
        ids: list[Any] = []
        odd_id = False
        roles = _ROLES.get
        for i, m in enumerate(raw):
            if not isinstance(m, dict):
                raise schema("sample.messages[] must be objects")
            get = m.get
            role, calls, content = get("role"), get("tool_calls"), get("content")
            call_ids: tuple[str, ...] = ()
            if calls:  # a list to check; an absent, null or empty one holds no ids
                call_ids = tuple(
                    c["id"]
                    for c in lst(calls, "ChatMessage.tool_calls must be a list")
                    if isinstance(c, dict) and isinstance(c.get("id"), str)
                )
            text = content if type(content) is str and not content.startswith(_ATTACHMENT) else (
                content_text(content, resolve, "ChatMessage.content")
            )
            answers = get("tool_call_id")
            if answers is not None and not isinstance(answers, str):
                raise schema("ChatMessage.tool_call_id")
            role = roles(role, "other") if isinstance(role, str) else "other"
            out.append(Message(i, role, text, call_ids, answers))
            m_id = get("id")
            ids.append(m_id)
            odd_id = odd_id or (m_id is not None and not isinstance(m_id, str))
        self.messages = tuple(out)
        self.ids = ids
        self.odd_id = odd_id


def _result(
    event: dict[str, Any], resolve: Resolver, where: str
) -> tuple[ToolResult | None, list[EpisodeError]]:
    """Step S6: a ToolEvent's result, error and truncation."""
    error = event.get("error")
    text = content_text(event.get("result"), resolve, "ToolEvent.result")
    if error is None and event.get("failed") is True:
        # The tool raised and the sample ended: nothing was handed back to the model.
        return None, [EpisodeError("crash", where)]
    cut = event.get("truncated")
    truncation = None
    if cut is not None:
        cut = lst(cut, "ToolEvent.truncated must be [raw, kept]")
        if len(cut) != 2 or not all(type(x) is int and x >= 0 for x in cut):
            raise schema("ToolEvent.truncated must be [raw, kept]")
        truncation = Truncation(where, "inspect:ToolEvent.truncated", cut[0], cut[1])
    started = opt_str(event.get("timestamp"), "ToolEvent.timestamp")
    latency_s = seconds(event.get("working_time"))
    if error is None:
        return ToolResult(text, started_at=started, latency_s=latency_s, truncation=truncation), []
    error = obj(error, "ToolEvent.error must be an object")
    kind = error.get("type")
    message = opt_str(error.get("message"), "ToolEvent.error.message")
    result = ToolResult(
        text if text else message,
        is_error=True,
        error_kind=_ERROR_KINDS.get(kind, "tool_error") if isinstance(kind, str) else "tool_error",
        started_at=started,
        latency_s=latency_s,
        truncation=truncation,
    )
    return result, [EpisodeError("tool_error", where)]


def _arguments(call: dict[str, Any]) -> Arguments:
    """Inspect parses arguments to an object; ``parse_error`` says the provider's string did
    not parse (that string survives only in ``ModelEvent.call.response``)."""
    value = call.get("arguments")
    return Arguments("object", value=value, parse_error=call.get("parse_error") is not None)


class _Builder:
    """Steps S4-S7 over the sample's events, in order."""

    def __init__(
        self, sample: dict[str, Any], resolve: Resolver, messages: _Messages, limit: int
    ) -> None:
        self.resolve = resolve
        # Pool references are ranges: a few bytes can name the whole history in every event, so
        # what they expand to is charged to the episode's item bound (docs/formats.md, "Bounds").
        self.limit = limit
        self.expanded = 0
        data = sample.get("events_data") or {}
        data = obj(data, "sample.events_data must be an object")
        pool = data.get("messages", sample.get("message_pool")) or []
        self.message_pool = lst(pool, "events_data.messages must be a list")
        self.call_pool = lst(data.get("calls") or [], "events_data.calls must be a list")
        if messages.odd_id:  # ChatMessage.id: a string or null, never a key of ``ids``
            raise schema("ChatMessage.id")
        self.message_ids = messages.ids
        self._ids: dict[str | None, int] | None = None
        self.turns: list[ModelTurn] = []
        self.calls: list[ToolCall] = []
        self.errors: list[EpisodeError] = []
        self.truncations: list[Truncation] = []
        self.provenance: list[Provenance] = []
        self.by_id: dict[str, int] = {}
        self.tool_events: dict[int, dict[str, Any]] = {}
        self.messages = messages.messages
        self.from_messages = False

    @property
    def ids(self) -> dict[str | None, int]:
        """Each message id's position (the last message's, for an id repeated), made when a
        model turn first needs it."""
        if self._ids is None:
            self._ids = {m_id: i for i, m_id in enumerate(self.message_ids)}
        return self._ids

    def slices(self, refs: Any, pool: list[Any], kind: str) -> list[Any]:
        """:func:`slices`, charged to the item bound before anything is copied."""
        for pair in lst(refs, f"{kind} refs must be a list"):
            if isinstance(pair, list) and len(pair) == 2 and all(type(x) is int for x in pair):
                self.expanded += max(0, pair[1] - pair[0])
        if self.expanded > self.limit:
            raise FormatError(finding(Code.INSPECT_TOO_MANY_ITEMS, limit=self.limit, member="sample"))
        return slices(refs, pool, kind)

    def model(self, event: dict[str, Any]) -> None:
        turn = len(self.turns)
        sent: list[Any] = lst(event.get("input") or [], "ModelEvent.input must be a list")
        if event.get("input_refs") is not None:
            sent = sent + self.slices(event["input_refs"], self.message_pool, "message pool entry")
        indices = [
            self.ids.get(opt_str(obj(m, "ModelEvent.input[] must be objects").get("id"), "ChatMessage.id"))
            for m in sent
        ]
        schemas = _schemas(event)
        call, request, response = self.raw_call(event.get("call"))
        output = obj(event.get("output") or {}, "ModelEvent.output must be an object")
        choices = lst(output.get("choices") or [], "ModelOutput.choices must be a list")
        choice = obj(choices[0], "ModelOutput.choices[] must be objects") if choices else {}
        finish, finish_source = _finish(call, choice)
        error = event.get("error") is not None
        if error:
            self.errors.append(EpisodeError("model_error", f"turns[{turn}]"))
        self.turns.append(
            ModelTurn(
                index=turn,
                input_runs=message_runs(i for i in indices if i is not None)
                if sent and None not in indices
                else None,
                tool_schemas=schemas if event.get("tools") is not None else None,
                raw_request=request,
                raw_response=response,
                finish_reason=finish,
                finish_reason_source=finish_source,
                model=opt_str(event.get("model"), "ModelEvent.model"),
                started_at=opt_str(event.get("timestamp"), "ModelEvent.timestamp"),
                latency_s=seconds(event.get("working_time")),
                error=error,
            )
        )
        self.tool_calls(choice, turn)

    def raw_call(self, call: Any) -> tuple[dict[str, Any] | None, str | None, str | None]:
        """The provider call as sent and received (``ModelEvent.call``), pools resolved."""
        if call is None:
            return None, None, None
        call = obj(call, "ModelEvent.call must be an object")
        req = self.resolve.deep(call.get("request"))
        if call.get("call_refs") is not None:
            key = call.get("call_key")
            if not isinstance(key, str) or not isinstance(req, dict):
                raise schema("ModelCall.call_key must name a request field")
            req = dict(req)
            req[key] = self.resolve.deep(
                self.slices(call["call_refs"], self.call_pool, "call pool entry"), fresh=False
            )
        request = _ENCODER.encode(req).decode("utf-8")
        response = _ENCODER.encode(self.resolve.deep(call.get("response"))).decode("utf-8")
        return call, request, response

    def tool_calls(self, choice: dict[str, Any], turn: int) -> None:
        """The tool calls the model's first choice asked for, in order."""
        message = obj(choice.get("message") or {}, "ChatMessageAssistant must be an object")
        for raw in lst(
            message.get("tool_calls") or [], "ChatMessageAssistant.tool_calls must be a list"
        ):
            tc = obj(raw, "ToolCall must be an object")
            name, call_id = tc.get("function"), opt_str(tc.get("id"), "ToolCall.id")
            if not isinstance(name, str):
                raise schema("ToolCall.function must be a string")
            index = len(self.calls)
            if call_id is not None:
                self.by_id.setdefault(call_id, index)
            self.calls.append(ToolCall(index, turn, name, call_id, _arguments(tc), None, turn))

    def tool(self, event: dict[str, Any]) -> None:
        call_id = event.get("id")
        index = self.by_id.get(call_id) if isinstance(call_id, str) else None
        if index is not None and index not in self.tool_events:
            self.tool_events[index] = event

    def finish(self) -> None:
        """Step S6: attach each call's ToolEvent; a call without one has no result."""
        for index, call in enumerate(self.calls):
            event = self.tool_events.get(index)
            if event is None:
                continue
            result, errors = _result(event, self.resolve, f"calls[{index}].result")
            self.errors.extend(errors)
            if result is not None and result.truncation is not None:
                self.truncations.append(result.truncation)
            self.calls[index] = msgspec.structs.replace(call, result=result)


def _from_messages(build: _Builder, sample: dict[str, Any], resolve: Resolver) -> None:
    """Step S5 without ModelEvents (a log written without events): each assistant message is a
    turn with no request, raw call or timing, its ``tool_calls`` the calls; a tool message
    answering a call id is its result (text only: no error, timing or truncation marker)."""
    build.from_messages = True
    answers: dict[str, str | None] = {}
    for m in build.messages:
        if m.role == "tool" and m.tool_call_id is not None:
            answers.setdefault(m.tool_call_id, m.text)
    # The messages are sample.messages, checked: a list of objects (or none), each message's
    # role read as "assistant" exactly when it is that string.
    for m, message in zip(build.messages, sample.get("messages") or (), strict=True):
        if m.role != "assistant":
            continue
        turn = len(build.turns)
        model = message.get("model")
        if model is not None and not isinstance(model, str):
            raise schema("ChatMessage.model")
        build.turns.append(ModelTurn(index=turn, model=model))
        tool_calls = message.get("tool_calls")
        if not tool_calls:  # absent, null or empty: no calls
            continue
        for item in lst(tool_calls, "ChatMessage.tool_calls must be a list"):
            tc = obj(item, "ToolCall must be an object")
            name, call_id = tc.get("function"), opt_str(tc.get("id"), "ToolCall.id")
            if not isinstance(name, str):
                raise schema("ToolCall.function must be a string")
            result = None
            if call_id is not None and call_id in answers:
                result = ToolResult(answers[call_id])
            index = len(build.calls)
            build.calls.append(ToolCall(index, turn, name, call_id, _arguments(tc), result, turn))


def _finish(call: Any, choice: dict[str, Any]) -> tuple[str | None, str | None]:
    """The provider's own finish reason when the raw response has one, else Inspect's."""
    if isinstance(call, dict) and isinstance(call.get("response"), dict):
        raw = call["response"].get("choices")
        if isinstance(raw, list) and raw and isinstance(raw[0], dict):
            reason = raw[0].get("finish_reason")
            if isinstance(reason, str):
                return reason, "inspect:ModelEvent.call.response.choices[0].finish_reason"
        reason = call["response"].get("stop_reason")
        if isinstance(reason, str):
            return reason, "inspect:ModelEvent.call.response.stop_reason"
    reason = choice.get("stop_reason")
    if isinstance(reason, str):
        return reason, "inspect:ModelOutput.choices[0].stop_reason"
    return None, None


def _scores(sample: dict[str, Any]) -> tuple[Score, ...]:
    """Step S7: ``sample.scores``; ``C``/``I`` are Inspect's correct/incorrect."""
    raw = obj(sample.get("scores") or {}, "sample.scores must be an object")
    out = []
    for name, score in raw.items():
        value = obj(score, "Score must be an object").get("value")
        passed = {"C": True, "I": False}.get(value) if isinstance(value, str) else None
        out.append(Score(scorer=name, value=value, passed=passed))
    return tuple(out)


# Where each part of an episode came from: the same for every sample, so made once.
_FROM_SAMPLE = Provenance("messages", "inspect:EvalSample.messages")
_FROM_MESSAGES = (
    Provenance("turns", "inspect:ChatMessageAssistant"),
    Provenance("calls", "inspect:ChatMessageAssistant.tool_calls"),
    Provenance("calls[].result", "inspect:ChatMessageTool.content"),
)
_FROM_EVENTS = (
    Provenance("turns", "inspect:ModelEvent"),
    Provenance("calls", "inspect:ModelEvent.output.choices[0].message.tool_calls"),
    Provenance("calls[].result", "inspect:ToolEvent.result"),
)
_FROM_SCORES = Provenance("facts.scores", "inspect:EvalSample.scores")


def sample_items(sample: dict[str, Any]) -> int:
    """A sample's events and messages: what its conversion walks and its episode holds."""
    events, messages = sample.get("events") or [], sample.get("messages") or []
    return (len(events) if isinstance(events, list) else 0) + (len(messages) if isinstance(messages, list) else 0)


def episode(sample: dict[str, Any], facts: RunFacts, limits: FormatLimits) -> Episode:
    """Steps S1-S8 for one decoded sample object."""
    sample = obj(sample, "a sample must be an object")
    sample_id, epoch = sample.get("id"), sample.get("epoch", 1)
    if type(sample_id) not in (int, str) or type(epoch) is not int:
        raise schema("sample.id must be a string or integer and sample.epoch an integer")
    events = lst(sample.get("events") or [], "sample.events must be a list")
    if sample_items(sample) > limits.items_per_episode:
        raise FormatError(
            finding(Code.INSPECT_TOO_MANY_ITEMS, limit=limits.items_per_episode, member="sample")
        )
    resolve = Resolver(
        obj(sample.get("attachments") or {}, "sample.attachments must be an object"), limits
    )
    found = _Messages(sample, resolve)
    messages = found.messages
    build = _Builder(sample, resolve, found, limits.items_per_episode)
    for raw in events:
        event = obj(raw, "sample.events[] must be objects")
        kind = event.get("event")
        if kind == "model":
            build.model(event)
        elif kind == "tool":
            build.tool(event)
    if not build.turns:
        _from_messages(build, sample, resolve)
    build.finish()
    if sample.get("error") is not None:
        build.errors.append(EpisodeError("sample_error", "sample.error"))
    if sample.get("limit") is not None:
        build.errors.append(EpisodeError("limit", "sample.limit"))
    losses = []
    if build.from_messages:  # no turn made from messages has a raw request
        if build.turns:
            losses.append("raw_call_sampled")
    elif any(t.raw_request is None for t in build.turns):
        losses.append("raw_call_sampled")
    if build.truncations:
        losses.append("result_cut_16k")
    provenance = [_FROM_SAMPLE] if messages else []
    if build.from_messages:
        provenance.extend(_FROM_MESSAGES)
    elif build.turns:
        provenance.extend(_FROM_EVENTS)
    if sample.get("scores"):
        provenance.append(_FROM_SCORES)
    scores = _scores(sample)
    return Episode(
        id=f"{sample_id}_epoch_{epoch}",
        facts=msgspec.structs.replace(facts, scores=scores) if scores or facts.scores else facts,
        messages=messages,
        turns=tuple(build.turns),
        calls=tuple(build.calls),
        errors=tuple(build.errors),
        truncations=tuple(build.truncations),
        provenance=tuple(provenance),
        losses=tuple(losses),
    )


def _schemas(event: dict[str, Any]) -> tuple[ToolSchema, ...]:
    """The tools offered to the model in one ``ModelEvent``."""
    return tuple(
        ToolSchema(
            name=t["name"] if isinstance(t.get("name"), str) else "",
            description=opt_str(t.get("description"), "ToolInfo.description"),
            parameters=t.get("parameters"),
        )
        for t in (
            obj(x, "ToolInfo must be an object")
            for x in lst(event.get("tools") or [], "ModelEvent.tools must be a list")
        )
    )
