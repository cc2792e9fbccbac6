"""garak importer: the real report and hit log asserted against their ground truth, the
two-records-per-attempt rule, verdicts only where the file settles them, hostile lines."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tracekit.formats import registry
from tracekit.formats.base import DEFAULT_FORMAT_LIMITS, FormatError, FormatLimits, Source
from tracekit.formats.garak import FORMAT
from tracekit.formats.reading import load_file
from tracekit.kernel.errors import Code
from tracekit.kernel.evidence import EvidenceFile

ROOT = Path(__file__).resolve().parents[3]
GARAK = ROOT / "corpus" / "third_party" / "garak"
TRUTHS = sorted(GARAK.glob("*.expected.json"))
CANARY = "CANARY-garak-2207-do-not-echo"


def test_the_corpus_is_present() -> None:
    assert len(TRUTHS) >= 2


@pytest.mark.parametrize("path", sorted(GARAK.glob("*.jsonl")), ids=lambda p: p.name)
def test_every_real_file_is_garak_and_nothing_else(path: Path) -> None:
    assert registry.accepting(path.read_bytes()[:65536], ".jsonl") == ("garak",)


@pytest.mark.parametrize("truth_path", TRUTHS, ids=lambda p: p.name)
def test_report_matches_ground_truth(truth_path: Path) -> None:
    truth = json.loads(truth_path.read_text())
    evidence = load_file(GARAK / truth["file"])
    assert evidence.format == "garak" and evidence.format_version == "0.17.1"
    probes = {p["probe"]: p for p in truth["probes"]}
    lines = (GARAK / truth["file"]).read_text().splitlines()
    assert sum(1 for line in lines if '"entry_type": "attempt"' in line) == sum(p["attempt_entries"] for p in probes.values())
    assert Counter(e.facts.attack for e in evidence.episodes) == {name: p["attempts"] for name, p in probes.items()}
    hits = Counter()
    for episode in evidence.episodes:
        facts = episode.facts
        probe = probes[facts.attack or ""]
        assert facts.tool == "garak" and facts.tool_version == "0.17.1"
        assert facts.model == truth["run"]["target_name"]
        assert facts.seed == truth["run"]["seed"]
        assert facts.sampling == {"generations": truth["run"]["generations"]}
        assert facts.outcome == "evaluated"
        assert episode.calls == () and episode.losses == ("text_only",) and episode.errors == ()
        assert episode.truncations == ()
        outputs = [m for m in episode.messages if m.role == "assistant"]
        assert len(outputs) == len(episode.turns) == probe["outputs_per_attempt"]
        last_prompt = [m for m in episode.messages if m.role == "user"][-1].text
        expected_text = "" if probe["output_rule"] == "empty text" else last_prompt
        assert [m.text for m in outputs] == [expected_text] * len(outputs)
        by_detector = {s.scorer.removeprefix("garak:"): s for s in facts.scores}
        assert set(by_detector) == set(probe["detectors"])
        for name, detector in probe["detectors"].items():
            score = by_detector[name]
            assert score.value == detector["score_each"]
            all_hit = detector["eval_passed"] == 0
            assert score.attack_succeeded is all_hit and score.passed is (not all_hit)
            hits[facts.attack] += int(bool(score.attack_succeeded))
    assert {name: hits[name] for name in probes} == {name: p["hits"] for name, p in probes.items()}
    if truth["hitlog"]:
        hitlog = load_file(GARAK / truth["hitlog"])
        assert len(hitlog.episodes) == sum(p["hits"] for p in probes.values())
        report_ids = {e.id: e for e in evidence.episodes}
        for episode in hitlog.episodes:
            assert episode.facts.outcome == "hit"
            assert all(s.attack_succeeded for s in episode.facts.scores)
            twin = report_ids[episode.id]
            assert [m.text for m in episode.messages] == [m.text for m in twin.messages]
            assert episode.facts.attack == twin.facts.attack and episode.facts.attack_task == twin.facts.attack_task


def _lines(*entries: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(e).encode() + b"\n" for e in entries)


def _load(raw: bytes, limits: FormatLimits = DEFAULT_FORMAT_LIMITS) -> EvidenceFile:
    return FORMAT.load(Source(io.BytesIO(raw), len(raw), ".jsonl"), limits)


def _attempt(status: int, uuid: str = "u1", output: str = "out", **extra: Any) -> dict[str, Any]:
    return {
        "entry_type": "attempt",
        "uuid": uuid,
        "seq": 0,
        "status": status,
        "probe_classname": "p.P",
        "prompt": {"turns": [{"role": "user", "content": {"text": "q"}}]},
        "outputs": [{"text": output}, None],
        "detector_results": {"d.D": [0.7, None]} if status == 2 else {},
        "goal": "g",
        **extra,
    }


SETUP = {"entry_type": "start_run setup", "run.seed": 1, "run.eval_threshold": 0.5}


def test_one_episode_per_attempt_from_the_evaluated_record() -> None:
    evidence = _load(_lines(SETUP, _attempt(1), _attempt(1, "u2"), _attempt(2)))
    first, second = evidence.episodes
    assert (first.id, first.facts.outcome) == ("u1", "evaluated")
    assert (second.id, second.facts.outcome, second.facts.scores) == ("u2", "not_evaluated", ())
    scores = first.facts.scores
    assert [(s.value, s.attack_succeeded) for s in scores] == [(0.7, True), (None, None)]
    assert first.turns[1].error and ("model_error", "turns[1]") in [(e.kind, e.where) for e in first.errors]


def test_without_threshold_or_settling_eval_the_verdict_is_absent() -> None:
    mixed = {"entry_type": "eval", "probe": "p.P", "detector": "d.D", "passed": 1, "fails": 1}
    (episode,) = _load(_lines({"entry_type": "init", "garak_version": "x"}, _attempt(1), _attempt(2), mixed)).episodes
    assert episode.facts.scores[0].attack_succeeded is None


@pytest.mark.parametrize(
    ("entries", "field"),
    [
        ((_attempt(1, output=CANARY), _attempt(2)), "outputs"),
        ((_attempt(1), _attempt(2, goal=CANARY)), "goal"),
        ((_attempt(2), _attempt(2)), "status"),
        ((_attempt(2), _attempt(1)), "status"),
    ],
)
def test_disagreeing_records_of_one_attempt_are_refused(entries: tuple[dict[str, Any], ...], field: str) -> None:
    with pytest.raises(FormatError) as caught:
        _load(_lines(*entries))
    assert caught.value.finding.code == Code.GARAK_ATTEMPT_CONFLICT
    assert field in caught.value.finding.message and CANARY not in caught.value.finding.message


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (_lines(_attempt(2, detector_results={"d.D": [CANARY]})), Code.GARAK_SCHEMA),
        (_lines(_attempt(2, uuid=7)), Code.GARAK_SCHEMA),
        (_lines(_attempt(2, prompt={"turns": CANARY})), Code.GARAK_SCHEMA),
        (_lines({"entry_type": "init"}, {CANARY: 1}), Code.GARAK_NOT_A_REPORT),
        (_lines({"entry_type": "eval", "probe": CANARY, "detector": "d", "passed": "1", "fails": 0}), Code.GARAK_SCHEMA),
        (_lines({"entry_type": "init"}) + b'{"entry_type": "' + CANARY.encode() + b"\n", Code.GARAK_INVALID_JSON),
        (b'{"entry_type": "attempt", "prompt": ' + b"[" * 100 + b"]" * 100 + b"}\n", Code.GARAK_TOO_DEEP),
    ],
)
def test_broken_files_get_garak_codes_and_echo_nothing(raw: bytes, code: Code) -> None:
    with pytest.raises(FormatError) as caught:
        _load(raw)
    assert caught.value.finding.code == code
    assert CANARY not in str(caught.value.finding.as_dict())


def test_report_and_hitlog_lines_do_not_mix() -> None:
    hit = {"attempt_id": "u1", "detector": "d", "probe": "p", "score": 1.0, "run_id": "r", "attempt_idx": 0, "prompt": {"turns": []}, "output": {"text": "x"}}
    with pytest.raises(FormatError) as caught:
        _load(_lines(SETUP, hit))
    assert caught.value.finding.code == Code.GARAK_NOT_A_REPORT


def test_bounds() -> None:
    many = _lines(*[_attempt(1, uuid=f"u{i}") for i in range(10)])
    with pytest.raises(FormatError) as caught:
        _load(many, FormatLimits(episodes=5))
    assert caught.value.finding.code == Code.GARAK_TOO_MANY_EPISODES
    with pytest.raises(FormatError) as caught:
        _load(_lines(_attempt(1, outputs=[{"text": "x"}] * 50)), FormatLimits(items_per_episode=10))
    assert caught.value.finding.code == Code.GARAK_TOO_MANY_ITEMS


def test_sniff() -> None:
    assert FORMAT.sniff(b'{"entry_type": "start_run setup", "x": 1}\n', ".jsonl")
    assert FORMAT.sniff(b'{"entry_type": "init", "garak_version": "0.1"', ".jsonl")  # cut by the prefix
    assert not FORMAT.sniff(b'{"entry_type": "other"}\n', ".jsonl")
    assert not FORMAT.sniff(b'{"record_type": "header", "attempt_id": 1, "detector": 1, "probe": 1, "score": 1, "run_id": 1}\n', ".jsonl")
