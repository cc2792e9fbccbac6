"""Completeness per episode on the real Inspect logs, field by field
(tracekit/judging/audit/completeness/episode.py; docs/formats.md, "Completeness per episode")."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from tracekit.formats.reading import load_file
from tracekit.judging.audit.completeness.episode import FIELDS, assess_episode
from tracekit.judging.audit.model import FieldStatus
from tracekit.kernel.evidence import Episode, RunFacts

INSPECT = Path(__file__).resolve().parents[3] / "corpus" / "third_party" / "inspect"
EPISODES = {e.id: e for e in load_file(INSPECT / "tracekit_corpus.eval").episodes}


def _rows(episode: Episode, fmt: str = "inspect") -> dict[str, FieldStatus]:
    rows = assess_episode(episode, fmt)
    assert [r.field for r in rows] == [f.name for f in FIELDS]
    return {r.field: r for r in rows}


def _status(episode: Episode, fmt: str = "inspect") -> dict[str, str]:
    return {name: row.status for name, row in _rows(episode, fmt).items()}


def test_injection_episode_field_by_field() -> None:
    status = _status(EPISODES["injection_exfil_str_epoch_1"])
    assert status == {
        "system_prompt": "missing",  # the task sets none: the operator's gap, not the format's
        "messages_as_sent": "present",
        "tool_schemas": "present",
        "raw_model_response": "present",
        "finish_reason": "present",
        "tool_name": "present",
        "tool_arguments": "present",
        "tool_call_id": "present",
        "tool_result": "present",
        "call_order": "present",
        "start_time": "present",
        "latency": "present",
        "error_and_retry": "partial",  # errors recorded, no per-call retry count in Inspect
        "endpoint": "missing",
        "model_version": "partial",
        "sampling": "missing",  # provider default, unpinned
        "seed": "missing",
        "harness_revision": "missing",  # the run was not in a git checkout
        "tool_server_revision": "not_carried",
        "injection_point": "not_carried",
        "outcome": "present",
        "scorer": "present",
        "results_untruncated": "present",
        "arguments_typed": "present",
        "integrity": "not_carried",
    }


def test_cut_output_is_partial_with_the_loss_named() -> None:
    row = _rows(EPISODES["large_output_epoch_1"])["results_untruncated"]
    assert row.status == "partial" and "result_cut_16k" in row.where and "calls[0]" in row.where


def test_crash_leaves_the_call_without_result() -> None:
    rows = _rows(EPISODES["crash_epoch_1"])
    assert rows["tool_result"].status == "missing" and "calls[0]" in rows["tool_result"].where
    assert rows["outcome"].status == "missing" and rows["scorer"].status == "missing"


def test_tool_error_counts_as_a_recorded_result() -> None:
    rows = _rows(EPISODES["tool_error_epoch_1"])
    assert rows["tool_result"].status == "present"


def test_format_losses_are_never_the_operator_s_fault() -> None:
    for episode in EPISODES.values():
        rows = _rows(episode)
        for name in ("tool_server_revision", "injection_point", "integrity"):
            assert rows[name].status == "not_carried"
        assert "[" in rows["tool_server_revision"].where  # the reason is named


def test_raw_call_sampling_is_a_named_partial() -> None:
    episode = EPISODES["injection_exfil_str_epoch_1"]
    turns = tuple(
        msgspec.structs.replace(t, raw_response=None) if t.index > 0 else t for t in episode.turns
    )
    sampled = msgspec.structs.replace(episode, turns=turns, losses=("raw_call_sampled",))
    row = _rows(sampled)["raw_model_response"]
    assert row.status == "partial" and "raw_call_sampled" in row.where


def test_garak_text_only_fields_are_not_carried() -> None:
    episode = Episode(id="a", facts=RunFacts(tool="garak"), losses=("text_only",))
    status = _status(episode, "garak")
    assert status["tool_schemas"] == "not_carried"
    assert status["raw_model_response"] == "not_carried"
    assert status["tool_name"] == "present"  # no calls: nothing to record


@pytest.mark.parametrize("fmt", ["inspect", "harness", "agentguard", "otel", "agentdojo", "garak"])
def test_every_format_gets_every_row(fmt: str) -> None:
    rows = assess_episode(EPISODES["parallel_calls_epoch_1"], fmt)
    assert len(rows) == len(FIELDS)


def test_agentguard_episode() -> None:
    corpus = INSPECT.parents[1]
    (episode,) = load_file(corpus / "valid" / "v2__clean_run.jsonl").episodes
    status = _status(episode, "agentguard")
    assert status["system_prompt"] == "not_carried"
    assert status["harness_revision"] == "present"
    assert status["model_version"] == "partial"
