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
from typing import NamedTuple

from tracekit.judging.audit.completeness.base import INDEXED, FieldSpec, by_name, indexed
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


Lack = tuple[int, int, tuple[int, ...]]
"""What a row of items needs of them: how many there are, how many lack the field, and the
positions of the first :data:`~tracekit.judging.audit.completeness.base.INDEXED` + 1 that lack
it (all :func:`indexed` shows, and whether it adds ``...``)."""


def _lack(lacking: list[int], total: int) -> Lack:
    return (total, len(lacking), tuple(lacking[: INDEXED + 1]))


def _counted(field: str, collection: str, lack: Lack, what: str) -> FieldStatus:
    total, missing, first = lack
    where = indexed(collection, list(first)) + f" ({what})" if missing else collection
    return _F[field].count(total - missing, total, where)


def _turns(field: str, lack: Lack, what: str) -> FieldStatus:
    if not lack[0]:
        return _F[field].row("missing", "turns (no model turn recorded)")
    return _counted(field, "turns", lack, what)


def _present(value: object) -> bool:
    return not (value is None or value == "" or value == {})


def _fact(field: str, present: bool, where: str) -> FieldStatus:
    return _F[field].row("present" if present else "missing", where)


class Summary(NamedTuple):
    """Everything :func:`assess_episode` reads of an episode (:func:`summarise`): its rows are
    made from this alone (:func:`rows_of`), so episodes with the same summary share them. A
    file's episodes repeat a few summaries, so each distinct one's rows are made once."""

    fmt: str
    losses: tuple[str, ...]
    system: tuple[int, ...]
    """the first system messages' indices (as many as a lack keeps)"""
    messages: bool
    turns: tuple[Lack, Lack, Lack, Lack]
    """input recorded, tool schemas, raw response, finish reason"""
    calls: tuple[Lack, ...]
    """:data:`_CALL_CHECKS` in order"""
    any_result: bool
    facts: tuple[bool, ...]
    """present: endpoint, sampling, seed, harness and tool server revisions, injection point,
    scores, outcome"""
    model: int
    """2 a model version, 1 a model name only, 0 neither"""


def _turn_lacks(ep: Episode) -> tuple[Lack, Lack, Lack, Lack]:
    turns = ep.turns
    total = len(turns)
    inputs: list[int] = []
    schemas: list[int] = []
    raw: list[int] = []
    finish: list[int] = []
    for t in turns:
        i = t.index
        turn = turns[i]  # the turn at the position the index names, as the profile always read it
        if turn.input_runs is None:
            inputs.append(i)
        if turn.tool_schemas is None:
            schemas.append(i)
        if turn.raw_response is None:
            raw.append(i)
        if turn.finish_reason is None:
            finish.append(i)
    return _lack(inputs, total), _lack(schemas, total), _lack(raw, total), _lack(finish, total)


def _unique_ids(calls: Sequence[ToolCall]) -> Callable[[ToolCall], bool]:
    ids = [c.call_id for c in calls if c.call_id is not None]
    dup = {i for i in ids if ids.count(i) > 1} if len(ids) <= 10_000 else set(ids)
    return lambda c: c.call_id is not None and c.call_id not in dup


def _has_result(c: ToolCall) -> bool:
    return c.result is not None and (c.result.text is not None or c.result.value is not None)


def _timed(c: ToolCall) -> bool:
    return c.result is not None and c.result.started_at is not None


_CALL_CHECKS: tuple[tuple[str, Callable[[ToolCall], bool] | None, str], ...] = (
    ("tool_name", lambda c: c.name != "", "unnamed"),
    ("tool_arguments", lambda c: c.arguments.shape != "absent", "absent"),
    ("tool_call_id", None, "absent or repeated"),  # per episode: _unique_ids
    ("tool_result", _has_result, "no result recorded"),
    ("call_order", _timed, "list position only"),
    ("start_time", _timed, "none"),
    ("latency", lambda c: c.result is not None and c.result.latency_s is not None, "none"),
    ("error_and_retry", lambda c: c.result is not None and c.result.retries is not None, "no retry count"),
    ("results_untruncated", lambda c: c.result is None or c.result.truncation is None, "cut"),
    ("arguments_typed", lambda c: c.arguments.shape in ("object", "string"), "repr or absent"),
)
"""Per call: the field, whether the call carries it, and what a lacking call lacks."""


def _call_lacks(calls: Sequence[ToolCall]) -> tuple[Lack, ...]:
    if not calls:
        return _NO_CALLS
    total = len(calls)
    found: list[Lack] = []
    for _, ok, _ in _CALL_CHECKS:
        check = ok if ok is not None else _unique_ids(calls)
        found.append(_lack([c.index for c in calls if not check(c)], total))
    return tuple(found)


