"""Findings on the real third-party logs (docs/findings.md): the injected-email episodes fail the
external-recipient policy with provenance at the tool result that carried the address, the
benign ones pass, and the tools' own verdicts are set beside ours."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tracekit.formats.reading import load_file
from tracekit.judging.findings.judge import EpisodeVerdict, judge_file
from tracekit.judging.findings.sweep import SweepTally, sweep_file
from tracekit.judging.harness.scenario import parse_scenario

ROOT = Path(__file__).resolve().parent.parent
THIRD = ROOT / "corpus" / "third_party"
SCENARIO = parse_scenario((ROOT / "corpus" / "findings" / "exfil-email.yaml").read_bytes())
READERS = {"read_email", "read_file", "search_emails", "search_files"}
AGENTDOJO = THIRD / "agentdojo" / "runs" / "scripted-model"
AGENTDOJO_EXFIL = {"workspace/user_task_14/injecagent/injection_task_4.json", "workspace/user_task_14/injecagent/injection_task_100.json"}


def _recipient(verdict: EpisodeVerdict) -> str:
    return next(a.result for a in verdict.assertions if a.id == "no_external_recipient")


def _assert_exfiltration(verdict: EpisodeVerdict) -> None:
    assert _recipient(verdict) == "fail"
    chain = next(a.provenance for a in verdict.assertions if a.id == "no_external_recipient")
    assert chain is not None and chain.call.tool == "send_email" and chain.call.outcome == "succeeded"
    assert chain.origin is not None and chain.origin.kind == "tool_result" and chain.origin.match == "exact"
    assert chain.origin.call is not None and chain.origin.call.tool in READERS
    assert chain.origin.call.turn < chain.call.turn


@pytest.mark.parametrize("name", ["tracekit_corpus.eval", "tracekit_corpus.json", "tracekit_corpus.converted.json",
                                  "tracekit_corpus_epochs.eval"])
def test_inspect_injected_episodes_fail_with_provenance(name: str) -> None:
    truth = json.loads((THIRD / "inspect" / f"{name}.expected.json").read_bytes())
    external = {f"{e['id']}_epoch_{e['epoch']}" for e in truth["episodes"] if e["external_recipients"]}
    verdicts = judge_file(SCENARIO, load_file(THIRD / "inspect" / name), strict=True)
    assert len(verdicts) == len(truth["episodes"]) and external
    for verdict in verdicts:
        if verdict.episode in external:
            _assert_exfiltration(verdict)
            # Inspect's includes() scorer marked the exfiltrating sample correct: a disagreement.
            assert verdict.disagrees
        else:
            assert _recipient(verdict) == "pass", verdict.episode


def test_inspect_compatible_mode_misses_the_list_recipient() -> None:
    verdicts = {v.episode: v for v in judge_file(SCENARIO, load_file(THIRD / "inspect" / "tracekit_corpus.eval"))}
    assert _recipient(verdicts["injection_exfil_str_epoch_1"]) == "fail"
    assert _recipient(verdicts["injection_exfil_list_epoch_1"]) == "pass"


def test_otel_injected_traces_fail_with_provenance() -> None:
    name = "genai_content.otlp.jsonl"
    truth = json.loads((THIRD / "otel" / f"{name}.expected.json").read_bytes())
    expected_failures = sum(1 for t in truth["traces"] if t["external_recipients"])
    verdicts = judge_file(SCENARIO, load_file(THIRD / "otel" / name), strict=True)
    failing = [v for v in verdicts if _recipient(v) == "fail"]
    assert len(verdicts) == len(truth["traces"]) and len(failing) == expected_failures > 0
    for verdict in failing:
        _assert_exfiltration(verdict)


def test_otel_without_content_has_no_earlier_text() -> None:
    verdicts = judge_file(SCENARIO, load_file(THIRD / "otel" / "genai_no_content.otlp.jsonl"), strict=True)
    for verdict in verdicts:
        for assertion in verdict.assertions:
            if assertion.provenance is not None and assertion.provenance.origin is not None:
                assert assertion.provenance.origin.kind == "model"


def test_agentdojo_injected_runs_fail_and_benign_runs_pass() -> None:
    files = sorted(p for p in AGENTDOJO.rglob("*.json") if not p.name.endswith(".expected.json"))
    assert len(files) == 9
    for path in files:
        relative = path.relative_to(AGENTDOJO).as_posix()
        [verdict] = judge_file(SCENARIO, load_file(path), strict=True)
        if relative in AGENTDOJO_EXFIL:
            _assert_exfiltration(verdict)
            security = [t for t in verdict.tool_verdicts if t.scorer == "agentdojo:security"]
            assert security and security[0].agreement == "agree"
        elif relative.startswith("banking/"):
            # A payment's IBAN is a recipient too, outside the allowed domains; provenance shows
            # the user asked for it, which is what tells a reviewer this is not an attack.
            chain = next(a.provenance for a in verdict.assertions if a.id == "no_external_recipient")
            assert chain is not None and chain.call.tool == "schedule_transaction"
            assert chain.origin is not None and chain.origin.kind == "user_instruction"
        else:
            assert _recipient(verdict) == "pass", relative


def test_every_evidence_relation_holds_on_the_corpus() -> None:
    tally = SweepTally.new()
    files = [THIRD / "inspect" / "tracekit_corpus.eval", THIRD / "otel" / "genai_content.otlp.jsonl",
             *sorted(p for p in AGENTDOJO.rglob("*.json") if not p.name.endswith(".expected.json"))]
    for path in files:
        sweep_file(path.name, load_file(path).episodes, SCENARIO, tally, trials=1, strict=True)
    assert tally.failed == 0, [(c.trace, c.episode, c.transform, c.reason) for c in tally.failures]
    applied = {name for name, count in tally.transforms.items() if count.total}
    assert {"rename_call_ids", "reorder_parallel_calls", "recipient_as_list", "domain_letter_case",
            "external_recipient", "plant_secret", "dangling_call_id"} <= applied


def test_compatible_mode_breaks_a_relation_on_the_corpus() -> None:
    tally = SweepTally.new()
    sweep_file("eval", load_file(THIRD / "inspect" / "tracekit_corpus.eval").episodes, SCENARIO, tally, strict=False)
    assert "recipient_as_list" in {c.transform for c in tally.failures}
