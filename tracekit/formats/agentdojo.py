"""AgentDojo TraceLogger files: one pretty-printed JSON object per task run (docs/formats.md,
"AgentDojo").

The file is one episode: its messages in order, each assistant message a model turn, each
``tool_calls`` entry a call (arguments as the parsed object AgentDojo keeps), each tool message
the call's result (text the runtime rendered: ``stringified``). ``security`` true means the
injection goal was reached; it is read as an attack verdict only when the run had an injection
task (without one AgentDojo records ``security: true`` whatever happened).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import islice
from typing import Any

from tracekit.formats.base import FormatLimits, Source
from tracekit.formats.jsoninput import (
    Budget,
    Codes,
    as_dict,
    as_list,
    opt_bool,
    opt_str,
    read_document,
    schema_error,
)
from tracekit.kernel.evidence import (
    Arguments,
    Episode,
    EpisodeError,
    EvidenceFile,
    Message,
    ModelTurn,
    Provenance,
    Role,
    RunFacts,
    RunProblem,
    Score,
    ToolCall,
    ToolResult,
)

CODES = Codes.of("agentdojo")

# TraceLogger.save writes ``suite_name`` first, then ``pipeline_name`` (docs/formats.md,
# "AgentDojo", step 1).
_ENVELOPE = re.compile(rb'\A\s*\{\s*"suite_name"\s*:\s*(?:"|null)')
_PIPELINE_KEY = re.compile(rb'\n?\s*"pipeline_name"\s*:')
# Forks' run archives (docs/formats.md, "AgentDojo", "Forks"): the run's id first, then the suite;
# the ``evaluation`` object comes after the messages, often beyond the sniff prefix.
_ARCHIVE = re.compile(rb'\A\s*\{\s*"run_id"\s*:\s*"(?:[^"\\]|\\.){0,256}"\s*,\s*"suite_name"\s*:\s*(?:"|null)')
_ARCHIVE_KEYS = (re.compile(rb'"messages"\s*:\s*\['),)
_ROLES: dict[str, Role] = {"system": "system", "user": "user", "assistant": "assistant", "tool": "tool"}
_CONTEXT_KEYS = ("pipeline", "suite", "user_task", "attack", "injection_task")
_PLACEHOLDER_LIMIT = 10_000
_MATCH_WINDOW = 256


def path_context(parts: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """The run facts an AgentDojo path gives: its last five components are
    ``pipeline/suite/user_task/attack/injection_task.json`` (``none`` for no attack or task).
    Returns () when the path is too short to hold them."""
    if len(parts) < 5 or not parts[-1].endswith(".json"):
        return ()
    values = [*parts[-5:-1], parts[-1][: -len(".json")]]
    return tuple((key, value) for key, value in zip(_CONTEXT_KEYS, values, strict=True) if value != "none")


class AgentDojoFormat:
    """AgentDojo TraceLogger JSON."""

    name = "agentdojo"

    def sniff(self, prefix: bytes, suffix: str) -> bool:
        """A JSON object whose first key is ``suite_name`` and that names a ``pipeline_name``; or
        a fork's run archive: ``run_id`` then ``suite_name``, naming a ``messages`` list."""
        if _ENVELOPE.match(prefix):
            return bool(_PIPELINE_KEY.search(prefix, 0, 4096))
        return bool(_ARCHIVE.match(prefix)) and all(key.search(prefix) for key in _ARCHIVE_KEYS)

    def load(self, source: Source, limits: FormatLimits) -> EvidenceFile:
        """The file's one episode."""
        document = read_document(source, limits, CODES)
        if not isinstance(document, dict) or "messages" not in document or "suite_name" not in document:
            schema_error(CODES, "document")
        episode = _episode(document, dict(source.context), limits)
        crashed = episode.facts.outcome == "error"
        problems = (RunProblem("not_finished", "status", status="error"),) if crashed else _unscored(document)
        return EvidenceFile("agentdojo", None, (episode,), problems)


def _unscored(doc: dict[str, Any]) -> tuple[RunProblem, ...]:
    """``TraceLogger`` saves the file after every step and adds ``utility`` and ``security`` only
    once AgentDojo has scored the run: a file without them stopped before it was scored, and
    AgentDojo's own loader refuses it (docs/formats.md, "AgentDojo", Step 3). A fork's archive
    keeps its verdict elsewhere (``evaluation``) and is not judged by this."""
    if "evaluation" in doc or "run_id" in doc or ("utility" in doc and "security" in doc):
        return ()
    return (RunProblem("not_finished", "verdict", status="started"),)


Named = dict[str, str | None]


