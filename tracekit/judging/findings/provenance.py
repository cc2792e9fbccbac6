"""Where an offending value came from (docs/findings.md, "Provenance").

1. The offending call's place on the timeline is the assistant message that carries its id, or
   failing that the assistant message of its turn; everything recorded before that message is
   *earlier*. A format without messages has no earlier message.
2. Earlier sources, in timeline order: each earlier message (system prompt, user instruction,
   assistant text, tool message), and the result of every call of an earlier turn (a sibling
   call of the same turn ran in parallel: its result was not yet there).
3. The origin is the first earlier source whose text contains the value exactly; failing that,
   ignoring letter case (addresses and domains are case-insensitive). A value found nowhere
   earlier originates with the model.
4. The call's outcome: ``succeeded`` (the tool acted), ``failed`` (an error result), or
   ``no_result`` (nothing recorded: it may never have run).

Matching is literal. A value that reached an argument by paraphrase, translation, encoding or
by being split and rejoined is not seen, and is then reported as originating with the model: an
upper bound on the model's part, never proof of it (docs/findings.md, "Limits").
"""

from __future__ import annotations

from typing import Literal

from msgspec import Struct

from tracekit.kernel.evidence import Episode, ToolCall

OriginKind = Literal["system_prompt", "user_instruction", "assistant_message", "tool_result", "model"]
CallOutcome = Literal["succeeded", "failed", "no_result"]
Match = Literal["exact", "case_insensitive", "none"]

ROLE_ORIGIN: dict[str, OriginKind] = {
    "system": "system_prompt",
    "developer": "system_prompt",
    "user": "user_instruction",
    "assistant": "assistant_message",
    "tool": "tool_result",
}


class CallRef(Struct, frozen=True):
    """A tool call, named as a reader needs it: index, tool, id, turn and what happened."""

    index: int
    tool: str
    call_id: str | None
    turn: int
    outcome: CallOutcome


class Origin(Struct, frozen=True):
    """The first earlier place a value appears."""

    kind: OriginKind
    message_index: int | None = None
    call: CallRef | None = None
    """For ``tool_result``: the call whose result carried the value, when known."""
    match: Match = "none"


def outcome(call: ToolCall) -> CallOutcome:
    """Rule 4."""
    if call.result is None:
        return "no_result"
    return "failed" if call.result.is_error else "succeeded"


def call_ref(call: ToolCall) -> CallRef:
    """``call`` as a :class:`CallRef`."""
    return CallRef(call.index, call.name, call.call_id, call.turn, outcome(call))


def call_position(episode: Episode, call: ToolCall) -> int:
    """Rule 1: the index of the message carrying ``call``; messages before it are earlier."""
    if call.call_id is not None:
        for message in episode.messages:
            if message.role == "assistant" and call.call_id in message.call_ids:
                return message.index
    assistant = [m.index for m in episode.messages if m.role == "assistant"]
    if 0 <= call.turn < len(assistant):
        return assistant[call.turn]
    return len(episode.messages)


def _sources(episode: Episode, call: ToolCall) -> list[tuple[Origin, str]]:
    """Rule 2: earlier texts with the origin each would give. A tool message is matched to the
    earlier call it answers by id, else by its text being that call's result: one pass each
    over messages and calls (dictionaries, never a scan per message)."""
    earlier = [c for c in episode.calls if c.turn < call.turn]
    by_id = {c.call_id: c for c in earlier if c.call_id is not None}
    by_text = {c.result.text: c for c in reversed(earlier) if c.result is not None and c.result.text is not None}
    sources: list[tuple[Origin, str]] = []
    covered: set[int] = set()
    for message in episode.messages[: call_position(episode, call)]:
        if message.text is None:
            continue
        answered: ToolCall | None = None
        if message.role == "tool":
            if message.tool_call_id is not None:
                answered = by_id.get(message.tool_call_id)
            else:
                answered = by_text.get(message.text)
        if answered is not None:
            covered.add(answered.index)
        kind = ROLE_ORIGIN.get(message.role, "assistant_message")
        ref = call_ref(answered) if answered is not None else None
        sources.append((Origin(kind, message.index, ref), message.text))
    for prior in earlier:
        text = prior.result.text if prior.result is not None else None
        if text is not None and prior.index not in covered:
            sources.append((Origin("tool_result", None, call_ref(prior)), text))
    return sources


def origin_of(episode: Episode, call: ToolCall, value: str) -> Origin:
    """Rule 3: the first earlier source holding ``value``, or the model."""
    if not value:
        return Origin("model")
    sources = _sources(episode, call)
    for origin, text in sources:
        if value in text:
            return Origin(origin.kind, origin.message_index, origin.call, "exact")
    folded = value.casefold()
    for origin, text in sources:
        if folded in text.casefold():
            return Origin(origin.kind, origin.message_index, origin.call, "case_insensitive")
    return Origin("model")