_NO_CALLS: tuple[Lack, ...] = tuple((0, 0, ()) for _ in _CALL_CHECKS)


def summarise(episode: Episode, fmt: str) -> Summary:
    """What :func:`assess_episode` reads of ``episode``, in one pass over each list."""
    system = [m.index for m in episode.messages if m.role == "system"]
    f = episode.facts
    facts = (
        _present(f.endpoint),
        _present(f.sampling),
        _present(f.seed),
        _present(f.harness_revision),
        _present(f.tool_server_revision),
        _present(f.injection_point),
        bool(f.scores),
        f.outcome is not None or any(s.value is not None for s in f.scores),
    )
    return Summary(
        fmt,
        episode.losses,
        tuple(system[: INDEXED + 1]),
        bool(episode.messages),
        _turn_lacks(episode),
        _call_lacks(episode.calls),
        any(c.result is not None for c in episode.calls),
        facts,
        2 if f.model_version is not None else 1 if f.model is not None else 0,
    )


def _step_rows(s: Summary) -> list[FieldStatus]:
    rows = [
        _F["system_prompt"].row("present", indexed("messages", list(s.system)))
        if s.system
        else _F["system_prompt"].row("missing", "messages (no system role)"),
    ]
    inputs, schemas, raw, finish = s.turns
    if inputs[0]:
        rows.append(_turns("messages_as_sent", inputs, "input not recorded"))
    else:
        status: Status = "partial" if s.messages else "missing"
        rows.append(_F["messages_as_sent"].row(status, "messages (a transcript, no model turns)"))
    rows.append(_turns("tool_schemas", schemas, "no tools"))
    rows.append(_turns("raw_model_response", raw, "no raw call"))
    rows.append(_turns("finish_reason", finish, "none"))
    return rows


def _call_rows(s: Summary) -> list[FieldStatus]:
    rows = [_counted(name, "calls", lack, what) for (name, _, what), lack in zip(_CALL_CHECKS, s.calls, strict=True)]
    retry = rows[7]  # error_and_retry: partial when results record errors but no attempt count
    if retry.status == "missing" and s.any_result:
        rows[7] = FieldStatus(retry.field, "partial", retry.where, retry.needed_to_rerun)
    return rows


def _run_rows(s: Summary, calls: list[FieldStatus]) -> list[FieldStatus]:
    endpoint, sampling, seed, harness, server, injection, scores, outcome = s.facts
    if s.model == 2:
        model = _F["model_version"].row("present", "facts.model_version")
    elif s.model == 1:
        model = _F["model_version"].row("partial", "facts.model (a name, no version)")
    else:
        model = _F["model_version"].row("missing", "facts.model_version")
    return [
        _fact("endpoint", endpoint, "facts.endpoint"),
        model,
        _fact("sampling", sampling, "facts.sampling (unset: provider default, unpinned)"),
        _fact("seed", seed, "facts.seed (unset: unpinned)"),
        _fact("harness_revision", harness, "facts.harness_revision"),
        _fact("tool_server_revision", server, "facts.tool_server_revision"),
        _fact("injection_point", injection, "facts.injection_point"),
        _F["outcome"].row("present" if outcome else "missing", "facts.outcome, facts.scores"),
        _F["scorer"].row("present" if scores else "missing", "facts.scores[].scorer"),
        *calls[8:],  # results_untruncated, arguments_typed
        _F["integrity"].row("not_carried", "file (the format has no hashes)"),
    ]


def _lost(row: FieldStatus, episode_losses: tuple[str, ...], fmt: str) -> FieldStatus:
    """A gap the exporter caused is not the operator's: ``not_carried`` for a field the format
    cannot hold, ``partial`` with the loss named when a known loss explains it."""
    if row.status == "present" or row.status == "not_carried":
        return row
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


@lru_cache(maxsize=1024)
def rows_of(summary: Summary) -> tuple[FieldStatus, ...]:
    """The rows of every episode whose :func:`summarise` is ``summary``, in :data:`FIELDS`
    order (the rows are frozen: shared safely)."""
    calls = _call_rows(summary)
    rows = (*_step_rows(summary), *calls[:8], *_run_rows(summary, calls))
    return tuple(_lost(row, summary.losses, summary.fmt) for row in rows)


def assess_episode(episode: Episode, fmt: str) -> tuple[FieldStatus, ...]:
    """One row per field of :data:`FIELDS`, in order, for one episode of format ``fmt``."""
    return rows_of(summarise(episode, fmt))
