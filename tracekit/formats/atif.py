"""ATIF trajectories, Harbor's Agent Trajectory Interchange Format (docs/formats.md, "ATIF").

One JSON document: ``schema_version`` (``ATIF-v1.x``), ``session_id``, ``agent`` (name, version,
model, tool definitions), and ``steps`` from ``system``, ``user`` or ``agent``. An agent step is
one model turn: its message, its ``tool_calls`` (arguments as objects) and the ``observation``
whose ``results`` answer them by ``source_call_id``. One trajectory is one episode.
"""

from __future__ import annotations

from typing import Any

from tracekit.formats import envelope
from tracekit.formats.base import FormatLimits, Source
from tracekit.formats.codex_items import string_arguments
from tracekit.formats.jsoninput import (
    Budget,
    Codes,
    as_dict,
    as_list,
    opt_str,
    read_document,
    schema_error,
)
from tracekit.kernel.evidence import (
    Arguments,
    Episode,
    EvidenceFile,
    Message,
    ModelTurn,
    Provenance,
    Role,
    RunFacts,
    ToolCall,
    ToolResult,
    ToolSchema,
)

CODES = Codes.of("atif")
_ROLES: dict[str, Role] = {"system": "system", "user": "user", "agent": "assistant"}


class AtifFormat:
    """ATIF trajectory JSON documents."""

    name = "atif"

    def sniff(self, prefix: bytes, suffix: str) -> bool:
        """A JSON object whose ``schema_version`` is an ``ATIF-v1.`` string."""
        keys = envelope.top_level(prefix)
        return bool(keys) and keys is not None and keys.get(b"schema_version", b"").startswith(b'"ATIF-v1.')

    def load(self, source: Source, limits: FormatLimits) -> EvidenceFile:
        """The trajectory's one episode."""
        doc = read_document(source, limits, CODES)
        if not isinstance(doc, dict):
            schema_error(CODES, "document")
        version = doc.get("schema_version")
        if not isinstance(version, str) or not version.startswith("ATIF-v1."):
            schema_error(CODES, "schema_version")
        return EvidenceFile("atif", version, (_Trajectory(doc, limits).episode(),))