def _named_fields(doc: dict[str, Any], context: dict[str, str]) -> tuple[Named, Named, list[Provenance]]:
    """The episode's suite, pipeline, tasks and attack: as the run facts use them (from the
    document or, when it does not say, from the archive's folder layout, recorded as such in the
    provenance), and as the document alone records them (they name the episode)."""
    provenance: list[Provenance] = []
    fields: dict[str, str | None] = {}
    recorded: dict[str, str | None] = {}  # the log's own fields only: they name the episode
    for ours, key in (
        ("suite", "suite_name"),
        ("pipeline", "pipeline_name"),
        ("user_task", "user_task_id"),
        ("injection_task", "injection_task_id"),
        ("attack", "attack_type"),
    ):
        value = opt_str(doc.get(key), CODES, key)
        if value is None and key == "user_task_id" and doc.get("task_id") is not None:
            key = "task_id"  # a fork's run archive
            value = opt_str(doc.get(key), CODES, key)
        recorded[ours] = value
        if value is None and ours in context:
            value = context[ours]
            provenance.append(Provenance(f"episode.{ours}", f"agentdojo:path.{ours}"))
        elif value is not None:
            provenance.append(Provenance(f"episode.{ours}", f"agentdojo:{key}"))
        fields[ours] = value
    return fields, recorded, provenance


def _injections(doc: dict[str, Any]) -> dict[str, Any]:
    injections = as_dict(doc.get("injections"), CODES, "injections")
    if len(injections) > _PLACEHOLDER_LIMIT:
        schema_error(CODES, "injections")
    for value in injections.values():
        if not isinstance(value, str):
            schema_error(CODES, "injections")
    return injections


def _scores(utility: bool | None, security: bool | None, attacked: bool) -> tuple[Score, ...]:
    scores: list[Score] = []
    if utility is not None:
        scores.append(Score("agentdojo:utility", utility, passed=utility))
    if security is not None:
        # AgentDojo's security means the injection goal was reached; a fork's evaluation.security
        # has no agreed direction, so it is kept as recorded without an attack verdict.
        scores.append(
            Score(
                "agentdojo:security",
                security,
                passed=(not security) if attacked else None,
                attack_succeeded=security if attacked else None,
            )
        )
    return tuple(scores)


def _facts(doc: dict[str, Any], fields: dict[str, str | None], injections: dict[str, Any]) -> RunFacts:
    utility, security, outcome, forked = _verdict(doc)
    error = opt_str(doc.get("error"), CODES, "error")
    tool_version = opt_str(doc.get("agentdojo_package_version"), CODES, "agentdojo_package_version")
    version = opt_str(doc.get("benchmark_version"), CODES, "benchmark_version")
    return RunFacts(
        tool="agentdojo",
        tool_version=tool_version,
        model=fields["pipeline"],
        harness_revision=version,
        tool_server_revision=version,
        injection_point=",".join(sorted(injections)) or None,
        task=fields["user_task"],
        attack=fields["attack"],
        attack_task=fields["injection_task"],
        seed=_seed(doc.get("seed")),
        outcome="error" if error is not None else outcome,
        scores=_scores(utility, security, fields["injection_task"] is not None and not forked),
    )


def _episode(doc: dict[str, Any], context: dict[str, str], limits: FormatLimits) -> Episode:
    fields, recorded, provenance = _named_fields(doc, context)
    injections = _injections(doc)
    facts = _facts(doc, fields, injections)
    for name, present in (
        ("facts.tool_version", "agentdojo_package_version" in doc),
        ("facts.harness_revision", "benchmark_version" in doc),
        ("facts.injection_point", bool(injections)),
        ("facts.scores", bool(facts.scores)),
    ):
        if present:
            provenance.append(Provenance(name, f"agentdojo:{name.split('.')[-1]}"))
    messages, turns, calls = _conversation(as_list(doc.get("messages"), CODES, "messages"), limits)
    crashed = opt_str(doc.get("error"), CODES, "error") is not None
    errors: tuple[EpisodeError, ...] = (EpisodeError("crash"),) if crashed else ()
    errors += tuple(EpisodeError("tool_error", f"calls[{c.index}]") for c in calls if c.result and c.result.is_error)
    # The id comes from the file's content, never its path (docs/cli.md, "Episode ids").
    ident = "/".join(recorded[k] or "none" for k in _CONTEXT_KEYS)
    if recorded["pipeline"] is None and isinstance(doc.get("run_id"), str):
        ident = f"{doc['run_id']}/{ident}"  # a fork's run archive names the run, not the pipeline
    return Episode(
        id=ident,
        facts=facts,
        messages=messages,
        turns=turns,
        calls=calls,
        errors=errors,
        provenance=tuple(provenance),
        losses=("results_stringified",),
    )


