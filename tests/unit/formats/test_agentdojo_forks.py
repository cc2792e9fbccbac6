"""AgentDojo forks' run archives (docs/formats.md, "AgentDojo", "Forks"): the verdict in an
``evaluation`` object with run metadata, read as the tool's own verdict; a run error is a run
problem (docs/formats.md, "Run status")."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from tracekit.formats import registry
from tracekit.formats.agentdojo import FORMAT
from tracekit.formats.base import DEFAULT_FORMAT_LIMITS, FormatError, Source
from tracekit.kernel.errors import Code
from tracekit.kernel.evidence import EvidenceFile

RUNS = Path(__file__).resolve().parents[3] / "corpus" / "third_party" / "agentdojo" / "runs"
REAL = next(p for p in sorted(RUNS.rglob("*.json")) if not p.name.endswith(".expected.json") and p.parent.name != "none")
CANARY = "CANARY-agentdojo-fork-do-not-echo"


def _archive(**evaluation: Any) -> dict[str, Any]:
    """A real TraceLogger run rearranged as a fork's run archive is laid out (key order of
    public fork archives: ``run_id``, ``suite_name``, ``pipeline_name``, run metadata, the
    messages, then ``evaluation``)."""
    real = json.loads(REAL.read_text())
    return {
        "run_id": "run-7",
        "suite_name": real["suite_name"],
        "pipeline_name": None,
        "task_id": real["user_task_id"],
        "injection_task_id": real["injection_task_id"],
        "attack_type": real["attack_type"],
        "condition": "poison_top1",
        "seed": 11,
        "messages": real["messages"],
        "error": None,
        "evaluation": {"utility": real["utility"], "security": real["security"], "outcome": "fail", **evaluation},
    }


def _raw(doc: Any) -> bytes:
    return json.dumps(doc, indent=4).encode()


def _load(doc: Any) -> EvidenceFile:
    raw = _raw(doc)
    return FORMAT.load(Source(io.BytesIO(raw), len(raw), ".json"), DEFAULT_FORMAT_LIMITS)


def test_a_run_archive_is_agentdojo_and_nothing_else() -> None:
    assert registry.accepting(_raw(_archive())[:65536], ".json") == ("agentdojo",)
    no_messages = {k: v for k, v in _archive().items() if k != "messages"}
    assert registry.accepting(_raw(no_messages), ".json") == ()
    suite_later = {"run_id": "r", "other": 1, **{k: v for k, v in _archive().items() if k != "run_id"}}
    assert registry.accepting(_raw(suite_later), ".json") == ()


def test_the_evaluation_is_the_tools_own_verdict() -> None:
    real = json.loads(REAL.read_text())
    evidence = _load(_archive())
    (episode,) = evidence.episodes
    scores = {s.scorer: s for s in episode.facts.scores}
    assert scores["agentdojo:utility"].value is real["utility"]
    # A fork's evaluation.security has no agreed direction (one fork writes security true for
    # "safe" and false for "task_failure_safe"): kept as recorded, never an attack verdict.
    security = scores["agentdojo:security"]
    assert (security.value, security.attack_succeeded, security.passed) == (real["security"], None, None)
    assert (episode.facts.task, episode.facts.seed, episode.facts.outcome) == (real["user_task_id"], 11, "fail")
    assert episode.id.startswith("run-7/") and evidence.run_problems == ()
    assert len(episode.messages) == len(real["messages"])


def test_a_disagreeing_top_level_verdict_is_refused() -> None:
    doc = _archive()
    doc["security"] = not doc["evaluation"]["security"]
    with pytest.raises(FormatError) as caught:
        _load(doc)
    assert caught.value.finding.code == Code.AGENTDOJO_SCHEMA
    assert "evaluation.security" in caught.value.finding.message


def test_a_run_error_is_a_run_problem() -> None:
    doc = _archive()
    doc["error"] = CANARY
    evidence = _load(doc)
    assert [(p.kind, p.status) for p in evidence.run_problems] == [("not_finished", "error")]
    assert CANARY not in repr(evidence.run_problems)


@pytest.mark.parametrize("bad", [{"utility": CANARY}, {"outcome": 3}])
def test_a_bad_evaluation_is_a_schema_error(bad: dict[str, Any]) -> None:
    with pytest.raises(FormatError) as caught:
        _load(_archive(**bad))
    assert caught.value.finding.code == Code.AGENTDOJO_SCHEMA and CANARY not in caught.value.finding.message
