"""OpenTelemetry GenAI traces as the collector's file exporter writes them: JSON lines, each an
OTLP ``ExportTraceServiceRequest`` (docs/formats.md, "OpenTelemetry GenAI").

One episode per trace id, gathered across lines; spans in start-time order, then by span id.
Inference spans (``chat``, ``text_completion``, ``generate_content``) are model turns;
``execute_tool`` spans are tool calls, linked to the turn whose output asked for them by
``gen_ai.tool.call.id``. Content capture is opt-in in OTel: a span without content is
``not_captured``, not missing. Values cut by ``OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`` are reported as
suspected truncation where the cut shows (docs/formats.md, "OpenTelemetry GenAI", step 6).
"""

from __future__ import annotations

import re
from typing import Any

from tracekit.formats import otel_vercel as vercel
from tracekit.formats.base import FormatError, FormatLimits, Source
from tracekit.formats.jsoninput import Budget, Codes, iter_lines, read_document
from tracekit.formats.otel_content import json_value
from tracekit.formats.otel_episode import CONTENT_KEYS, EpisodeBuilder
from tracekit.formats.otel_guardrail import guardrail_scores
from tracekit.formats.otel_openinference import normalise
from tracekit.formats.otel_sdk import sdk_spans_of
from tracekit.formats.otel_spans import Span, log_spans_of, spans_of
from tracekit.kernel.errors import Code
from tracekit.kernel.evidence import Episode, EpisodeError, EvidenceFile, Provenance, RunFacts

CODES = Codes.of("otel")

_ENVELOPE = re.compile(rb'\A\s*\{\s*"resource(?:Spans|Logs)"\s*:\s*\[')
# The OTel SDK's ReadableSpan.to_json() spans gathered in {"spans": [...]} (docs/formats.md,
# "OpenTelemetry GenAI", "SDK span lists"): the first span's context names its trace id.
_SDK_LIST = re.compile(rb'\A\s*\{\s*"spans"\s*:\s*\[\s*\{')
_SDK_CONTEXT = re.compile(rb'"context"\s*:\s*\{\s*"trace_id"\s*:')


class OtelFormat:
    """OTLP/JSON trace export with GenAI semantic conventions."""

    name = "otel"

    def sniff(self, prefix: bytes, suffix: str) -> bool:
        """An object whose first key is ``resourceSpans`` (or ``resourceLogs``) holding a list;
        or ``spans`` holding SDK spans (a ``context`` with a ``trace_id``)."""
        if _ENVELOPE.match(prefix):
            return True
        return bool(_SDK_LIST.match(prefix)) and bool(_SDK_CONTEXT.search(prefix, 0, 4096))

    def load(self, source: Source, limits: FormatLimits) -> EvidenceFile:
        """Every trace of the file, one episode each."""
        spans = _read(source, limits)
        for span in spans:
            normalise(span, limits.items_per_episode)
            vercel.normalise(span, limits)
        budget = Budget(limits, CODES)
        traces: dict[str, list[Span]] = {}
        for span in _merge_log_records(spans):
            traces.setdefault(span.trace_id, []).append(span)
        budget.episodes(len(traces))
        flagged = _cut_lengths(spans, limits)
        ordered = sorted(traces.items(), key=lambda kv: (min(s.start or 0 for s in kv[1]), kv[0]))
        episodes = tuple(_episode(ident, group, limits, flagged) for ident, group in ordered)
        return EvidenceFile("otel", None, episodes)


def _one_document(head: bytes) -> bool:
    """Whether the file is one JSON document over many lines rather than JSON lines: its first
    line (within ``head``) leaves a bracket open (docs/formats.md, "OpenTelemetry GenAI", step 1).
    A first line longer than ``head`` is a JSON line."""
    head = head.lstrip()
    end = head.find(b"\n")
    if end < 0:
        return False
    first = head[:end]
    if b"\\" in first:
        first = first.replace(b"\\\\", b"").replace(b'\\"', b"")
    outside = b"".join(first.split(b'"')[0::2])
    return outside.count(b"{") + outside.count(b"[") > outside.count(b"}") + outside.count(b"]")


def _read(source: Source, limits: FormatLimits) -> list[Span]:
    """Every span of the file: one document over many lines, or JSON lines (step 1). A first
    line that is not JSON by itself in a file of several lines is read as one document."""
    source.handle.seek(0)
    if _one_document(source.handle.read(4096)):
        return _decode(read_document(source, limits, CODES), 1, Budget(limits, CODES))
    spans: list[Span] = []
    budget = Budget(limits, CODES)
    try:
        for number, document in iter_lines(source, limits, CODES):
            spans.extend(_decode(document, number, budget))
    except FormatError as error:
        if error.finding.code is not Code.OTEL_INVALID_JSON or error.finding.line != 1:
            raise
        try:
            return _decode(read_document(source, limits, CODES), 1, Budget(limits, CODES))
        except FormatError:
            raise error from None
    return spans


COMMON_LIMITS = frozenset({128, 256, 512, 1000, 1024, 2048, 4095, 4096, 8192, 10000, 16384, 32768, 65536})
_MIN_CUT = 16
_SAME_LENGTH = 3


