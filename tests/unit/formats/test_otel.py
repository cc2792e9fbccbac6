"""OTel GenAI importer: the real OTLP/JSON files (content, no content, length limit, legacy
events) asserted field by field against their ground truth, and the dialects and failure modes
the real files do not show (base64 ids, flattened legacy attributes, kvlist arguments, dropped
attributes, hostile input)."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest

from tracekit.formats import registry
from tracekit.formats.base import DEFAULT_FORMAT_LIMITS, FormatError, FormatLimits, Source
from tracekit.formats.otel import FORMAT
from tracekit.formats.reading import load_file
from tracekit.kernel.errors import Code
from tracekit.kernel.evidence import Episode, EvidenceFile

ROOT = Path(__file__).resolve().parents[3]
OTEL = ROOT / "corpus" / "third_party" / "otel"
FILES = sorted(OTEL.glob("*.otlp.jsonl"))
CANARY = "CANARY-otel-9137-do-not-echo"


def _truth(path: Path) -> dict[str, Any]:
    return json.loads(path.with_name(path.name + ".expected.json").read_text())


def _with_truth() -> list[Path]:
    return [p for p in FILES if p.with_name(p.name + ".expected.json").exists()]


def test_the_corpus_is_present() -> None:
    assert len(_with_truth()) >= 4


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_real_file_is_otel_and_nothing_else(path: Path) -> None:
    assert registry.accepting(path.read_bytes()[:65536], ".jsonl") == ("otel",)


@pytest.mark.parametrize("path", _with_truth(), ids=lambda p: p.name)
def test_real_spans_match_ground_truth(path: Path) -> None:
    truth = _truth(path)
    evidence = load_file(path)
    assert evidence.format == "otel"
    assert len(evidence.episodes) == len(truth["traces"])
    for episode, trace in zip(evidence.episodes, truth["traces"], strict=True):
        _check_trace(episode, trace, truth)


def _check_trace(episode: Episode, trace: dict[str, Any], truth: dict[str, Any]) -> None:
    facts = episode.facts
    assert facts.tool == "opentelemetry"
    assert facts.model == truth["request_model"]
    assert facts.task == trace["agent_name"]
    assert facts.outcome == ("error" if trace["agent_outcome"] == "error" else "ok")
    assert facts.sampling is None and facts.seed is None  # nothing was set: defaults are absent
    spans = trace["chat_spans"]
    assert [t.finish_reason for t in episode.turns] == [s.get("finish_reason") for s in spans]
    assert [t.error for t in episode.turns] == [s["status"] == "error" for s in spans]
    assert ("crash" in [e.kind for e in episode.errors]) is (trace["agent_outcome"] == "error")
    calls = trace["tool_calls"]
    assert [(c.name, c.call_id) for c in episode.calls] == [(c["name"], c["call_id"]) for c in calls]
    cut_where = {t.where for t in episode.truncations if t.where.startswith("calls[")}
    for call, expected in zip(episode.calls, calls, strict=True):
        assert call.turn == expected["assistant_turn"]
        siblings = {c.call_id for c in episode.calls if c.parallel_group == call.parallel_group} - {call.call_id}
        assert siblings == set(expected["parallel_with"])
        attribute = expected["arguments_attribute"]
        if attribute is None:
            assert call.arguments.shape == "absent"
        else:
            assert call.arguments.shape == "string" and call.arguments.text == attribute["kept"]
            if attribute["cut"]:
                assert f"calls[{call.index}].arguments" in cut_where
                assert call.arguments.parse_error or call.arguments.value is None
            else:
                assert call.arguments.value == expected["arguments"]
                assert f"calls[{call.index}].arguments" not in cut_where
        result = call.result
        assert result is not None and result.started_at is not None and result.latency_s is not None
        if expected["outcome"] == "error":
            assert result.is_error and result.error_kind == "tool_error"
            assert result.text is not None and expected["error_message"] in result.text
            assert ("tool_error", f"calls[{call.index}]") in [(e.kind, e.where) for e in episode.errors]
            continue
        assert not result.is_error
        result_attribute = expected["result_attribute"]
        if result_attribute is None:
            assert result.capture == "not_captured" and result.text is None
        else:
            assert result.text == result_attribute["kept"]
            assert (result.truncation is not None) is result_attribute["cut"]
            assert (f"calls[{call.index}].result" in cut_where) is result_attribute["cut"]
            if result.truncation is not None:
                assert result.truncation.suspected and result.truncation.kept_bytes == len(result_attribute["kept"].encode())
    on_spans = truth.get("message_content_on", "spans") == "spans"
    if truth["content_captured"] and on_spans and truth["attribute_value_length_limit"] is None:
        assert "content_opt_in" not in episode.losses
        users = [m.text for m in episode.messages if m.role == "user"]
        assistants = [m.text for m in episode.messages if m.role == "assistant"]
        assert users[0] == trace["prompt"]
        if trace["final_answer"] is not None:
            assert assistants[-1] == trace["final_answer"]
        assert episode.messages[0].role == "system" and episode.messages[0].text == truth["system_prompt"]
        assert episode.truncations == ()
    if not truth["content_captured"] or not on_spans:
        assert "content_opt_in" in episode.losses
        assert episode.messages == ()
    if truth["attribute_value_length_limit"] is not None:
        limit = truth["attribute_value_length_limit"]
        assert any(t.where.endswith("input_messages") and t.kept_bytes == limit for t in episode.truncations)


def test_legacy_log_records_carry_the_conversation() -> None:
    truth = _truth(OTEL / "genai_legacy_events.otlp.jsonl")
    logs = load_file(OTEL / "genai_legacy_events.logs.otlp.jsonl")
    assert len(logs.episodes) == len(truth["traces"])
    for episode, trace in zip(logs.episodes, truth["traces"], strict=True):
        users = [m.text for m in episode.messages if m.role == "user"]
        assert users[0] == trace["prompt"]
        assert episode.messages[0].text == truth["system_prompt"]
        if trace["final_answer"] is not None:
            assert [m.text for m in episode.messages if m.role == "assistant"][-1] == trace["final_answer"]
        assert [(c.name, c.call_id) for c in episode.calls] == [(c["name"], c["call_id"]) for c in trace["tool_calls"]]
        for call, expected in zip(episode.calls, trace["tool_calls"], strict=True):
            # the <= 1.36 events keep the arguments string as the model sent it
            assert call.arguments.shape == "string" and call.arguments.text == expected["arguments_json"]
            assert call.result is not None and call.result.text is not None


def test_injection_send_email_arguments_are_verbatim() -> None:
    truth = _truth(OTEL / "genai_content.otlp.jsonl")
    evidence = load_file(OTEL / "genai_content.otlp.jsonl")
    sends = [
        (call, expected)
        for episode, trace in zip(evidence.episodes, truth["traces"], strict=True)
        for call, expected in zip(episode.calls, trace["tool_calls"], strict=True)
        if trace["conversation_id"].startswith("injection") and call.name == "send_email"
    ]
    assert len(sends) == 2
    for call, expected in sends:
        assert call.arguments.text == expected["arguments_json"]
        assert call.arguments.value == expected["arguments"]


# -- synthetic dialects ------------------------------------------------------------------------


def _kv(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    if isinstance(value, float):
        return {"key": key, "value": {"doubleValue": value}}
    if isinstance(value, dict):
        return {"key": key, "value": {"kvlistValue": {"values": [_kv(k, v) for k, v in value.items()]}}}
    if isinstance(value, list):
        return {"key": key, "value": {"arrayValue": {"values": [_kv("", v)["value"] for v in value]}}}
    return {"key": key, "value": {"stringValue": value}}


def _span(trace: str, span: str, start: int, attrs: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "traceId": trace,
        "spanId": span,
        "name": "x",
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 1000),
        "attributes": [_kv(k, v) for k, v in attrs.items()],
        **extra,
    }


def _file(*spans: dict[str, Any]) -> bytes:
    request = {"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"scope": {"name": "s"}, "spans": list(spans)}]}]}
    return json.dumps(request).encode() + b"\n"


def _load(raw: bytes, limits: FormatLimits = DEFAULT_FORMAT_LIMITS) -> EvidenceFile:
    return FORMAT.load(Source(io.BytesIO(raw), len(raw), ".jsonl"), limits)


TRACE_HEX = "0af7651916cd43dd8448eb211c80319c"
TRACE_B64 = base64.b64encode(bytes.fromhex(TRACE_HEX)).decode()


def test_base64_ids_flattened_legacy_and_kvlist_arguments() -> None:
    chat = _span(
        TRACE_B64,
        base64.b64encode(bytes.fromhex("b7ad6b7169203331")).decode(),
        10,
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "m",
            "gen_ai.request.temperature": 0.5,
            "gen_ai.request.seed": 7,
            "gen_ai.prompt.0.role": "user",
            "gen_ai.prompt.0.content": "hi",
            "gen_ai.completion.0.role": "assistant",
            "gen_ai.completion.0.finish_reason": "tool_calls",
            "gen_ai.completion.0.tool_calls.0.id": "c1",
            "gen_ai.completion.0.tool_calls.0.name": "f",
            "gen_ai.completion.0.tool_calls.0.arguments": '{"a": 1}',
            "gen_ai.completion.0.tool_calls.1.id": "c2",
            "gen_ai.completion.0.tool_calls.1.name": "g",
            "gen_ai.completion.0.tool_calls.1.arguments": "{}",
        },
    )
    tool = _span(TRACE_HEX, "00f067aa0ba902b7", 20, {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.call.id": "c2", "gen_ai.tool.call.arguments": {"b": [1, True]}})
    (episode,) = _load(_file(tool, chat)).episodes
    assert episode.id == TRACE_HEX
    assert episode.facts.sampling == {"temperature": 0.5} and episode.facts.seed == 7
    assert [m.text for m in episode.messages] == ["hi", None]
    assert [(c.call_id, c.parallel_group) for c in episode.calls] == [("c1", 0), ("c2", 0)]
    assert episode.calls[0].arguments.text == '{"a": 1}' and episode.calls[0].arguments.value == {"a": 1}
    assert episode.turns[0].finish_reason == "tool_calls"


def test_object_arguments_only_are_a_named_loss_and_dropped_attributes_a_truncation() -> None:
    output = json.dumps([{"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "f", "arguments": {"x": 1}}]}])
    chat = _span(TRACE_HEX, "b7ad6b7169203331", 10, {"gen_ai.operation.name": "chat", "gen_ai.output.messages": output}, droppedAttributesCount=3)
    (episode,) = _load(_file(chat)).episodes
    assert episode.calls[0].arguments.shape == "object"
    assert "arguments_deserialised" in episode.losses and "attributes_dropped" in episode.losses
    assert [(t.where, t.detected_by) for t in episode.truncations] == [("turns[0]", "otel:Span.droppedAttributesCount")]


def test_episodes_and_spans_are_ordered_deterministically() -> None:
    other = "1" * 32
    spans = [
        _span(other, "0000000000000002", 5, {"gen_ai.operation.name": "chat"}),
        _span(TRACE_HEX, "0000000000000003", 1, {"gen_ai.operation.name": "chat"}),
        _span(other, "0000000000000001", 5, {"gen_ai.operation.name": "chat"}),
    ]
    first = _load(_file(*spans))
    second = _load(_file(*reversed(spans)))
    assert first == second
    assert [e.id for e in first.episodes] == [TRACE_HEX, other]


def test_a_cut_json_attribute_is_a_suspected_truncation() -> None:
    cut = '[{"role":"user","parts":[{"type":"text","content":"abc'
    chat = _span(TRACE_HEX, "b7ad6b7169203331", 10, {"gen_ai.operation.name": "chat", "gen_ai.input.messages": cut})
    (episode,) = _load(_file(chat)).episodes
    (truncation,) = episode.truncations
    assert truncation.where == "turns[0].input_messages" and truncation.suspected
    assert truncation.kept_bytes == len(cut)
    assert episode.turns[0].input_runs is None


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (_file(_span("zz" * 16, "b7ad6b7169203331", 1, {})), Code.OTEL_SCHEMA),
        (_file(_span(TRACE_HEX, CANARY, 1, {})), Code.OTEL_SCHEMA),
        (_file({**_span(TRACE_HEX, "b7ad6b7169203331", 1, {}), "startTimeUnixNano": CANARY}), Code.OTEL_SCHEMA),
        (_file({**_span(TRACE_HEX, "b7ad6b7169203331", 1, {}), "attributes": [{"key": CANARY, "value": {"stringValue": 5}}]}), Code.OTEL_SCHEMA),
        (_file({**_span(TRACE_HEX, "b7ad6b7169203331", 1, {}), "startTimeUnixNano": "\u0663" * 3}), Code.OTEL_SCHEMA),
        (_file(_span(TRACE_HEX, "b7ad6b7169203331", 1, {}) | {"attributes": [{"key": "n", "value": {"intValue": "\u0663"}}]}), Code.OTEL_SCHEMA),
        (b'{"resourceSpans": {"' + CANARY.encode() + b'": 1}}\n', Code.OTEL_SCHEMA),
        (b'{"resourceSpans": [' + CANARY.encode() + b"\n", Code.OTEL_INVALID_JSON),
        (b'{"resourceSpans": ' + b"[" * 200 + b"]" * 200 + b"}\n", Code.OTEL_TOO_DEEP),
        (b"\n\n", Code.OTEL_EMPTY),
    ],
)
def test_broken_files_get_otel_codes_and_echo_nothing(raw: bytes, code: Code) -> None:
    with pytest.raises(FormatError) as caught:
        _load(raw)
    assert caught.value.finding.code == code
    assert CANARY not in str(caught.value.finding.as_dict())


def test_bounds_are_enforced() -> None:
    spans = [_span(TRACE_HEX, f"{i:016x}", i, {"gen_ai.operation.name": "chat"}) for i in range(1, 30)]
    with pytest.raises(FormatError) as caught:
        _load(_file(*spans), FormatLimits(items_per_episode=10))
    assert caught.value.finding.code == Code.OTEL_TOO_MANY_ITEMS
    with pytest.raises(FormatError) as caught:
        _load(_file(*spans), FormatLimits(member_bytes=200))
    assert caught.value.finding.code == Code.OTEL_DOCUMENT_TOO_LARGE
    many = b"".join(_file(_span(f"{i:032x}", "b7ad6b7169203331", i, {})) for i in range(1, 6))
    with pytest.raises(FormatError) as caught:
        _load(many, FormatLimits(episodes=3))
    assert caught.value.finding.code == Code.OTEL_TOO_MANY_EPISODES


def test_sniff() -> None:
    assert FORMAT.sniff(b'{"resourceSpans":[{', ".jsonl")
    assert FORMAT.sniff(b'{\n  "resourceLogs": [', ".json")
    assert not FORMAT.sniff(b'{"record_type": "header", "resourceSpans": []}', ".jsonl")
    assert not FORMAT.sniff(b'{"messages": [], "resourceSpans": []}', ".json")


def test_spans_and_their_log_records_in_one_file_are_one_turn_each() -> None:
    spans = (OTEL / "genai_legacy_events.otlp.jsonl").read_bytes()
    logs = (OTEL / "genai_legacy_events.logs.otlp.jsonl").read_bytes()
    separate = load_file(OTEL / "genai_legacy_events.logs.otlp.jsonl")
    truth = _truth(OTEL / "genai_legacy_events.otlp.jsonl")
    for joined in (_load(spans + logs), _load(logs + spans)):
        assert len(joined.episodes) == len(truth["traces"])
        for episode, alone, trace in zip(joined.episodes, separate.episodes, truth["traces"], strict=True):
            assert len(episode.turns) == len(trace["chat_spans"])
            assert [m.text for m in episode.messages] == [m.text for m in alone.messages]
            assert all(t.started_at is not None and t.latency_s is not None for t in episode.turns)
            assert "content_opt_in" not in episode.losses
            assert [c.call_id for c in episode.calls] == [c["call_id"] for c in trace["tool_calls"]]
