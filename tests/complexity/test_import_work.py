"""Importers charge what references expand to, not only what the file spells out
(docs/formats.md, "Bounds"): a few bytes per turn can name the whole history, so a long loop
would otherwise hold a quadratic number of message indices."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tracekit.formats import agentdojo, inspect_sample
from tracekit.formats.base import FormatError, FormatLimits, Source
from tracekit.kernel.evidence import RunFacts

ROOT = Path(__file__).resolve().parent.parent.parent
AGENTDOJO = ROOT / "corpus" / "third_party" / "agentdojo" / "runs" / "scripted-model" / "workspace" / "user_task_14" / "none" / "none.json"


def _inspect_sample(turns: int) -> dict[str, object]:
    pool = [{"id": f"m{i}", "role": "user", "content": "x"} for i in range(turns)]
    events = [{"event": "model", "input": [], "input_refs": [[0, turns]], "output": {"choices": []}} for _ in range(turns)]
    return {"id": "s", "epoch": 1, "messages": pool, "events": events, "events_data": {"messages": pool}}


def test_inspect_pool_references_are_charged_to_the_item_bound() -> None:
    turns = 300  # 300 events x 300 referenced messages = 90,000 expanded items
    limits = FormatLimits(items_per_episode=50_000)
    with pytest.raises(FormatError) as refused:
        inspect_sample.episode(_inspect_sample(turns), RunFacts("inspect_ai"), limits)
    assert refused.value.finding.code.value == "inspect.too_many_items"
    episode = inspect_sample.episode(_inspect_sample(turns), RunFacts("inspect_ai"), FormatLimits(items_per_episode=100_000))
    held = sum(count for t in episode.turns for _, count in t.input_runs or ())
    assert held <= 100_000


def _agentdojo_loop(turns: int) -> bytes:
    document = json.loads(AGENTDOJO.read_bytes())
    head = document["messages"][:2]
    loop = []
    for n in range(turns):
        loop.append({"role": "assistant", "content": [{"type": "text", "content": "ok"}], "tool_calls": None})
        loop.append({"role": "user", "content": [{"type": "text", "content": f"again {n}"}]})
    document["messages"] = head + loop
    return json.dumps(document).encode()


def test_agentdojo_history_is_one_run_per_turn() -> None:
    # 400 turns, each sent the whole history (up to 800 messages): listed index by index that
    # would be ~160,000 items; as runs it is one pair per turn, so the item bound is not reached.
    data = _agentdojo_loop(400)
    limits = FormatLimits(items_per_episode=2_000)
    loaded = agentdojo.FORMAT.load(Source(io.BytesIO(data), len(data), ".json"), limits)
    turns = [t for e in loaded.episodes for t in e.turns]
    assert len(turns) == 400
    assert all(t.input_runs is not None and len(t.input_runs) <= 1 for t in turns)
    assert [count for t in turns[:3] for _, count in t.input_runs or ()] == [2, 4, 6]
    assert sum(count for t in turns for _, count in t.input_runs or ()) > 150_000
