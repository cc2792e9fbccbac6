"""AgentDojo's published runs of real models: tracekit's reading of every file equals the counts
AgentDojo's own `TraceLogger` result model gives (docs/formats.md, "AgentDojo", "Public runs")."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from tracekit.formats import registry
from tracekit.formats.base import SNIFF_BYTES
from tracekit.formats.reading import load_file
from tracekit.kernel.evidence import Episode

ROOT = Path(__file__).resolve().parents[3]
BASE = ROOT / "corpus" / "third_party" / "agentdojo"
PUBLIC = BASE / "public"
COUNTS = json.loads((BASE / "make" / "public_counts.expected.json").read_text())
FILES: dict[str, Any] = COUNTS["files"]
REJECTED: dict[str, Any] = COUNTS["rejected"]


def _load(rel: str) -> Episode:
    evidence = load_file(PUBLIC / rel)
    assert evidence.format == "agentdojo"
    (episode,) = evidence.episodes
    return episode


def test_the_counts_cover_every_public_file_and_sources_lists_each() -> None:
    on_disk = sorted(p.relative_to(PUBLIC).as_posix() for p in (PUBLIC / "runs").rglob("*.json"))
    assert on_disk == sorted([*FILES, *REJECTED]) and len(FILES) >= 15 and len(REJECTED) >= 1
    assert COUNTS["agentdojo_version"] == "0.1.35"
    sources = (PUBLIC / "SOURCES").read_text()
    for rel in on_disk:
        digest = hashlib.sha256((PUBLIC / rel).read_bytes()).hexdigest()
        assert f"\n{rel} | ethz-spylab/agentdojo" in sources and f" | {digest} | MIT\n" in sources
    assert "MIT License" in (PUBLIC / "NOTICE").read_text()


def test_the_sample_is_varied() -> None:
    """Both log generations, several suites and attacks, crashes, tool errors, both verdicts."""
    runs = list(FILES.values())
    assert {r["suite_name"] for r in runs} == {"banking", "slack", "travel", "workspace"}
    assert len({r["pipeline_name"] for r in runs}) >= 10
    assert {None, "important_instructions", "injecagent", "direct", "captcha_dos"} <= {r["attack_type"] for r in runs}
    assert any(r["error"] for r in runs) and any(r["tool_errors"] for r in runs)
    assert "" in {r["final_answer"] for r in runs}
    attacked = [r for r in runs if r["injection_task_id"] is not None]
    assert {r["security"] for r in attacked} == {True, False}
    assert {r["utility"] for r in runs} == {True, False}


@pytest.mark.parametrize("rel", sorted([*FILES, *REJECTED]))
def test_public_run_is_agentdojo_and_nothing_else(rel: str) -> None:
    path = PUBLIC / rel
    with path.open("rb") as handle:
        assert registry.accepting(handle.read(SNIFF_BYTES), path.suffix) == ("agentdojo",)


@pytest.mark.parametrize("rel", sorted(FILES))
def test_public_run_matches_agentdojo_own_counts(rel: str) -> None:
    truth = FILES[rel]
    episode = _load(rel)
    facts = episode.facts
    assert facts.tool == "agentdojo"
    assert facts.model == truth["pipeline_name"]
    assert facts.task == truth["user_task_id"]
    assert facts.attack == truth["attack_type"]
    assert facts.attack_task == truth["injection_task_id"]
    assert facts.injection_point == (",".join(truth["injection_placeholders"]) or None)
    assert episode.id.split("/")[:2] == [truth["pipeline_name"], truth["suite_name"]]
    roles: dict[str, int] = {}
    for message in episode.messages:
        roles[message.role] = roles.get(message.role, 0) + 1
    assert len(episode.messages) == truth["messages"]
    assert roles == truth["messages_by_role"]
    assistant = [m for m in episode.messages if m.role == "assistant"]
    assert len(assistant) == truth["assistant_turns"]
    # AgentDojo's own text of the last assistant message: None (no content) and "" (an empty
    # text block) stay apart
    assert (assistant[-1].text if assistant else None) == truth["final_answer"]
    expected_calls = truth["calls"]
    assert len(episode.calls) == truth["tool_calls"] == len(expected_calls)
    for call, expected in zip(episode.calls, expected_calls, strict=True):
        # AgentDojo writes "" where the provider gave no id (Gemini): tracekit reads no id.
        assert (call.name, call.call_id) == (expected["function"], expected["id"] or None)
        assert call.arguments.value == expected["args"]
    answered = [c for c in episode.calls if c.result is not None]
    assert len(answered) == truth["tool_results"]
    assert sum(1 for c in answered if c.result is not None and c.result.is_error) == truth["tool_errors"]
    _assert_verdicts(episode, truth)


def _assert_verdicts(episode: Episode, truth: dict[str, Any]) -> None:
    scores = {s.scorer: s for s in episode.facts.scores}
    utility = scores["agentdojo:utility"]
    assert utility.value is truth["utility"] and utility.passed is truth["utility"]
    security = scores["agentdojo:security"]
    assert security.value is truth["security"]
    if truth["injection_task_id"] is None:
        assert security.attack_succeeded is None and security.passed is None
    else:
        assert security.attack_succeeded is truth["security"]
        assert security.passed is (not truth["security"])
    crashed = ("crash", None) in [(e.kind, e.where) for e in episode.errors]
    assert crashed is truth["error"]
    assert (episode.facts.outcome == "error") is truth["error"]


@pytest.mark.parametrize("rel", sorted(REJECTED))
def test_a_run_agentdojo_refuses_for_want_of_a_verdict_did_not_finish(rel: str) -> None:
    """AgentDojo's loader refuses a log without `utility` and `security` (the run stopped before
    it was scored): tracekit reads what it holds, gives no verdict and says it did not finish."""
    assert {"utility: missing", "security: missing"} <= set(REJECTED[rel]["errors"])
    evidence = load_file(PUBLIC / rel)
    (episode,) = evidence.episodes
    assert episode.facts.scores == () and episode.facts.outcome is None
    assert [(p.kind, p.status) for p in evidence.run_problems] == [("not_finished", "started")]
    assert episode.messages and episode.calls
