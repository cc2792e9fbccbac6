"""Vercel AI SDK ``ai.*`` spans read as GenAI spans (docs/formats.md, "OpenTelemetry GenAI",
"Vercel AI SDK")."""

from __future__ import annotations

import io
import json
from typing import Any

from tracekit.formats.base import DEFAULT_FORMAT_LIMITS, FormatLimits, Source
from tracekit.formats.otel import FORMAT
from tracekit.kernel.evidence import EvidenceFile

TRACE = "1af7651916cd43dd8448eb211c80319c"
PROMPT = [
    {"role": "system", "content": "be brief"},
    {"role": "user", "content": [{"type": "text", "text": "mail the plan"}]},
]
CALL = {"toolCallType": "function", "toolCallId": "call_1", "toolName": "send_email", "args": '{"to": "a@example.com"}'}


def _kv(attrs: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()]


def _span(span_id: str, start: int, attrs: dict[str, Any]) -> dict[str, Any]:
    return {
        "traceId": TRACE, "spanId": span_id, "parentSpanId": "b000000000000000", "name": attrs["ai.operationId"],
        "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 10), "attributes": _kv(attrs),
    }  # fmt: skip


def _load(spans: list[dict[str, Any]], limits: FormatLimits = DEFAULT_FORMAT_LIMITS) -> EvidenceFile:
    doc = {"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "ai"}, "spans": spans}]}]}
    raw = json.dumps(doc).encode() + b"\n"
    return FORMAT.load(Source(io.BytesIO(raw), len(raw), ".jsonl"), limits)


def _run(prompt_text: str | None = None) -> list[dict[str, Any]]:
    second_prompt = [
        *PROMPT,
        {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "call_1", "toolName": "send_email", "args": {"to": "a@example.com"}}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "call_1", "toolName": "send_email", "result": "sent"}]},
    ]
    return [
        _span("b000000000000001", 1, {
            "ai.operationId": "ai.generateText.doGenerate", "ai.model.id": "gpt-4o", "ai.model.provider": "openai.chat",
            "ai.prompt.messages": prompt_text or json.dumps(PROMPT), "ai.response.toolCalls": json.dumps([CALL]),
            "ai.response.finishReason": "tool-calls",
        }),
        _span("b000000000000002", 2, {
            "ai.operationId": "ai.toolCall", "ai.toolCall.name": "send_email", "ai.toolCall.id": "call_1",
            "ai.toolCall.args": '{"to": "a@example.com"}', "ai.toolCall.result": "sent",
        }),
        _span("b000000000000003", 3, {
            "ai.operationId": "ai.generateText.doGenerate", "ai.model.id": "gpt-4o",
            "ai.prompt.messages": json.dumps(second_prompt), "ai.response.text": "done",
        }),
    ]  # fmt: skip


def test_an_ai_sdk_run_is_one_episode_with_turns_and_calls() -> None:
    (episode,) = _load(_run()).episodes
    assert len(episode.turns) == 2 and episode.turns[0].finish_reason == "tool-calls"
    (call,) = episode.calls
    assert (call.name, call.call_id, call.arguments.value) == ("send_email", "call_1", {"to": "a@example.com"})
    assert call.result is not None and call.result.text == "sent"
    texts = [(m.role, m.text) for m in episode.messages]
    assert texts[:2] == [("system", "be brief"), ("user", "mail the plan")] and ("assistant", "done") in texts
    assert episode.facts.model == "gpt-4o"


def test_a_cut_prompt_is_reported_as_a_truncation_not_read() -> None:
    cut = json.dumps(PROMPT)[:40]
    (episode,) = _load(_run(prompt_text=cut)).episodes
    assert episode.truncations and all(m.text != "be brief" for m in episode.messages[:1])


def test_hostile_prompt_parts_are_skipped_and_bounded() -> None:
    hostile = [{"role": "user", "content": [1, None, {"type": "tool-call"}, {"type": "text", "text": 3}]}] * 50
    spans = [_span("b000000000000001", 1, {"ai.operationId": "ai.generateText.doGenerate", "ai.prompt.messages": json.dumps(hostile)})]
    (episode,) = _load(spans, FormatLimits(items_per_episode=60)).episodes
    assert all(m.text is None for m in episode.messages) and len(episode.messages) <= 60
