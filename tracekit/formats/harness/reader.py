"""OWASP harness traces as a trace format (docs/formats.md, "OWASP harness").

Detection looks at the harness's own envelope, never at a ``messages`` key alone: the top-level
object's first key is ``messages``, ``tool_calls`` or ``events`` (upstream's ``Trace.to_dict``
order), or at least two of the three are top-level lists; and it holds none of the keys
that mark another supported format's envelope (an Inspect log's ``eval``, an AgentDojo run's
``suite_name``, an OTLP request's ``resourceSpans``, a garak entry's ``entry_type``).

Loading is upstream's shape rules with tracekit's strict JSON bounds (tracekit/formats/harness/trace.py).
The format fixes only the three lists and a call's name and arguments; every other field is read
from the keys tracekit's audit vocabulary recognises (tracekit/formats/harness/view.py).
"""

from __future__ import annotations

import json
from typing import Any

from tracekit.formats import envelope
from tracekit.formats.base import FormatError, FormatLimits, Source
from tracekit.formats.harness.trace import Trace, parse_trace_document, tool_name
from tracekit.formats.harness.view import (
    ARGUMENT_KEYS,
    FINISH_KEYS,
    RAW_RESPONSE_KEYS,
    REQUEST_TYPES,
    RESPONSE_TYPES,
    RUN_KEYS,
    SCORER_KEYS,
    START_KEYS,
    TOOL_LIST_KEYS,
    TRUNCATION_FLAGS,
    HarnessView,
    Obj,
    first_key,
    scopes,
)
from tracekit.formats.truncation import FLAG, truncation_reason
from tracekit.kernel.episode_id import UNNAMED
from tracekit.kernel.errors import Code, TracekitError, finding
from tracekit.kernel.evidence import (
    Arguments,
    Episode,
    EvidenceFile,
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
from tracekit.kernel.jsonscan import depth_exceeds
from tracekit.kernel.limits import HARNESS_LIMITS

EPISODE_ID = UNNAMED
"""The id of a harness trace's one episode (a harness trace records one run)."""

NAME = "harness"
_LISTS = (b"messages", b"tool_calls", b"events")
_OTHER_ENVELOPES = (b"eval", b"samples", b"suite_name", b"resourceSpans", b"entry_type")
_ROLES: dict[str, Role] = {
    "system": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
    "developer": "developer",
}


class HarnessFormat:
    """OWASP harness ``{messages, tool_calls, events}`` JSON documents."""

    name = NAME

    def sniff(self, prefix: bytes, suffix: str) -> bool:
        keys = envelope.top_level(prefix)
        if not keys or any(key in keys for key in _OTHER_ENVELOPES):
            return False
        if envelope.first_key(keys) in _LISTS:
            return True
        return sum(envelope.is_list(keys.get(name, b"")) for name in _LISTS) >= 2

    def load(self, source: Source, limits: FormatLimits) -> EvidenceFile:
        if source.size > HARNESS_LIMITS.total_bytes:
            raise FormatError(
                finding(Code.HARNESS_TRACE_TOO_LARGE, limit=HARNESS_LIMITS.total_bytes)
            )
        source.handle.seek(0)
        data = source.handle.read(HARNESS_LIMITS.total_bytes + 1)
        try:
            document, trace = parse_trace_document(data, HARNESS_LIMITS)
        except TracekitError as error:
            raise FormatError(error.finding) from None
        items = len(trace.messages) + len(trace.tool_calls) + len(trace.events)
        if items > limits.items_per_episode:
            raise FormatError(
                finding(Code.HARNESS_FORMAT_TOO_MANY_ITEMS, limit=limits.items_per_episode)
            )
        return EvidenceFile(NAME, None, (_episode(document, trace),))


def _text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [b.get("text") for b in content if isinstance(b, dict)]
        texts = [p for p in parts if isinstance(p, str)]
        return "\n".join(texts) if texts else None
    return None


def _arguments(call: Obj) -> tuple[Arguments, str | None]:
    for key in ARGUMENT_KEYS:
        if key in call:
            value = call[key]
            if not isinstance(value, str):
                return Arguments("object", value=value), key
            # A string is kept verbatim; its parse is bounded like the document's (depth first).
            if depth_exceeds(value.encode("utf-8", "surrogatepass"), HARNESS_LIMITS.depth):
                return Arguments("string", text=value, parse_error=True), key
            try:
                parsed = json.loads(value)
            except (ValueError, RecursionError):
                return Arguments("string", text=value, parse_error=True), key
            return Arguments(
                "string", text=value, value=parsed if isinstance(parsed, dict) else None
            ), key
    return Arguments("absent"), None


def _number(call: Obj, key: str) -> float | None:
    value = call.get(key)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def _latency(call: Obj) -> float | None:
    """Seconds from the keys whose unit is in their name; ``latency`` (unit unknown) and
    ``ended_at`` (a time, not a duration) are not converted."""
    for key, scale in (("latency_ms", 1000.0), ("duration_ms", 1000.0), ("duration_seconds", 1.0)):
        value = _number(call, key)
        if value is not None:
            return value / scale
    return None


def _retries(call: Obj) -> int | None:
    for key in ("retries", "retry_count"):
        value = call.get(key)
        if type(value) is int and value >= 0:
            return value
    attempt = call.get("attempt")
    return attempt - 1 if type(attempt) is int and attempt >= 1 else None  # attempt 1 = 0 retries


def _truncation(call: Obj, payload: Any, where: str) -> Truncation | None:
    """A call-level flag, or the audit heuristics on the payload (docs/audit.md, "Failure
    modes": a flag is a record, a marker or a round width only a suspicion)."""
    if any(call.get(flag) is True for flag in TRUNCATION_FLAGS):
        return Truncation(where, "harness:tool_calls[].truncated")
    reason = truncation_reason(payload)
    if reason is None:
        return None
    if reason == FLAG:
        return Truncation(where, "harness:result.truncated")
    return Truncation(where, f"heuristic:{reason}", suspected=True)


def _result(call: Obj, found: tuple[str, Any] | None, where: str) -> ToolResult | None:
    if found is None:
        return None
    payload = found[1]
    error = call.get("error")
    start = next((call[k] for k in START_KEYS if isinstance(call.get(k), str)), None)
    return ToolResult(
        text=payload if isinstance(payload, str) else None,
        value=None if isinstance(payload, str) else payload,
        is_error=error not in (None, False, ""),
        error_kind="tool_error" if error not in (None, False, "") else None,
        started_at=start,
        latency_s=_latency(call),
        retries=_retries(call),
        truncation=_truncation(call, payload, where),
    )


def _run_value(view: HarnessView, keys: tuple[str, ...]) -> tuple[str, Any] | None:
    """(key, value) of a run-level field: events (and their ``data``) first, then the top level
    (docs/audit.md, "Tool-using agent traces")."""
    for event in view.trace.events:
        for scope in scopes(event):
            key = first_key(scope, keys)
            if key is not None:
                return key, scope[key]
    for top in (view.top.get("run"), view.top.get("metadata"), view.top):
        if isinstance(top, dict) and (key := first_key(top, keys)) is not None:
            return key, top[key]
    return None


def _text_fact(view: HarnessView, keys: tuple[str, ...]) -> str | None:
    found = _run_value(view, keys)
    return found[1] if found is not None and isinstance(found[1], str) else None


def _facts(view: HarnessView) -> RunFacts:
    sampling = _run_value(view, RUN_KEYS["sampling"])
    seed = _run_value(view, ("seed",))
    version = _run_value(view, ("model_version",))
    outcome = view.recorded_outcome()
    scorer = _text_fact(view, SCORER_KEYS)
    outcome_value = outcome[0] if outcome is not None else None
    return RunFacts(
        tool=NAME,
        model=_text_fact(view, ("model", "model_id", "model_version")),
        model_version=version[1] if version is not None and isinstance(version[1], str) else None,
        endpoint=_text_fact(view, RUN_KEYS["endpoint"]),
        sampling=None
        if sampling is None
        else sampling[1]
        if isinstance(sampling[1], dict)
        else {sampling[0]: sampling[1]},
        seed=seed[1] if seed is not None and type(seed[1]) is int else None,
        harness_revision=_text_fact(view, RUN_KEYS["harness_revision"]),
        tool_server_revision=_text_fact(view, RUN_KEYS["tool_server_revision"]),
        injection_point=_text_fact(view, RUN_KEYS["injection_point"]),
        outcome=outcome_value,
        scores=(Score(scorer, outcome_value),) if scorer is not None else (),
    )


def _turns(view: HarnessView) -> tuple[ModelTurn, ...]:
    """One turn per response event, in order, with the request event of the same rank."""
    requests = [e for _, e in view.events_of(REQUEST_TYPES)]
    turns = []
    for index, (_, event) in enumerate(view.events_of(RESPONSE_TYPES)):
        scope = next((s for s in scopes(event) if first_key(s, RAW_RESPONSE_KEYS)), event)
        raw_key = first_key(scope, RAW_RESPONSE_KEYS)
        raw = scope[raw_key] if raw_key is not None else None
        finish_key = next((k for s in scopes(event) if (k := first_key(s, FINISH_KEYS))), None)
        finish = event.get(finish_key) if finish_key is not None else None
        schemas, sent = None, None
        if index < len(requests):
            sent = _sent(requests[index], view.trace.messages)
            tools = next(
                (s[k] for s in scopes(requests[index]) if (k := first_key(s, TOOL_LIST_KEYS))),
                None,
            )
            if isinstance(tools, list):
                schemas = tuple(
                    ToolSchema(t["name"] if isinstance(t.get("name"), str) else "")
                    if isinstance(t, dict)
                    else ToolSchema("")
                    for t in tools
                )
        turns.append(
            ModelTurn(
                index=index,
                input_runs=None if sent is None else message_runs(sent),
                tool_schemas=schemas,
                raw_response=raw if isinstance(raw, str) or raw is None else _encode(raw),
                finish_reason=finish if isinstance(finish, str) else None,
                finish_reason_source="harness:events[].finish_reason"
                if isinstance(finish, str)
                else None,
            )
        )
    return tuple(turns)


def _sent(request: Obj, messages: list[Obj]) -> tuple[int, ...] | None:
    """Indices of ``messages`` a request event sent, when its ``messages`` list is, item for
    item, equal to the first messages of the trace (a copy, compared verbatim); else None."""
    for scope in scopes(request):
        copy = scope.get("messages")
        if (
            isinstance(copy, list)
            and copy
            and len(copy) <= len(messages)
            and all(a == b for a, b in zip(copy, messages, strict=False))
        ):
            return tuple(range(len(copy)))
    return None


def _encode(value: Any) -> str:
    import msgspec

    return msgspec.json.encode(value).decode("utf-8")


def _role(value: Any) -> Role:
    return _ROLES.get(value, "other") if isinstance(value, str) else "other"


def _episode(document: dict[str, Any], trace: Trace) -> Episode:
    view = HarnessView(document, trace)
    messages = tuple(
        Message(
            index=i,
            role=_role(m.get("role")),
            text=_text(m.get("content")),
            tool_call_id=m["tool_call_id"] if isinstance(m.get("tool_call_id"), str) else None,
        )
        for i, m in enumerate(trace.messages)
    )
    provenance = [Provenance("messages", "harness:messages")] if messages else []
    calls = []
    for i, (call, found) in enumerate(zip(trace.tool_calls, view.results(), strict=True)):
        arguments, key = _arguments(call)
        # turn -1: the harness format does not link calls to model turns (docs/formats.md).
        result = _result(call, found, f"calls[{i}].result")
        calls.append(ToolCall(i, -1, tool_name(call) or "", view.call_id(call), arguments, result))
        if key is not None:
            provenance.append(Provenance(f"calls[{i}].arguments", f"harness:tool_calls[].{key}"))
    if calls:
        provenance.append(Provenance("calls", "harness:tool_calls"))
    turns = _turns(view)
    if turns:
        provenance.append(Provenance("turns", "harness:events[type=response]"))
    facts = _facts(view)
    for name in (
        "model",
        "model_version",
        "endpoint",
        "sampling",
        "seed",
        "harness_revision",
        "tool_server_revision",
        "injection_point",
        "outcome",
    ):
        if getattr(facts, name) is not None:
            provenance.append(Provenance(f"facts.{name}", "harness:events[]|top_level"))
    return Episode(
        id=EPISODE_ID,
        facts=facts,
        messages=messages,
        turns=turns,
        calls=tuple(calls),
        truncations=tuple(c.result.truncation for c in calls if c.result and c.result.truncation),
        provenance=tuple(provenance),
        losses=() if turns else ("no_model_turns",),
    )


FORMAT = HarnessFormat()
