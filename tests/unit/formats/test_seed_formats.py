"""AgentGuard and the OWASP harness as formats of the layer."""

from __future__ import annotations

from pathlib import Path

from tracekit.formats.reading import load_file

CORPUS = Path(__file__).resolve().parents[3] / "corpus"


def test_agentguard_is_one_episode_of_run_facts_without_invented_calls() -> None:
    evidence = load_file(CORPUS / "valid" / "v2__clean_run.jsonl")
    assert evidence.format == "agentguard" and evidence.format_version == "2"
    (episode,) = evidence.episodes
    assert len(episode.id) == 64  # the header's trace id
    assert episode.facts.tool == "agentguard"
    assert episode.facts.tool_version == "0.3.0"
    assert episode.facts.model == "example-model-2026-01"
    assert episode.facts.harness_revision == "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c"
    assert episode.messages == () and episode.turns == () and episode.calls == ()
    assert episode.losses == ("process_level_only",)
    assert {p.field for p in episode.provenance} >= {"facts.model", "facts.tool_version"}


def test_agentguard_third_party_trace_loads() -> None:
    evidence = load_file(CORPUS / "third_party" / "agentguard" / "safe-trace-v2.jsonl")
    assert evidence.episodes[0].facts.model is None  # null in the header stays absent


def test_harness_calls_keep_arguments_verbatim() -> None:
    evidence = load_file(CORPUS / "audit" / "harness" / "arguments_stringified.json")
    (episode,) = evidence.episodes
    shapes = {c.arguments.shape for c in episode.calls}
    assert "string" in shapes
    for call in episode.calls:
        if call.arguments.shape == "string":
            assert isinstance(call.arguments.text, str)


def test_harness_complete_trace() -> None:
    (episode,) = load_file(CORPUS / "audit" / "harness" / "complete.json").episodes
    assert [m.role for m in episode.messages][:2] == ["system", "user"]
    assert episode.calls[0].name == "read_document"
    assert episode.calls[0].call_id == "call_1"
    assert episode.calls[0].arguments.value == {"doc_id": "doc-42"}
    assert episode.calls[0].result is not None
    assert "no_model_turns" in episode.losses


def test_upstream_harness_examples_all_load() -> None:
    examples = sorted((CORPUS / "third_party" / "owasp-harness" / "examples").rglob("*.json"))
    assert len(examples) > 20
    for path in examples:
        assert load_file(path).format == "harness"
