"""An episode as the harness assertions read it (docs/findings.md, "Mapping").

The OWASP harness assertions read three lists: ``messages``, ``tool_calls`` and ``events``. An
:class:`~tracekit.kernel.evidence.Episode` of any format maps onto them without losing what a strict
rule needs:

1. Messages keep their role and text; a tool message keeps the call id it answers. When a format
   records results only on the calls (no tool messages at all), each result becomes a ``tool``
   message, so markers and secrets in what the agent read stay visible to memory_isolation and
   stay *inbound* for no_secret_disclosure.
2. Tool calls keep their name and id, and their arguments as the object the format holds, or as
   the parse of the provider's JSON string. Lists, ``cc``/``bcc`` and nested objects pass through
   untouched, so strict rule S6 sees them. A string that does not parse as a JSON object is kept
   under ``raw`` (upstream's own normalisation of non-object arguments).
3. Every call carries ``sequence``: its position on the episode's timeline. Each recorded
   approval becomes an ``approval`` event with ``action``, ``decision`` (``approve`` reads as
   upstream's ``approved``), ``source`` (the approver) and a ``sequence`` just before the call it
   preceded, so strict rule S7 can check that an approval came before its call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tracekit.formats.harness.trace import Obj, Trace
from tracekit.kernel.evidence import Episode, ToolCall

DECISIONS = {"approve": "approved", "approved": "approved", "reject": "rejected", "rejected": "rejected"}


def call_arguments(call: ToolCall) -> Any:
    """A call's arguments as an assertion reads them (rule 2)."""
    args = call.arguments
    if args.shape == "object":
        return args.value if isinstance(args.value, dict) else {"raw": args.value}
    if isinstance(args.value, dict):
        return args.value
    if args.text is not None:
        return {"raw": args.text}
    return {}


def call_dict(call: ToolCall) -> dict[str, Any]:
    """One call in the harness shape, with its timeline position (rules 2 and 3)."""
    data: dict[str, Any] = {"name": call.name, "arguments": call_arguments(call), "sequence": 2 * call.index + 1}
    if call.call_id is not None:
        data["id"] = call.call_id
    return data


def _messages(episode: Episode) -> list[Obj]:
    messages: list[Obj] = []
    answered = False  # whether any message is a tool message
    for message in episode.messages:
        role, text, call_id = message.role, message.text, message.tool_call_id
        answered = answered or role == "tool"
        if call_id is None:
            messages.append({"role": role} if text is None else {"role": role, "content": text})
            continue
        data: dict[str, Any] = {"role": role}
        if text is not None:
            data["content"] = text
        data["tool_call_id"] = call_id
        messages.append(data)
    if not answered:
        for call in episode.calls:
            if call.result is not None and call.result.text is not None:
                result: dict[str, Any] = {"role": "tool", "content": call.result.text}
                if call.call_id is not None:
                    result["tool_call_id"] = call.call_id
                messages.append(result)
    return messages


def _events(episode: Episode) -> list[Obj]:
    events: list[Obj] = []
    for approval in episode.approvals:
        event: dict[str, Any] = {
            "type": "approval",
            "decision": DECISIONS.get(approval.decision, approval.decision),
        }
        if approval.action is not None:
            event["action"] = approval.action
        if approval.approver is not None:
            event["source"] = approval.approver
        if approval.position is not None:
            event["sequence"] = 2 * approval.position
        events.append(event)
    return events


@dataclass(frozen=True, slots=True)
class EpisodeView:
    """The harness trace of one episode, and the call each ``tool_calls`` entry came from."""

    trace: Trace
    calls: tuple[ToolCall, ...]


def harness_view(episode: Episode) -> EpisodeView:
    """The harness trace of ``episode`` (rules 1-3); pure, linear in the episode's size."""
    calls: list[Obj] = [call_dict(call) for call in episode.calls] if episode.calls else []
    trace = Trace(_messages(episode), calls, _events(episode) if episode.approvals else [])
    return EpisodeView(trace, episode.calls)