class _Trajectory:
    def __init__(self, doc: dict[str, Any], limits: FormatLimits) -> None:
        self.doc = doc
        self.budget = Budget(limits, CODES)
        self.depth = limits.depth
        self.agent = as_dict(doc.get("agent"), CODES, "agent")
        self.model = opt_str(self.agent.get("model_name"), CODES, "agent.model_name")
        self.schemas = _schemas(self.agent.get("tool_definitions"))
        self.messages: list[Message] = []
        self.turns: list[ModelTurn] = []
        self.calls: list[ToolCall] = []

    def episode(self) -> Episode:
        steps = as_list(self.doc.get("steps"), CODES, "steps")
        if not steps:
            schema_error(CODES, "steps")
        for number, raw in enumerate(steps):
            step = as_dict(raw, CODES, f"steps[{number}]")
            self.budget.take()
            source = step.get("source")
            if source not in ("system", "user", "agent"):
                schema_error(CODES, "steps[].source")
            text = _content(step.get("message"), "steps[].message")
            if source != "agent" or step.get("is_copied_context") is True:
                self.messages.append(Message(len(self.messages), _ROLES[source], text))
                self._observations(step, {})
            else:
                self._agent_step(step, text)
        session = opt_str(self.doc.get("session_id"), CODES, "session_id")
        version = opt_str(self.agent.get("version"), CODES, "agent.version")
        facts = RunFacts(tool="atif", model=self.model, harness_revision=version)
        provenance = [Provenance("facts.harness_revision", "atif:agent.version")] if version else []
        if self.schemas is not None:
            provenance.append(Provenance("turns[].tool_schemas", "atif:agent.tool_definitions"))
        return Episode(
            id=session or "trajectory",
            facts=facts,
            messages=tuple(self.messages),
            turns=tuple(self.turns),
            calls=tuple(self.calls),
            provenance=tuple(provenance),
        )

    def _agent_step(self, step: dict[str, Any], text: str | None) -> None:
        turn = len(self.turns)
        model = opt_str(step.get("model_name"), CODES, "steps[].model_name") or self.model
        self.turns.append(ModelTurn(turn, tool_schemas=self.schemas, model=model, started_at=opt_str(step.get("timestamp"), CODES, "steps[].timestamp")))
        pending: dict[str, int] = {}
        ids: list[str] = []
        for raw in as_list(step.get("tool_calls"), CODES, "steps[].tool_calls"):
            self.budget.take()
            call = as_dict(raw, CODES, "steps[].tool_calls[]")
            call_id, name = call.get("tool_call_id"), call.get("function_name")
            if not isinstance(call_id, str) or not isinstance(name, str):
                schema_error(CODES, "steps[].tool_calls[].tool_call_id")
            pending.setdefault(call_id, len(self.calls))
            ids.append(call_id)
            self.calls.append(ToolCall(len(self.calls), turn, name, call_id, _arguments(call.get("arguments"), self.depth), parallel_group=turn))
        self.messages.append(Message(len(self.messages), "assistant", text, call_ids=tuple(ids)))
        self._observations(step, pending)

    def _observations(self, step: dict[str, Any], pending: dict[str, int]) -> None:
        """The step's observation results: a ``tool`` message for one that names a call of this
        step (and that call's result), else an ``other`` message (environment feedback)."""
        observation = as_dict(step.get("observation"), CODES, "steps[].observation")
        for raw in as_list(observation.get("results"), CODES, "steps[].observation.results"):
            self.budget.take()
            result = as_dict(raw, CODES, "steps[].observation.results[]")
            call_id = opt_str(result.get("source_call_id"), CODES, "results[].source_call_id")
            text = _content(result.get("content"), "results[].content")
            index = pending.pop(call_id, None) if call_id is not None else None
            self.messages.append(Message(len(self.messages), "tool" if call_id else "other", text, tool_call_id=call_id))
            if index is not None:
                self.calls[index] = ToolCall(
                    index,
                    self.calls[index].turn,
                    self.calls[index].name,
                    call_id,
                    self.calls[index].arguments,
                    ToolResult(text),
                    parallel_group=self.calls[index].parallel_group,
                )


def _content(value: Any, field: str) -> str | None:
    """A message or observation: a string, or (ATIF-v1.6 and later) a list of content parts
    whose ``text`` parts are joined with ``\\n``; images are dropped."""
    if value is None or isinstance(value, str):
        return value
    texts = [part["text"] for part in as_list(value, CODES, field) if isinstance(part, dict) and isinstance(part.get("text"), str)]
    return "\n".join(texts) if texts else None


def _arguments(value: Any, depth: int) -> Arguments:
    """ATIF keeps arguments as an object; a writer that stored a string keeps its string."""
    if isinstance(value, dict):
        return Arguments("object", value=value)
    if isinstance(value, str):
        return string_arguments(value, depth)
    if value is None:
        return Arguments("absent")
    schema_error(CODES, "steps[].tool_calls[].arguments")


def _schemas(value: Any) -> tuple[ToolSchema, ...] | None:
    """``agent.tool_definitions`` (OpenAI function tools) as tool schemas; None when absent."""
    if value is None:
        return None
    out = []
    for raw in as_list(value, CODES, "agent.tool_definitions"):
        item = as_dict(raw, CODES, "agent.tool_definitions[]")
        function = as_dict(item.get("function", item), CODES, "agent.tool_definitions[].function")
        name = function.get("name")
        if not isinstance(name, str):
            schema_error(CODES, "agent.tool_definitions[].name")
        out.append(ToolSchema(name, opt_str(function.get("description"), CODES, "tool_definitions[].description"), function.get("parameters")))
    return tuple(out)


FORMAT = AtifFormat()
