"""The lines of one Codex rollout into an :class:`~tracekit.kernel.evidence.Episode` (docs/formats.md,
"Codex CLI", steps 2-4)."""

from __future__ import annotations

from typing import Any

import msgspec

from tracekit.formats.base import FormatLimits
from tracekit.formats.jsoninput import Budget, Codes, as_dict, as_list, opt_str, schema_error
from tracekit.formats.record_time import seconds_between
from tracekit.kernel.evidence import (
    Arguments,
    Episode,
    EpisodeError,
    Message,
    ModelTurn,
    Provenance,
    Redaction,
    Role,
    RunFacts,
    ToolCall,
    ToolResult,
)
from tracekit.kernel.jsonscan import depth_exceeds

CODES = Codes.of("codex")

MODEL_ITEMS = frozenset({"message:assistant", "reasoning", "function_call", "custom_tool_call", "local_shell_call", "web_search_call"})
"""Items the model produced: consecutive ones are one response (one model turn)."""
CALL_ITEMS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
OUTPUT_ITEMS = frozenset({"function_call_output", "custom_tool_call_output"})
_ROLES: dict[str, Role] = {"user": "user", "assistant": "assistant", "developer": "developer", "system": "system"}


class _Call:
    __slots__ = ("arguments", "at", "call_id", "index", "name", "result", "turn")

    def __init__(self, index: int, turn: int, name: str, call_id: str | None, arguments: Arguments, at: str | None) -> None:
        self.index, self.turn, self.name, self.call_id, self.arguments, self.at = index, turn, name, call_id, arguments, at
        self.result: ToolResult | None = None


