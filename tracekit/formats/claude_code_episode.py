"""One Claude Code session thread into an :class:`~tracekit.kernel.evidence.Episode` (docs/formats.md,
"Claude Code", steps 2-4), and the ``parentUuid`` check (step 5)."""

from __future__ import annotations

from typing import Any

from tracekit.formats.base import FormatLimits
from tracekit.formats.jsoninput import Budget, Codes, as_dict, as_list, fail, opt_str, schema_error
from tracekit.formats.record_time import seconds_between
from tracekit.kernel.evidence import (
    Approval,
    Arguments,
    Episode,
    EpisodeError,
    Message,
    ModelTurn,
    Provenance,
    Redaction,
    RunFacts,
    ToolCall,
    ToolResult,
)

CODES = Codes.of("claude_code")
REJECTED = "User rejected tool use"
"""The record-level ``toolUseResult`` Claude Code writes when the user refuses a tool call at its
permission prompt (docs/formats.md, "Claude Code", step 3)."""


class _Call:
    __slots__ = ("at", "call_id", "index", "name", "result", "turn", "value")

    def __init__(self, index: int, turn: int, name: str, call_id: str, value: Any, at: str | None) -> None:
        self.index, self.turn, self.name, self.call_id, self.value, self.at = index, turn, name, call_id, value, at
        self.result: ToolResult | None = None


class _Turn:
    __slots__ = ("error", "finish", "model")

    def __init__(self, model: str | None) -> None:
        self.model = model
        self.finish: str | None = None
        self.error = False


