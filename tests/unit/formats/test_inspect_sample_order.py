"""Which rule an odd sample breaks first, and what a sample of few parts becomes: the order of
the checks of steps S1-S5 (tracekit/formats/inspect_sample.py), pinned on small samples."""

from __future__ import annotations

from typing import Any

import pytest

from tracekit.formats.base import DEFAULT_FORMAT_LIMITS, FormatError
from tracekit.formats.inspect_sample import episode
from tracekit.kernel.evidence import RunFacts

FACTS = RunFacts("inspect_ai")
ASSISTANT = {"role": "assistant", "content": "ok"}

REFUSED = [
    ({"messages": None}, "sample.messages must be a list"),
    ({"messages": [1]}, "sample.messages[] must be objects"),
    ({"messages": [{"id": 7}, {"content": 5}]}, "ChatMessage.content"),
    ({"messages": [{"id": 7}], "events_data": 5}, "sample.events_data must be an object"),
    ({"messages": [{"id": 7}], "events_data": {"calls": 5}}, "events_data.calls must be a list"),
    ({"messages": [{"content": "x"}, {"id": ["x"]}]}, "ChatMessage.id"),
    ({"messages": [{"tool_call_id": 5, "tool_calls": 7}]}, "ChatMessage.tool_calls must be a list"),
    ({"messages": [{"tool_call_id": 5, "content": [1]}]}, "ChatMessage.content"),
    ({"messages": [{"tool_call_id": 5, "id": 5}]}, "ChatMessage.tool_call_id"),
    ({"messages": [{**ASSISTANT, "model": 5}]}, "ChatMessage.model"),
    ({"messages": [{**ASSISTANT, "tool_calls": [{"function": 5}]}]}, "ToolCall.function must be a string"),
]


@pytest.mark.parametrize(("extra", "rule"), REFUSED)
def test_the_first_rule_broken_is_reported(extra: dict[str, Any], rule: str) -> None:
    with pytest.raises(FormatError) as raised:
        episode({"id": 1, **extra}, FACTS, DEFAULT_FORMAT_LIMITS)
    assert rule in raised.value.finding.message


def _shape(extra: dict[str, Any]) -> tuple[Any, ...]:
    made = episode({"id": 1, **extra}, FACTS, DEFAULT_FORMAT_LIMITS)
    return (
        [(m.role, m.text, m.call_ids, m.tool_call_id) for m in made.messages],
        [(t.index, t.model) for t in made.turns],
        [(c.name, c.call_id, c.result.text if c.result else None) for c in made.calls],
        [p.field for p in made.provenance],
        made.losses,
    )


def test_samples_of_few_parts() -> None:
    from_messages = ["turns", "calls", "calls[].result"]  # said even when no message is a turn
    assert _shape({}) == ([], [], [], from_messages, ())
    assert _shape({"messages": []}) == ([], [], [], from_messages, ())
    call = {"id": "c1", "function": "f", "arguments": {}}
    odd_roles = [{"role": 5, "tool_calls": [call]}, {"role": "Assistant", "content": "x"}]
    assert _shape({"messages": odd_roles})[1:3] == ([], [])
    messages = [
        {**ASSISTANT, "tool_calls": ""},
        {**ASSISTANT, "tool_calls": [call], "model": "m"},
        {"role": "tool", "tool_call_id": "c1", "content": "done"},
        {"role": "tool", "tool_call_id": "c1", "content": "again"},
    ]
    shaped = _shape({"messages": messages})
    assert shaped[1] == [(0, None), (1, "m")]
    assert shaped[2] == [("f", "c1", "done")]
    assert shaped[0][1] == ("assistant", "ok", ("c1",), None)
    assert shaped[3:] == (["messages", "turns", "calls", "calls[].result"], ("raw_call_sampled",))