def _seed(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _verdict(doc: dict[str, Any]) -> tuple[bool | None, bool | None, str | None, bool]:
    """``utility``, ``security``, the recorded outcome and whether ``security`` came from a
    fork's ``evaluation`` object rather than AgentDojo's top level; where both say, they must
    agree."""
    evaluation = as_dict(doc.get("evaluation") or {}, CODES, "evaluation")
    found: list[bool | None] = []
    for key in ("utility", "security"):
        top = opt_bool(doc.get(key), CODES, key)
        inner = opt_bool(evaluation.get(key), CODES, f"evaluation.{key}")
        if top is not None and inner is not None and top != inner:
            schema_error(CODES, f"evaluation.{key}")
        found.append(top if top is not None else inner)
    forked = doc.get("security") is None and evaluation.get("security") is not None
    return found[0], found[1], opt_str(evaluation.get("outcome"), CODES, "evaluation.outcome"), forked


def _text(content: Any, field: str) -> str | None:
    """A message's text: a plain string (older runs) or the ``text`` blocks joined with a
    newline; thinking blocks are not message text."""
    if content is None or isinstance(content, str):
        return content
    blocks = as_list(content, CODES, field)
    parts: list[str] = []
    for block in blocks:
        block = as_dict(block, CODES, field)
        kind = block.get("type")
        text = block.get("content")
        if not isinstance(kind, str) or not (text is None or isinstance(text, str)):
            schema_error(CODES, field)
        if kind == "text" and text is not None:
            parts.append(text)
    return "\n".join(parts) if parts else None


def _call_fields(raw: Any, field: str) -> tuple[str, str | None, dict[str, Any]]:
    call = as_dict(raw, CODES, field)
    name = call.get("function")
    if not isinstance(name, str):
        schema_error(CODES, f"{field}.function")
    args = call.get("args")
    if not isinstance(args, dict):
        schema_error(CODES, f"{field}.args")
    return name, _call_id(call.get("id"), f"{field}.id"), args


def _call_id(value: Any, field: str) -> str | None:
    """A call id; AgentDojo writes ``""`` for providers that give none (Gemini): no id, as null
    is (docs/formats.md, "AgentDojo")."""
    return opt_str(value, CODES, field) or None


def _conversation(
    raw_messages: list[Any], limits: FormatLimits
) -> tuple[tuple[Message, ...], tuple[ModelTurn, ...], tuple[ToolCall, ...]]:
    budget = Budget(limits, CODES)
    messages: list[Message] = []
    turns: list[ModelTurn] = []
    calls: list[ToolCall] = []
    results: dict[int, ToolResult] = {}
    pending: dict[int, None] = {}  # calls of the latest assistant turn waiting for a result, in order
    for position, raw in enumerate(raw_messages):
        budget.take()
        item = as_dict(raw, CODES, "messages[]")
        role_name = item.get("role")
        if not isinstance(role_name, str):
            schema_error(CODES, "messages[].role")
        role = _ROLES.get(role_name, "other")
        text = _text(item.get("content"), "messages[].content")
        if role == "assistant":
            call_ids: list[str] = []
            turn = len(turns)
            pending = {}
            for raw_call in as_list(item.get("tool_calls"), CODES, "messages[].tool_calls"):
                budget.take()
                name, call_id, args = _call_fields(raw_call, "messages[].tool_calls[]")
                if call_id is not None:
                    call_ids.append(call_id)
                pending[len(calls)] = None
                calls.append(
                    ToolCall(len(calls), turn, name, call_id, Arguments("object", value=args), parallel_group=turn)
                )
            # Each turn was sent the whole history so far: one run, so a long loop stays linear
            # (docs/formats.md, "Bounds").
            turns.append(ModelTurn(turn, input_runs=((0, position),) if position else ()))
            messages.append(Message(position, role, text, call_ids=tuple(call_ids)))
        elif role == "tool":
            answered = _answered(item, calls, pending)
            error = opt_str(item.get("error"), CODES, "messages[].error")
            result_text = text if (error is None or text) else error
            if answered is not None:
                results[answered] = ToolResult(
                    result_text,
                    is_error=error is not None,
                    error_kind="tool_error" if error is not None else None,
                    stringified=True,
                )
            tool_call_id = _call_id(item.get("tool_call_id"), "messages[].tool_call_id")
            messages.append(Message(position, role, text, tool_call_id=tool_call_id))
        else:
            messages.append(Message(position, role, text))
    done = tuple(
        ToolCall(c.index, c.turn, c.name, c.call_id, c.arguments, results.get(c.index), c.parallel_group)
        for c in calls
    )
    return tuple(messages), tuple(turns), done


def _answered(item: dict[str, Any], calls: list[ToolCall], pending: dict[int, None]) -> int | None:
    """The call a tool message answers: by ``tool_call_id`` when there is one, else the first
    waiting call of the latest turn whose name and arguments equal the message's ``tool_call``
    copy (AgentDojo runs calls in order; ids are null or empty for some providers). Only the first
    ``_MATCH_WINDOW`` waiting calls are tried, so a turn with very many calls stays linear."""
    call_id = _call_id(item.get("tool_call_id"), "messages[].tool_call_id")
    copy = item.get("tool_call")
    name, args = None, None
    if copy is not None:
        name, _, args = _call_fields(copy, "messages[].tool_call")
    for index in islice(pending, _MATCH_WINDOW):
        call = calls[index]
        if (call_id is not None and call.call_id == call_id) or (
            call_id is None and name == call.name and args == call.arguments.value
        ):
            del pending[index]
            return index
    return None


FORMAT = AgentDojoFormat()