class Session:
    """The records of one thread, in file order."""

    def __init__(self, key: str, limits: FormatLimits) -> None:
        self.key = key
        self.budget = Budget(limits, CODES)
        self.messages: list[Message] = []
        self.turns: list[_Turn] = []
        self.turn_of: dict[str, int] = {}
        self.calls: list[_Call] = []
        self.open: dict[str, _Call] = {}
        self.errors: list[EpisodeError] = []
        self.redactions: list[Redaction] = []
        self.approvals: list[Approval] = []
        self.compacted = False
        self.model: str | None = None

    def add(self, kind: str, record: dict[str, Any], line: int) -> None:
        message = record.get("message")
        if not isinstance(message, dict):
            schema_error(CODES, "message", line)
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        elif not isinstance(content, list):
            schema_error(CODES, "message.content", line)
        self.budget.take(1 + len(content))
        at = opt_str(record.get("timestamp"), CODES, "timestamp", line)
        if kind == "user":
            self.compacted = self.compacted or record.get("isCompactSummary") is True
            self._user(content, at, line, record.get("toolUseResult") == REJECTED)
        else:
            self._assistant(record, message, content, at, line)

    def _user(self, content: list[Any], at: str | None, line: int, rejected: bool) -> None:
        texts: list[str] = []
        for block in content:
            item = as_dict(block, CODES, "message.content[]", line)
            if item.get("type") == "text":
                texts.append(_text(item, line))
            elif item.get("type") == "tool_result":
                self._result(item, at, line, rejected)
        if texts:
            self.messages.append(Message(len(self.messages), "user", "\n".join(texts)))

    def _result(self, item: dict[str, Any], at: str | None, line: int, rejected: bool) -> None:
        call_id = item.get("tool_use_id")
        is_error = item.get("is_error", False)
        if not isinstance(call_id, str) or not isinstance(is_error, (bool, type(None))):
            schema_error(CODES, "tool_result.tool_use_id", line)
        text = _result_text(item.get("content"), line)
        self.messages.append(Message(len(self.messages), "tool", text, tool_call_id=call_id))
        call = self.open.pop(call_id, None)
        if call is None:
            return  # an unpaired result: kept as a message, answering no recorded call
        refused = rejected and is_error is True
        if refused:
            self.approvals.append(Approval("reject", call_id, call.name, "user", call.index + 1))
        call.result = ToolResult(
            text,
            is_error=bool(is_error),
            error_kind=("rejected" if refused else "tool_error") if is_error else None,
            started_at=call.at,
            latency_s=seconds_between(call.at, at),
        )

    def _assistant(self, record: dict[str, Any], message: dict[str, Any], content: list[Any], at: str | None, line: int) -> None:
        model = opt_str(message.get("model"), CODES, "message.model", line)
        turn = self._turn(opt_str(message.get("id"), CODES, "message.id", line), model)
        stop = opt_str(message.get("stop_reason"), CODES, "message.stop_reason", line)
        if stop is not None:
            self.turns[turn].finish = stop
        if record.get("isApiErrorMessage") is True and not self.turns[turn].error:
            self.turns[turn].error = True
            self.errors.append(EpisodeError("model_error", f"turns[{turn}]"))
        if self.model is None and model and not record.get("isApiErrorMessage"):
            self.model = model
        texts: list[str] = []
        ids: list[str] = []
        for block in content:
            item = as_dict(block, CODES, "message.content[]", line)
            kind = item.get("type")
            if kind == "text":
                texts.append(_text(item, line))
            elif kind == "tool_use":
                ids.append(self._call(item, turn, at, line))
            elif kind == "redacted_thinking":
                self.redactions.append(Redaction(f"turns[{turn}].thinking", "claude_code:redacted_thinking"))
        if texts or ids:
            self.messages.append(Message(len(self.messages), "assistant", "\n".join(texts) if texts else None, call_ids=tuple(ids)))

    def _turn(self, message_id: str | None, model: str | None) -> int:
        """The model turn of this API message: lines sharing ``message.id`` are one response."""
        if message_id is not None and message_id in self.turn_of:
            return self.turn_of[message_id]
        self.turns.append(_Turn(model))
        if message_id is not None:
            self.turn_of[message_id] = len(self.turns) - 1
        return len(self.turns) - 1

    def _call(self, item: dict[str, Any], turn: int, at: str | None, line: int) -> str:
        call_id, name = item.get("id"), item.get("name")
        if not isinstance(call_id, str) or not isinstance(name, str):
            schema_error(CODES, "tool_use.id", line)
        value = as_dict(item.get("input"), CODES, "tool_use.input", line) if "input" in item else None
        call = _Call(len(self.calls), turn, name, call_id, value, at)
        self.calls.append(call)
        self.open.setdefault(call_id, call)
        return call_id

    def episode(self, version: str | None) -> Episode:
        calls = tuple(
            ToolCall(
                c.index,
                c.turn,
                c.name,
                c.call_id,
                Arguments("object", value=c.value) if c.value is not None else Arguments("absent"),
                c.result,
                parallel_group=c.turn,
            )
            for c in self.calls
        )
        turns = tuple(
            ModelTurn(i, model=t.model, finish_reason=t.finish, finish_reason_source="claude_code:message.stop_reason" if t.finish else None, error=t.error)
            for i, t in enumerate(self.turns)
        )
        provenance = (
            Provenance("calls[].arguments", "claude_code:tool_use.input"),
            Provenance("calls[].result", "claude_code:tool_result"),
        )
        return Episode(
            id=self.key,
            facts=RunFacts(tool="claude_code", tool_version=version, model=self.model),
            messages=tuple(self.messages),
            turns=turns,
            calls=calls,
            errors=tuple(self.errors),
            redactions=tuple(self.redactions),
            provenance=provenance if calls else (),
            approvals=tuple(self.approvals),
            losses=("context_compacted",) if self.compacted else (),
        )


def _text(item: dict[str, Any], line: int) -> str:
    text = item.get("text")
    if not isinstance(text, str):
        schema_error(CODES, "message.content[].text", line)
    return text


def _result_text(content: Any, line: int) -> str | None:
    """A ``tool_result``'s content as the model saw it: a string, or its text blocks joined."""
    if content is None or isinstance(content, str):
        return content
    texts = [_text(b, line) for b in as_list(content, CODES, "tool_result.content", line) if isinstance(b, dict) and b.get("type") == "text"]
    return "\n".join(texts) if texts else None


def check_threads(parents: dict[str, tuple[str | None, int]]) -> None:
    """Refuse a ``parentUuid`` chain that loops (docs/formats.md, "Claude Code", step 5). Each
    record is visited once: a walk stops at a record an earlier walk finished."""
    state: dict[str, int] = {}
    for start in parents:
        path: list[str] = []
        node: str | None = start
        while node is not None and node in parents and state.get(node) != 2:
            if state.get(node) == 1:
                fail(CODES.schema, parents[node][1], format=CODES.format, field="parentUuid")
            state[node] = 1
            path.append(node)
            node = parents[node][0]
        for done in path:
            state[done] = 2
