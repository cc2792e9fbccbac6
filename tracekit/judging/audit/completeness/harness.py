"""The completeness profile of a tool-using agent trace: the evidentiary unit of a red-team run.

Per step: the messages as sent (system prompt and tool schemas included), the raw model response
and its finish reason, each tool call's name and verbatim typed arguments, and the result handed
back with its order, start time, latency, error and retry. Per run: the endpoint and model
version, sampling settings and seed, the harness revision, the tool-server revision, the
injection point, and the outcome with the name of the scorer that decided it (docs/audit.md).

Applies to OWASP harness traces; importers of other tool-using formats reuse it through the
registry by producing a :class:`~tracekit.formats.harness.view.HarnessView`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from tracekit.formats.harness.view import (
    ARGUMENT_KEYS,
    ERROR_KEYS,
    FINISH_KEYS,
    LATENCY_KEYS,
    ORDER_KEYS,
    RAW_RESPONSE_KEYS,
    REQUEST_TYPES,
    RESPONSE_TYPES,
    RETRY_KEYS,
    RUN_KEYS,
    START_KEYS,
    TOOL_LIST_KEYS,
    HarnessView,
    first_key,
    scopes,
)
from tracekit.judging.audit.completeness.base import FieldSpec, by_name, indexed
from tracekit.judging.audit.model import FieldStatus

FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("system_prompt", True, "The system prompt in force."),
    FieldSpec("messages_as_sent", True, "The full message list sent to the model, per call."),
    FieldSpec("tool_schemas", True, "The tool descriptions offered to the model."),
    FieldSpec("raw_model_response", True, "The model's response as returned, per call."),
    FieldSpec("finish_reason", False, "Why each response ended (tool_calls, stop, length)."),
    FieldSpec("tool_name", True, "Each tool call's name."),
    FieldSpec("tool_arguments", True, "Each call's verbatim arguments, as a typed object."),
    FieldSpec("tool_call_id", False, "A unique id per call (tells parallel calls apart)."),
    FieldSpec("tool_result", True, "The result payload handed back to the agent, per call."),
    FieldSpec("call_order", False, "An explicit order (sequence or start time) per call."),
    FieldSpec("start_time", False, "When each call started."),
    FieldSpec("latency", False, "How long each call took."),
    FieldSpec("error_and_retry", False, "Each call's error (or null) and attempt number."),
    FieldSpec("endpoint", False, "The endpoint under test."),
    FieldSpec("model_version", True, "The model version under test."),
    FieldSpec("sampling", True, "Sampling settings (temperature, top_p, ...)."),
    FieldSpec("seed", True, "The sampling seed."),
    FieldSpec("harness_revision", True, "The red-team harness revision."),
    FieldSpec("tool_server_revision", True, "The environment or tool-server revision."),
    FieldSpec("injection_point", True, "Which channel carried the attack input."),
    FieldSpec("outcome", True, "The recorded outcome."),
    FieldSpec("scorer", True, "The scorer or detector that decided the outcome."),
    FieldSpec("integrity", False, "Hashes or signatures over the record."),
)
_F = by_name(FIELDS)



def _step_rows(view: HarnessView) -> list[FieldStatus]:
    messages, rows = view.trace.messages, []
    requests = view.events_of(REQUEST_TYPES)
    sent = [(i, s) for i, e in requests for s in scopes(e) if isinstance(s.get("messages"), list)]
    system = [j for j, m in enumerate(messages) if m.get("role") == "system"]
    system_sent = [
        i
        for i, s in sent
        if any(isinstance(m, dict) and m.get("role") == "system" for m in s["messages"])
    ]
    if system:
        rows.append(_F["system_prompt"].row("present", indexed("messages", system)))
    elif system_sent:
        rows.append(
            _F["system_prompt"].row("present", indexed("events", system_sent) + ".messages")
        )
    else:
        rows.append(_F["system_prompt"].row("missing", "messages (no system role)"))
    if sent:
        rows.append(
            _F["messages_as_sent"].row(
                "present", indexed("events", [i for i, _ in sent]) + ".messages"
            )
        )
    else:
        rows.append(
            _F["messages_as_sent"].row(
                "partial" if messages else "missing",
                "messages (a transcript, not the request per call)"
                if messages
                else "events (no request event)",
            )
        )
    return rows + _response_rows(view)


def _response_rows(view: HarnessView) -> list[FieldStatus]:
    """Tool schemas offered, raw responses and finish reasons."""
    messages, rows = view.trace.messages, []
    schemas = [
        i
        for i, e in enumerate(view.trace.events)
        for s in scopes(e)
        if first_key(s, TOOL_LIST_KEYS) is not None
    ]
    if schemas:
        rows.append(_F["tool_schemas"].row("present", indexed("events", schemas) + ".tools"))
    elif first_key(view.top, TOOL_LIST_KEYS) is not None:
        rows.append(
            _F["tool_schemas"].row("partial", "top_level.tools (dropped by the harness loader)")
        )
    else:
        rows.append(_F["tool_schemas"].row("missing", "events (no tools list)"))
    responses = view.events_of(RESPONSE_TYPES)
    raw = [i for i, e in responses if any(first_key(s, RAW_RESPONSE_KEYS) for s in scopes(e))]
    if responses:
        rows.append(
            _F["raw_model_response"].count(len(raw), len(responses), indexed("events", raw))
        )
    else:
        rows.append(_F["raw_model_response"].row("missing", "events (no response event)"))
    finishing = [(f"events[{i}]", e) for i, e in responses] or [
        (f"messages[{j}]", m) for j, m in enumerate(messages) if m.get("role") == "assistant"
    ]
    ended = [where for where, e in finishing if any(first_key(s, FINISH_KEYS) for s in scopes(e))]
    rows.append(
        _F["finish_reason"].count(
            len(ended),
            max(len(finishing), 1),
            (ended[0] if ended else "responses") + ".finish_reason",
        )
    )
    return rows


def _count_calls(name: str, ok: list[bool], key: str) -> FieldStatus:
    lacking = [i for i, good in enumerate(ok) if not good]
    where = indexed("tool_calls", lacking or list(range(len(ok)))) + f".{key}"
    return _F[name].count(
        len(ok) - len(lacking), len(ok), where if ok else "tool_calls (none recorded)"
    )


def _call_rows(view: HarnessView) -> list[FieldStatus]:
    from tracekit.formats.harness.trace import tool_name

    calls = view.calls
    rows = [
        _count_calls("tool_name", [tool_name(c) is not None for c in calls], "name"),
        _count_calls(
            "tool_arguments",
            [any(isinstance(c.get(k), dict) for k in ARGUMENT_KEYS) for c in calls],
            "arguments",
        ),
    ]
    ids = [view.call_id(c) for c in calls]
    repeated = {cid for cid, n in Counter(i for i in ids if i is not None).items() if n > 1}
    ids_ok = [cid is not None and cid not in repeated for cid in ids]
    rows.append(_count_calls("tool_call_id", ids_ok, "id"))
    results = view.results()
    rows.append(_count_calls("tool_result", [r is not None for r in results], "result"))
    ordered = [first_key(c, ORDER_KEYS + START_KEYS) is not None for c in calls]
    if len(calls) > 1 and not any(ordered):
        rows.append(_F["call_order"].row("partial", "tool_calls (list position only)"))
    else:
        rows.append(_count_calls("call_order", ordered, "sequence"))
    rows.append(
        _count_calls(
            "start_time", [first_key(c, START_KEYS) is not None for c in calls], "started_at"
        )
    )
    rows.append(
        _count_calls(
            "latency", [first_key(c, LATENCY_KEYS) is not None for c in calls], "latency_ms"
        )
    )
    rows.append(
        _count_calls(
            "error_and_retry",
            [
                first_key(c, ERROR_KEYS, allow_null=True) is not None
                and first_key(c, RETRY_KEYS) is not None
                for c in calls
            ],
            "error/attempt",
        )
    )
    return rows


def _run_rows(view: HarnessView) -> list[FieldStatus]:
    rows = []
    for name in ("endpoint", "model_version", "sampling", "seed", "harness_revision"):
        found = view.run_field(RUN_KEYS[name])
        rows.append(
            _F[name].row(*found)
            if found
            else _F[name].row("missing", f"events[*].{RUN_KEYS[name][0]}")
        )
    mcp = [c for c in view.calls if "mcp_server_id" in c]
    found = view.run_field(RUN_KEYS["tool_server_revision"])
    if found is None and mcp:
        versioned = [
            i
            for i, c in enumerate(view.calls)
            if "mcp_server_id" in c and first_key(c, ("mcp_server_version",))
        ]
        rows.append(
            _F["tool_server_revision"].count(
                len(versioned), len(mcp), "tool_calls[*].mcp_server_version"
            )
        )
    else:
        rows.append(
            _F["tool_server_revision"].row(*found)
            if found
            else _F["tool_server_revision"].row("missing", "events[*].tool_server_revision")
        )
    found = view.run_field(RUN_KEYS["injection_point"])
    untrusted = view.events_of(frozenset({"untrusted_context_received"}))
    if found is None and untrusted:
        # An untrusted-context event shows an injection arrived; only its source names the
        # channel, so an event without one is partial, never missing.
        sourceless = [i for i, e in untrusted if first_key(e, ("source",)) is None]
        rows.append(
            _F["injection_point"].row(
                "partial" if sourceless else "present",
                indexed("events", sourceless or [i for i, _ in untrusted]) + ".source",
            )
        )
    else:
        rows.append(
            _F["injection_point"].row(*found)
            if found
            else _F["injection_point"].row("missing", "events[*].injection_point")
        )
    outcome = view.recorded_outcome()
    rows.append(
        _F["outcome"].row("present", outcome[1])
        if outcome
        else _F["outcome"].row("missing", "events (no outcome event)")
    )
    found = view.run_field(RUN_KEYS["scorer"])
    rows.append(
        _F["scorer"].row(*found) if found else _F["scorer"].row("missing", "events[*].scorer")
    )
    rows.append(_F["integrity"].row("not_carried", "file (the harness format has no hashes)"))
    return rows


class HarnessProfile:
    """The tool-using agent trace profile (registered as ``harness``)."""

    format = "harness"
    fields = FIELDS

    def assess(self, subject: Any) -> tuple[FieldStatus, ...]:
        """Rows for a :class:`HarnessView`, in :data:`FIELDS` order."""
        assert isinstance(subject, HarnessView)
        return (*_step_rows(subject), *_call_rows(subject), *_run_rows(subject))


PROFILE = HarnessProfile()
