"""OpenInference's flattened attributes read as GenAI spans (docs/formats.md, "OpenTelemetry
GenAI", "OpenInference")."""

from __future__ import annotations

import io
import json
from typing import Any

from tracekit.formats.base import DEFAULT_FORMAT_LIMITS, FormatLimits, Source
from tracekit.formats.otel import FORMAT
from tracekit.kernel.evidence import EvidenceFile

TRACE = "0af7651916cd43dd8448eb211c80319c"


def _kv(attrs: dict[str, Any]) -> list[dict[str, Any]]:
    def value(v: Any) -> dict[str, Any]:
        if isinstance(v, bool):
            return {"boolValue": v}
        if isinstance(v, int):
            return {"intValue": str(v)}
        return {"stringValue": v}

    return [{"key": k, "value": value(v)} for k, v in attrs.items()]


def _span(span_id: str, parent: str, start: int, attrs: dict[str, Any], name: str = "s") -> dict[str, Any]:
    return {
        "traceId": TRACE, "spanId": span_id, "parentSpanId": parent, "name": name,
        "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 10), "attributes": _kv(attrs),
    }  # fmt: skip


def _messages(prefix: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for i, message in enumerate(messages):
        for key, value in message.items():
            out[f"{prefix}.{i}.message.{key}"] = value
    return out


FIRST_LLM = {
    "openinference.span.kind": "LLM",
    "llm.model_name": "gpt-4o",
    **_messages("llm.input_messages", [{"role": "system", "content": "be brief"}, {"role": "user", "content": "mail the plan"}]),
    "llm.output_messages.0.message.role": "assistant",
    "llm.output_messages.0.message.tool_calls.0.tool_call.id": "call_1",
    "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "send_email",
    "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"to": "a@example.com"}',
}
TOOL = {
    "openinference.span.kind": "TOOL",
    "tool.name": "send_email",
    "tool_call.id": "call_1",
    "tool.parameters": '{"type": "object"}',
    "input.value": '{"to": "a@example.com"}',
    "output.value": "sent",
}
SECOND_LLM = {
    "openinference.span.kind": "LLM",
    "llm.model_name": "gpt-4o",
    **_messages("llm.input_messages", [{"role": "system", "content": "be brief"}, {"role": "user", "content": "mail the plan"}]),
    "llm.input_messages.2.message.role": "assistant",
    "llm.input_messages.2.message.tool_calls.0.tool_call.id": "call_1",
    "llm.input_messages.2.message.tool_calls.0.tool_call.function.name": "send_email",
    "llm.input_messages.2.message.tool_calls.0.tool_call.function.arguments": '{"to": "a@example.com"}',
    **{f"llm.input_messages.3.message.{k}": v for k, v in {"role": "tool", "content": "sent", "tool_call_id": "call_1"}.items()},
    "llm.output_messages.0.message.role": "assistant",
    "llm.output_messages.0.message.contents.0.message_content.type": "text",
    "llm.output_messages.0.message.contents.0.message_content.text": "done",
}


def _load(spans: list[dict[str, Any]], limits: FormatLimits = DEFAULT_FORMAT_LIMITS) -> EvidenceFile:
    doc = {"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "openinference"}, "spans": spans}]}]}
    raw = json.dumps(doc).encode() + b"\n"
    return FORMAT.load(Source(io.BytesIO(raw), len(raw), ".jsonl"), limits)


def _run() -> list[dict[str, Any]]:
    return [
        _span("a000000000000001", "", 1, {"openinference.span.kind": "AGENT", "agent.name": "mailer"}),
        _span("a000000000000002", "a000000000000001", 2, FIRST_LLM),
        _span("a000000000000003", "a000000000000001", 3, TOOL),
        _span("a000000000000004", "a000000000000001", 4, SECOND_LLM),
    ]


def test_an_openinference_agent_run_is_one_episode_with_turns_and_calls() -> None:
    (episode,) = _load(_run()).episodes
    assert episode.id == TRACE
    assert len(episode.turns) == 2
    (call,) = episode.calls
    assert (call.name, call.call_id, call.arguments.value) == ("send_email", "call_1", {"to": "a@example.com"})
    assert call.result is not None and call.result.text == "sent"
    roles = [(m.role, m.text) for m in episode.messages]
    assert roles[:2] == [("system", "be brief"), ("user", "mail the plan")]
    assert ("assistant", "done") in roles
    assert episode.facts.model == "gpt-4o" and episode.facts.task == "mailer"


def test_tool_parameters_are_a_schema_not_arguments() -> None:
    tool = {k: v for k, v in TOOL.items() if k != "input.value"}
    spans = [_span("a000000000000003", "", 3, tool)]
    (episode,) = _load(spans).episodes
    (call,) = episode.calls
    assert call.arguments.value != {"type": "object"} and call.arguments.text != '{"type": "object"}'


def test_indices_beyond_the_item_limit_are_not_read() -> None:
    many = {"openinference.span.kind": "LLM", **{f"llm.input_messages.{i}.message.content": "x" for i in (0, 5, 999999, 10**9)}}
    (episode,) = _load([_span("a000000000000002", "", 2, many)], FormatLimits(items_per_episode=10)).episodes
    assert len(episode.messages) <= 2


def test_genai_spans_are_left_alone() -> None:
    span = {**FIRST_LLM, "gen_ai.operation.name": "embeddings"}
    (episode,) = _load([_span("a000000000000002", "", 2, span)]).episodes
    assert episode.turns == () and episode.messages == ()
