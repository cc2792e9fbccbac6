"""Completeness of one imported episode: the tool-using agent profile over the evidence model
(docs/audit.md, "Tool-using agent traces"; docs/formats.md, "Completeness per episode").

Pure: takes an :class:`~tracekit.kernel.evidence.Episode` and the format's name. Field names are the
harness profile's (seed 003's E1-E4, R1-R6 and P), plus ``results_untruncated`` (T) and
``arguments_typed`` (S). A gap the format's exporter cannot avoid is never the operator's fault:
a field the format has nowhere to put is ``not_carried``, and a known loss that applies to this
episode makes the field ``partial`` with the loss named (``raw_call_sampled``, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from tracekit.judging.audit.completeness.base import FieldSpec, by_name, indexed
from tracekit.judging.audit.completeness.harness import FIELDS as HARNESS_FIELDS
from tracekit.judging.audit.model import FieldStatus
from tracekit.kernel.evidence import Episode, Status, ToolCall

FIELDS: tuple[FieldSpec, ...] = (
    *HARNESS_FIELDS[:-1],
    FieldSpec("results_untruncated", True, "Every result whole, as the tool returned it (T)."),
    FieldSpec(
        "arguments_typed", True, "Arguments in their original types, not pre-stringified (S)."
    ),
    HARNESS_FIELDS[-1],
)
_F = by_name(FIELDS)

NOT_CARRIED: dict[str, dict[str, str]] = {
    "inspect": {
        "tool_server_revision": "inspect records the sandbox config only",
        "injection_point": "inspect has no injection field",
        "error_and_retry": "inspect records tool errors, no per-call retry count",
    },
    "agentguard": {
        name: "process_level_only"
        for name in (
            "system_prompt",
            "messages_as_sent",
            "tool_schemas",
            "raw_model_response",
            "finish_reason",
            "sampling",
            "seed",
            "tool_server_revision",
            "injection_point",
            "endpoint",
            "scorer",
        )
    },
    "otel": {
        "harness_revision": "otel has service.version only",
        "injection_point": "otel has no injection field",
        "tool_server_revision": "otel has MCP attributes only",
    },
    "agentdojo": {
        "raw_model_response": "agentdojo keeps no raw response",
        "finish_reason": "agentdojo keeps no finish reason",
        "tool_schemas": "agentdojo keeps no tool schemas",
        "start_time": "agentdojo has per-file duration only",
        "latency": "agentdojo has per-file duration only",
        "sampling": "agentdojo records no sampling",
        "seed": "agentdojo records no seed",
        "endpoint": "agentdojo records the pipeline name only",
    },
    "garak": {
        name: "text_only"
        for name in (
            "tool_schemas",
            "tool_name",
            "tool_arguments",
            "tool_call_id",
            "tool_result",
            "call_order",
            "start_time",
            "latency",
            "error_and_retry",
            "tool_server_revision",
            "results_untruncated",
            "arguments_typed",
            "finish_reason",
            "raw_model_response",
        )
    },
    "claude_code": {
        name: "claude_code records the conversation, not the requests"
        for name in (
            "system_prompt",
            "messages_as_sent",
            "tool_schemas",
            "raw_model_response",
            "sampling",
            "seed",
            "endpoint",
            "harness_revision",
            "tool_server_revision",
            "injection_point",
            "outcome",
            "scorer",
        )
    },
    "codex": {
        name: "codex records the history, not the requests"
        for name in (
            "messages_as_sent",
            "tool_schemas",
            "raw_model_response",
            "finish_reason",
            "seed",
            "endpoint",
            "harness_revision",
            "tool_server_revision",
            "injection_point",
            "outcome",
            "scorer",
        )
    },
    "atif": {
        name: "atif records steps, not requests, timing or verdicts"
        for name in (
            "messages_as_sent",
            "raw_model_response",
            "finish_reason",
            "start_time",
            "latency",
            "error_and_retry",
            "sampling",
            "seed",
            "endpoint",
            "tool_server_revision",
            "injection_point",
            "outcome",
            "scorer",
        )
    },
}
"""Per format: fields its exporter has nowhere to put, with the reason shown in ``where``
(docs/formats.md, "What each format cannot carry")."""

LOSS_FIELDS: dict[str, tuple[str, ...]] = {
    "raw_call_sampled": ("raw_model_response",),
    "result_cut_16k": ("results_untruncated",),
    "content_opt_in": ("messages_as_sent", "tool_arguments", "tool_result"),
    "arguments_deserialised": ("arguments_typed",),
    "results_stringified": ("tool_result",),
    "text_only": ("tool_name", "tool_arguments", "tool_result"),
    "process_level_only": ("tool_name", "tool_arguments", "tool_result"),
    "context_compacted": ("messages_as_sent",),
}
"""Which fields each named loss (evidence.py, ``Episode.losses``) can leave incomplete."""


def _calls(
    field: str, calls: Sequence[ToolCall], ok: Callable[[ToolCall], bool], what: str
) -> FieldStatus:
    lacking = [c.index for c in calls if not ok(c)]
    where = indexed("calls", lacking) + f" ({what})" if lacking else "calls"
    return _F[field].count(len(calls) - len(lacking), len(calls), where)


def _turns(field: str, episode: Episode, ok: Callable[[int], bool], what: str) -> FieldStatus:
    turns = episode.turns
    if not turns:
        return _F[field].row("missing", "turns (no model turn recorded)")
    lacking = [t.index for t in turns if not ok(t.index)]
    where = indexed("turns", lacking) + f" ({what})" if lacking else "turns"
    return _F[field].count(len(turns) - len(lacking), len(turns), where)


def _fact(field: str, value: object, where: str) -> FieldStatus:
    if value is None or value == "" or value == {}:
        return _F[field].row("missing", where)
    return _F[field].row("present", where)


def _step_rows(ep: Episode) -> list[FieldStatus]:
    system = [m.index for m in ep.messages if m.role == "system"]
    rows = [
        _F["system_prompt"].row("present", indexed("messages", system))
        if system
        else _F["system_prompt"].row("missing", "messages (no system role)"),
    ]
    if ep.turns:
        rows.append(
            _turns(
                "messages_as_sent",
                ep,
                lambda i: ep.turns[i].input_runs is not None,
                "input not recorded",
            )
        )
    else:
        status: Status = "partial" if ep.messages else "missing"
        rows.append(_F["messages_as_sent"].row(status, "messages (a transcript, no model turns)"))
    rows.append(
        _turns("tool_schemas", ep, lambda i: ep.turns[i].tool_schemas is not None, "no tools")
    )
    rows.append(
        _turns(
            "raw_model_response", ep, lambda i: ep.turns[i].raw_response is not None, "no raw call"
        )
    )
    rows.append(
        _turns("finish_reason", ep, lambda i: ep.turns[i].finish_reason is not None, "none")
    )
    return rows


def _unique_ids(calls: Sequence[ToolCall]) -> Callable[[ToolCall], bool]:
    ids = [c.call_id for c in calls if c.call_id is not None]
    dup = {i for i in ids if ids.count(i) > 1} if len(ids) <= 10_000 else set(ids)
    return lambda c: c.call_id is not None and c.call_id not in dup


def _call_rows(ep: Episode) -> list[FieldStatus]:
    calls = ep.calls

    def has_result(c: ToolCall) -> bool:
        return c.result is not None and (c.result.text is not None or c.result.value is not None)

    return [
        _calls("tool_name", calls, lambda c: c.name != "", "unnamed"),
        _calls("tool_arguments", calls, lambda c: c.arguments.shape != "absent", "absent"),
        _calls("tool_call_id", calls, _unique_ids(calls), "absent or repeated"),
        _calls("tool_result", calls, has_result, "no result recorded"),
        _calls(
            "call_order",
            calls,
            lambda c: c.result is not None and c.result.started_at is not None,
            "list position only",
        ),
        _calls(
            "start_time",
            calls,
            lambda c: c.result is not None and c.result.started_at is not None,
            "none",
        ),
        _calls(
            "latency",
            calls,
            lambda c: c.result is not None and c.result.latency_s is not None,
            "none",
        ),
        _error_and_retry(calls),
    ]


def _error_and_retry(calls: Sequence[ToolCall]) -> FieldStatus:
    """Present when every call's result records its error state and attempt count; partial
    when results record errors but no attempt count."""
    row = _calls(
        "error_and_retry",
        calls,
        lambda c: c.result is not None and c.result.retries is not None,
        "no retry count",
    )
    if row.status == "missing" and any(c.result is not None for c in calls):
        return FieldStatus(row.field, "partial", row.where, row.needed_to_rerun)
    return row


def _run_rows(ep: Episode) -> list[FieldStatus]:
    f = ep.facts
    version = f.model_version
    if version is not None:
        model = _F["model_version"].row("present", "facts.model_version")
    elif f.model is not None:
        model = _F["model_version"].row("partial", "facts.model (a name, no version)")
    else:
        model = _F["model_version"].row("missing", "facts.model_version")
    outcome = f.outcome is not None or any(s.value is not None for s in f.scores)
    calls = ep.calls
    return [
        _fact("endpoint", f.endpoint, "facts.endpoint"),
        model,
        _fact("sampling", f.sampling, "facts.sampling (unset: provider default, unpinned)"),
        _fact("seed", f.seed, "facts.seed (unset: unpinned)"),
        _fact("harness_revision", f.harness_revision, "facts.harness_revision"),
        _fact("tool_server_revision", f.tool_server_revision, "facts.tool_server_revision"),
        _fact("injection_point", f.injection_point, "facts.injection_point"),
        _F["outcome"].row("present" if outcome else "missing", "facts.outcome, facts.scores"),
        _F["scorer"].row("present" if f.scores else "missing", "facts.scores[].scorer"),
        _calls(
            "results_untruncated",
            calls,
            lambda c: c.result is None or c.result.truncation is None,
            "cut",
        ),
        _calls(
            "arguments_typed",
            calls,
            lambda c: c.arguments.shape in ("object", "string"),
            "repr or absent",
        ),
        _F["integrity"].row("not_carried", "file (the format has no hashes)"),
    ]


def _with_losses(row: FieldStatus, episode: Episode, fmt: str) -> FieldStatus:
    """A gap the exporter caused is not the operator's: ``not_carried`` for a field the format
    cannot hold, ``partial`` with the loss named when a known loss explains it."""
    if row.status == "present" or row.status == "not_carried":
        return row
    return _lost(row, episode.losses, fmt)


@lru_cache(maxsize=4096)
def _lost(row: FieldStatus, episode_losses: tuple[str, ...], fmt: str) -> FieldStatus:
    """:func:`_with_losses` of a gap; a file's episodes repeat the same rows and losses, so
    each is worked out once (the rows are frozen: shared safely)."""
    reason = NOT_CARRIED.get(fmt, {}).get(row.field)
    if reason is not None:
        status: Status = "not_carried" if row.status == "missing" else "partial"
        return FieldStatus(row.field, status, f"{row.where} [{reason}]", row.needed_to_rerun)
    losses = [loss for loss in episode_losses if row.field in LOSS_FIELDS.get(loss, ())]
    if losses:
        return FieldStatus(
            row.field, "partial", f"{row.where} [{', '.join(losses)}]", row.needed_to_rerun
        )
    return row


def assess_episode(episode: Episode, fmt: str) -> tuple[FieldStatus, ...]:
    """One row per field of :data:`FIELDS`, in order, for one episode of format ``fmt``."""
    rows = (*_step_rows(episode), *_call_rows(episode), *_run_rows(episode))
    ordered = sorted(rows, key=lambda r: _ORDER[r.field])
    losses = episode.losses
    return tuple(
        row if row.status == "present" or row.status == "not_carried" else _lost(row, losses, fmt)
        for row in ordered
    )


_ORDER = {spec.name: i for i, spec in enumerate(FIELDS)}