class Rollout:
    """One rollout, line by line."""

    def __init__(self, limits: FormatLimits) -> None:
        self.limits = limits
        self.budget = Budget(limits, CODES)
        self.id: str | None = None
        self.version: str | None = None
        self.model: str | None = None
        self.first_model: str | None = None
        self.effort: str | None = None
        self.messages: list[Message] = []
        self.turns: list[tuple[str | None, str | None]] = []
        self.in_turn = False
        self.calls: list[_Call] = []
        self.open: dict[str, _Call] = {}
        self.errors: list[EpisodeError] = []
        self.redactions: list[Redaction] = []
        self.compacted = False

    def add(self, kind: str, payload: dict[str, Any], at: str | None, line: int) -> None:
        self.budget.take()
        if kind == "session_meta":
            self._meta(payload, line)
        elif kind == "turn_context":
            self.model = opt_str(payload.get("model"), CODES, "turn_context.model", line) or self.model
            self.first_model = self.first_model or self.model
            effort = payload.get("effort")
            self.effort = self.effort or (effort if isinstance(effort, str) else None)
        elif kind == "response_item":
            self._item(payload, at, line)
        elif kind == "event_msg":
            if payload.get("type") in ("error", "stream_error"):
                self.errors.append(EpisodeError("model_error", f"turns[{max(len(self.turns) - 1, 0)}]"))
        elif kind == "compacted":
            self.compacted = True
        # any other line type: skipped (docs/formats.md, "Codex CLI", step 2)

    def _meta(self, payload: dict[str, Any], line: int) -> None:
        if self.id is not None:
            return  # a resumed or forked rollout repeats the meta of its source: the first is ours
        self.id = opt_str(payload.get("id"), CODES, "session_meta.id", line)
        self.version = opt_str(payload.get("cli_version"), CODES, "session_meta.cli_version", line)
        base = payload.get("base_instructions")
        text = as_dict(base, CODES, "session_meta.base_instructions", line).get("text") if isinstance(base, dict) else payload.get("instructions")
        if isinstance(text, str):
            self.messages.append(Message(len(self.messages), "system", text))

    def _item(self, item: dict[str, Any], at: str | None, line: int) -> None:
        kind = item.get("type")
        if not isinstance(kind, str):
            schema_error(CODES, "response_item.type", line)
        role = item.get("role") if kind == "message" else None
        key = f"message:{role}" if kind == "message" else kind
        if key in MODEL_ITEMS and not self.in_turn:
            self.turns.append((self.model, at))
        self.in_turn = key in MODEL_ITEMS
        turn = len(self.turns) - 1
        if kind == "message":
            self._message(item, line)
        elif kind == "reasoning":
            if item.get("encrypted_content") is not None:
                self.redactions.append(Redaction(f"turns[{turn}].reasoning", "codex:reasoning.encrypted_content"))
        elif kind in CALL_ITEMS:
            self._call(kind, item, turn, at, line)
        elif kind in OUTPUT_ITEMS:
            self._output(item, at, line)

    def _message(self, item: dict[str, Any], line: int) -> None:
        role = item.get("role")
        if not isinstance(role, str):
            schema_error(CODES, "message.role", line)
        texts = []
        for part in as_list(item.get("content"), CODES, "message.content", line):
            text = as_dict(part, CODES, "message.content[]", line).get("text")
            if isinstance(text, str):
                texts.append(text)
        self.budget.take(len(texts))
        self.messages.append(Message(len(self.messages), _ROLES.get(role, "other"), "\n".join(texts) if texts else None))

    def _call(self, kind: str, item: dict[str, Any], turn: int, at: str | None, line: int) -> None:
        call_id = opt_str(item.get("call_id"), CODES, f"{kind}.call_id", line)
        name: Any
        if kind == "local_shell_call":
            name, arguments = "local_shell", Arguments("object", value=as_dict(item.get("action"), CODES, "local_shell_call.action", line))
            call_id = call_id or opt_str(item.get("id"), CODES, "local_shell_call.id", line)
        else:
            name = item.get("name")
            text = item.get("arguments" if kind == "function_call" else "input")
            if not isinstance(name, str) or not isinstance(text, str):
                schema_error(CODES, f"{kind}.arguments", line)
            arguments = string_arguments(text, self.limits.depth) if kind == "function_call" else Arguments("string", text=text)
        call = _Call(len(self.calls), turn, name, call_id, arguments, at)
        self.calls.append(call)
        if call_id is not None:
            self.open.setdefault(call_id, call)
        self.messages.append(Message(len(self.messages), "assistant", None, call_ids=(call_id,) if call_id else ()))

    def _output(self, item: dict[str, Any], at: str | None, line: int) -> None:
        call_id = item.get("call_id")
        if not isinstance(call_id, str):
            schema_error(CODES, f"{item.get('type')}.call_id", line)
        text, failed = _output_text(item.get("output"), line)
        self.messages.append(Message(len(self.messages), "tool", text, tool_call_id=call_id))
        call = self.open.pop(call_id, None)
        if call is not None:  # an output answering no recorded call stays a message only
            call.result = ToolResult(
                text, is_error=failed, error_kind="tool_error" if failed else None, started_at=call.at, latency_s=seconds_between(call.at, at)
            )

    def episode(self) -> Episode:
        calls = tuple(ToolCall(c.index, c.turn, c.name, c.call_id, c.arguments, c.result, parallel_group=c.turn) for c in self.calls)
        turns = tuple(ModelTurn(i, model=model, started_at=at) for i, (model, at) in enumerate(self.turns))
        facts = RunFacts(
            tool="codex",
            tool_version=self.version,
            model=self.first_model,
            sampling={"reasoning_effort": self.effort} if self.effort else None,
        )
        provenance = [Provenance("facts.tool_version", "codex:session_meta.cli_version")] if self.version else []
        if self.effort:
            provenance.append(Provenance("facts.sampling", "codex:turn_context.effort"))
        return Episode(
            id=self.id or "rollout",
            facts=facts,
            messages=tuple(self.messages),
            turns=turns,
            calls=calls,
            errors=tuple(self.errors),
            redactions=tuple(self.redactions),
            provenance=tuple(provenance),
            losses=("context_compacted",) if self.compacted else (),
        )


def string_arguments(text: str, depth: int) -> Arguments:
    """A ``function_call``'s arguments: the provider's JSON string, kept verbatim; its parse when
    it is a JSON object (depth-bounded before decoding), else ``parse_error``."""
    raw = text.encode("utf-8")
    if depth_exceeds(raw, depth):
        return Arguments("string", text=text, parse_error=True)
    try:
        value = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return Arguments("string", text=text, parse_error=True)
    return Arguments("string", text=text, value=value if isinstance(value, dict) else None, parse_error=not isinstance(value, dict))


def _output_text(output: Any, line: int) -> tuple[str | None, bool]:
    """An output as the model saw it, and whether it says it failed: a string; a list of content
    items (their texts joined); or ``{"content", "success"}``."""
    if output is None or isinstance(output, str):
        return output, False
    if isinstance(output, list):
        texts = [p["text"] for p in output if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return ("\n".join(texts) if texts else None), False
    body = as_dict(output, CODES, "function_call_output.output", line)
    content, success = body.get("content"), body.get("success")
    if not (content is None or isinstance(content, str)) or not (success is None or isinstance(success, bool)):
        schema_error(CODES, "function_call_output.output", line)
    return content, success is False