def _merge_log_records(spans: list[Span]) -> list[Span]:
    """Log records of a span that is in the file too become that span's events (a collector
    may write both signals to one file; docs/formats.md, "OpenTelemetry GenAI", step 2)."""
    real = {(s.trace_id, s.span_id): s for s in spans if not s.from_logs}
    kept: list[Span] = []
    for span in spans:
        owner = real.get((span.trace_id, span.span_id)) if span.from_logs else None
        if owner is None:
            kept.append(span)
        else:
            owner.events.extend(span.events)
    return kept


def _decode(document: Any, line: int, budget: Budget) -> list[Span]:
    if isinstance(document, dict) and "resourceLogs" in document:
        return log_spans_of(document, line, CODES, budget)
    if isinstance(document, dict) and "spans" in document and "resourceSpans" not in document:
        return sdk_spans_of(document, line, CODES, budget)
    return spans_of(document, line, CODES, budget)


def _cut_lengths(spans: list[Span], limits: FormatLimits) -> int | None:
    """The length (in characters) at which content strings look cut, or None: the longest
    values share one length (three distinct values, or two when one is JSON that no longer
    parses), or that length is a common limit
    (docs/formats.md, "OpenTelemetry GenAI", step 6)."""
    values = {v for s in spans for k, v in s.attributes.items() if k in CONTENT_KEYS and isinstance(v, str)}
    if not values:
        return None
    longest = max(len(v) for v in values)
    if longest < _MIN_CUT:
        return None
    at_limit = [v for v in values if len(v) == longest]
    broken = any(json_value(v, limits)[1] for v in at_limit if v[:1] in ("[", "{"))
    if len(at_limit) >= _SAME_LENGTH or (len(at_limit) >= 2 and broken) or longest in COMMON_LIMITS:
        return longest
    return None


def _operation(span: Span) -> str | None:
    value = span.attributes.get("gen_ai.operation.name")
    return value if isinstance(value, str) else None


def _episode(ident: str, spans: list[Span], limits: FormatLimits, cut_at: int | None) -> Episode:
    spans.sort(key=lambda s: (s.start or 0, s.span_id))
    builder = EpisodeBuilder(limits, cut_at)
    for span in spans:
        operation = _operation(span)
        builder.system_from(span)
        if operation in ("chat", "text_completion", "generate_content") or span.from_logs:
            builder.turn(span)
        elif operation == "execute_tool":
            builder.tool(span)
        builder.dropped(span)
    builder.attach_message_results()
    calls = builder.final_calls()
    if not any(c.arguments.shape == "object" for c in calls) and "arguments_deserialised" in builder.losses:
        builder.losses.remove("arguments_deserialised")
    return Episode(
        id=ident,
        facts=_facts(spans, builder),
        messages=tuple(builder.messages),
        turns=tuple(builder.turns),
        calls=calls,
        errors=tuple(builder.errors) + _agent_errors(spans),
        truncations=tuple(builder.truncations),
        provenance=tuple(builder.provenance),
        losses=tuple(builder.losses),
    )


def _agent_errors(spans: list[Span]) -> tuple[EpisodeError, ...]:
    return tuple(EpisodeError("crash") for s in spans if _operation(s) == "invoke_agent" and s.error)[:1]


_SAMPLING = ("temperature", "top_p", "top_k", "max_tokens", "stop_sequences", "frequency_penalty", "presence_penalty", "choice.count")


def _facts(spans: list[Span], builder: EpisodeBuilder) -> RunFacts:
    genai = [s for s in spans if _operation(s) is not None]
    inference = [s for s in genai if _operation(s) in ("chat", "text_completion", "generate_content")]
    first = inference[0].attributes if inference else (genai[0].attributes if genai else {})
    resource = spans[0].resource if spans else {}

    def pick(attrs: dict[str, Any], key: str, field: str) -> str | None:
        value = attrs.get(key)
        if isinstance(value, str):
            builder.provenance.append(Provenance(field, f"otel:span.attributes.{key}"))
            return value
        return None

    sampling = {k: first[f"gen_ai.request.{k}"] for k in _SAMPLING if f"gen_ai.request.{k}" in first}
    if sampling:
        builder.provenance.append(Provenance("facts.sampling", "otel:span.attributes.gen_ai.request.*"))
    seed = first.get("gen_ai.request.seed")
    if isinstance(seed, int) and not isinstance(seed, bool):
        builder.provenance.append(Provenance("facts.seed", "otel:span.attributes.gen_ai.request.seed"))
    agent = [s for s in genai if _operation(s) == "invoke_agent"]
    version = next((s.scope_version for s in genai if s.scope_version), None)
    if version:
        builder.provenance.append(Provenance("facts.tool_version", "otel:InstrumentationScope.version"))
    return RunFacts(
        tool="opentelemetry",
        tool_version=version,
        model=pick(first, "gen_ai.request.model", "facts.model"),
        model_version=pick(first, "gen_ai.response.model", "facts.model_version"),
        endpoint=pick(first, "server.address", "facts.endpoint"),
        sampling=sampling or None,
        seed=seed if isinstance(seed, int) and not isinstance(seed, bool) else None,
        harness_revision=pick(resource, "service.version", "facts.harness_revision"),
        task=pick(agent[0].attributes, "gen_ai.agent.name", "facts.task") if agent else None,
        outcome=("error" if any(s.error for s in agent) else "ok") if agent else None,
        scores=guardrail_scores(genai, builder.provenance),
    )


FORMAT = OtelFormat()
