"""Guardrail spans (docs/formats.md, "OpenTelemetry GenAI", "Guardrail verdicts"): the span layout of
the GenAI security-guardian proposal (open-telemetry/semantic-conventions, model/gen-ai/spans.yaml,
``span.gen_ai.apply_guardrail.internal``), a guardian chained under a chat and a tool span."""

from __future__ import annotations

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
from tracekit.kernel.evidence import EvidenceFile, Score

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CANARY = "CANARY-otel-guardrail-do-not-echo"


def _kv(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _span(span: str, start: int, attrs: dict[str, Any], parent: str = "", **extra: Any) -> dict[str, Any]:
    return {
        "traceId": TRACE, "spanId": span, "parentSpanId": parent, "name": str(attrs.get("gen_ai.operation.name")),
        "kind": 1, "startTimeUnixNano": str(start), "endTimeUnixNano": str(start + 1000),
        "attributes": [_kv(k, v) for k, v in attrs.items()], **extra,
    }  # fmt: skip


def _guard(span: str, start: int, decision: Any, parent: str, **attrs: Any) -> dict[str, Any]:
    base = {"gen_ai.operation.name": "apply_guardrail", "gen_ai.guardian.name": "Azure Content Safety",
            "gen_ai.guardian.provider.name": "azure.ai.content_safety", "gen_ai.security.target.type": "llm_input",
            "gen_ai.security.decision.type": decision, **attrs}  # fmt: skip
    return _span(span, start, base, parent)


CHAT = "00f067aa0ba902b7"
TOOL = "00f067aa0ba902b8"


def _file(*spans: dict[str, Any]) -> bytes:
    chat = _span(CHAT, 10, {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o", "gen_ai.provider.name": "openai"})
    tool = _span(TOOL, 5000, {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "send_email", "gen_ai.tool.call.id": "c1"})
    request = {"resourceSpans": [{"resource": {"attributes": [_kv("service.name", "agent")]},
               "scopeSpans": [{"scope": {"name": "guardian", "version": "1.0.0"}, "spans": [chat, tool, *spans]}]}]}  # fmt: skip
    return json.dumps(request).encode() + b"\n"


def _load(raw: bytes, limits: FormatLimits = DEFAULT_FORMAT_LIMITS) -> EvidenceFile:
    return FORMAT.load(Source(io.BytesIO(raw), len(raw), ".jsonl"), limits)


def test_guardian_decisions_are_the_runs_own_verdicts() -> None:
    raw = _file(
        _guard("00f067aa0ba90201", 20, "allow", CHAT),
        _guard("00f067aa0ba90202", 30, "modify", CHAT, **{"gen_ai.security.decision.reason": "PII masked"}),
        _guard("00f067aa0ba90203", 5010, "deny", TOOL, **{"gen_ai.security.target.type": "tool_call", "gen_ai.guardian.name": "Tool Policy"}),
        _guard("00f067aa0ba90204", 5020, "audit", TOOL),
        _guard("00f067aa0ba90205", 5030, "warn", TOOL, **{"gen_ai.operation.name": "run_guardrail"}),
    )
    assert registry.accepting(raw, ".jsonl") == ("otel",)
    (episode,) = _load(raw).episodes
    assert episode.facts.scores == (
        Score("otel:guardrail:Azure Content Safety", "allow", passed=True),
        Score("otel:guardrail:Azure Content Safety", "modify", passed=False),
        Score("otel:guardrail:Tool Policy", "deny", passed=False),
        Score("otel:guardrail:Azure Content Safety", "audit", passed=None),
        Score("otel:guardrail:Azure Content Safety", "warn", passed=False),
    )
    assert all(s.attack_succeeded is None for s in episode.facts.scores)
    assert [c.name for c in episode.calls] == ["send_email"] and len(episode.turns) == 1
    assert any(p.field == "facts.scores" for p in episode.provenance)


def test_a_trace_without_guardians_has_no_scores() -> None:
    (episode,) = _load(_file()).episodes
    assert episode.facts.scores == ()
    assert not any(p.field == "facts.scores" for p in episode.provenance)


@pytest.mark.parametrize("decision", [CANARY, 3, None, ["deny"]])
def test_an_unknown_or_missing_decision_gives_no_reading(decision: Any) -> None:
    guard = _guard("00f067aa0ba90201", 20, "x", CHAT)
    guard["attributes"] = [a for a in guard["attributes"] if a["key"] != "gen_ai.security.decision.type"]
    if decision is not None:
        guard["attributes"].append(_kv("gen_ai.security.decision.type", decision) if not isinstance(decision, list)
                                   else {"key": "gen_ai.security.decision.type", "value": {"arrayValue": {"values": [{"stringValue": "deny"}]}}})  # fmt: skip
    ((score,),) = [e.facts.scores for e in _load(_file(guard)).episodes]
    assert (score.value, score.passed, score.attack_succeeded) == (None, None, None)


def test_a_guardian_span_that_failed_gives_no_reading() -> None:
    guard = _guard("00f067aa0ba90201", 20, "deny", CHAT, **{"error.type": "timeout"})
    guard["status"] = {"code": 2, "message": "guardian unreachable"}
    ((score,),) = [e.facts.scores for e in _load(_file(guard)).episodes]
    assert (score.value, score.passed) == ("deny", None)


def test_unnamed_guardians_and_many_guardians_stay_bounded() -> None:
    many = [_span(f"{i:016x}", 100 + i, {"gen_ai.operation.name": "apply_guardrail", "gen_ai.security.decision.type": "allow"}, CHAT) for i in range(1, 60)]
    ((first, *rest),) = [e.facts.scores for e in _load(_file(*many)).episodes]
    assert first.scorer == "otel:guardrail" and len(rest) == 58
    with pytest.raises(FormatError) as caught:  # every span is charged while decoding, guardians too
        _load(_file(*many), FormatLimits(items_per_episode=20))
    assert caught.value.finding.code == Code.OTEL_TOO_MANY_ITEMS


GUARDRAIL_RUN = Path(__file__).resolve().parents[3] / "corpus" / "third_party" / "otel" / "guardrail"


def test_the_proposals_own_prototype_run_reads_with_its_decisions() -> None:
    """apply_guardrail.sdk.json: the security-guardian prototype run under the OTel Python SDK
    (corpus/third_party/otel/guardrail/SOURCES); the truth is taken from the prototype's source."""
    path = GUARDRAIL_RUN / "apply_guardrail.sdk.json"
    truth = json.loads((GUARDRAIL_RUN / "apply_guardrail.sdk.expected.json").read_text())["traces"]
    assert registry.accepting(path.read_bytes()[:65536], ".json") == ("otel",)
    episodes = load_file(path).episodes
    assert len(episodes) == len(truth)
    reading = {"allow": True, "deny": False, "modify": False, "warn": False}
    for episode, want in zip(episodes, truth, strict=True):
        assert [(s.scorer, s.value, s.passed) for s in episode.facts.scores] == [
            (f"otel:guardrail:{name}", decision, reading[decision]) for name, decision in want["guardians"]
        ]
        assert all(s.attack_succeeded is None for s in episode.facts.scores)
        if want["protects"] == "chat":  # the guardian's parent: one model turn, no tool call
            assert (len(episode.turns), len(episode.calls)) == (1, 0)
        else:
            assert (len(episode.turns), len(episode.calls)) == (0, 1)
