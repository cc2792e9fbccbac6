"""garak across its versions (docs/formats.md, "garak"): public fixtures of the garak repository
read with their expected counts; the 0.10-0.12 layout (bare-string prompt, string outputs,
``messages`` turn lists, ``passed``/``total`` evals); notes mutated between an attempt's records;
per-turn detector results; one uuid with two ``seq``; eval totals checked against the attempts."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from tracekit.formats import registry
from tracekit.formats.base import DEFAULT_FORMAT_LIMITS, FormatError, FormatLimits, Source
from tracekit.formats.garak import FORMAT
from tracekit.formats.reading import load_file
from tracekit.kernel.errors import Code
from tracekit.kernel.evidence import EvidenceFile

CORPUS = Path(__file__).resolve().parents[3] / "corpus"
READ = CORPUS / "third_party" / "garak" / "public"
REFUSED = CORPUS / "refused" / "garak" / "public"
FOLDERS = {name: folder for folder in (READ, REFUSED) for name in json.loads((folder / "counts.expected.json").read_text())}
EXPECTED: dict[str, dict[str, Any]] = {
    name: want for folder in (READ, REFUSED) for name, want in json.loads((folder / "counts.expected.json").read_text()).items()
}
CANARY = "CANARY-garak-versions-do-not-echo"


@pytest.mark.parametrize("folder", [READ, REFUSED], ids=["read", "refused"])
def test_every_public_file_is_listed_in_sources_and_expected(folder: Path) -> None:
    files = sorted(p.name for p in folder.glob("*.jsonl"))
    sources = (folder / "SOURCES").read_text()
    assert files == sorted(n for n, f in FOLDERS.items() if f == folder) and files
    assert all(f"\n{name} | NVIDIA/garak | " in sources for name in files)
    assert all(("refused" in EXPECTED[name]) is (folder == REFUSED) for name in files)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_public_file_is_garak_and_nothing_else(name: str) -> None:
    assert registry.accepting((FOLDERS[name] / name).read_bytes()[:65536], ".jsonl") == ("garak",)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_public_file_reads_with_expected_counts(name: str) -> None:
    want = EXPECTED[name]
    if "refused" in want:
        with pytest.raises(FormatError) as caught:
            load_file(FOLDERS[name] / name)
        assert (caught.value.finding.code.value, caught.value.finding.line) == (want["refused"], want["line"])
        return
    evidence = load_file(FOLDERS[name] / name)
    assert evidence.format_version == want["garak_version"]
    assert len(evidence.episodes) == want["episodes"]
    assert sum(e.facts.outcome == "evaluated" for e in evidence.episodes) == want["evaluated"]
    assert sum(len(e.facts.scores) for e in evidence.episodes) == want["scores"]
    assert [p.kind for p in evidence.run_problems] == want["run_problems"]


def _lines(*entries: dict[str, Any]) -> bytes:
    return b"".join(json.dumps(e).encode() + b"\n" for e in entries)


def _load(raw: bytes, limits: FormatLimits = DEFAULT_FORMAT_LIMITS) -> EvidenceFile:
    return FORMAT.load(Source(io.BytesIO(raw), len(raw), ".jsonl"), limits)


SETUP = {"entry_type": "start_run setup", "run.eval_threshold": 0.5, "run.generations": 2}
INIT = {"entry_type": "init", "garak_version": "0.12.0"}
DONE = {"entry_type": "completion", "run": "r"}


def _old(status: int, uuid: str = "u1", outputs: tuple[str, ...] = ("no", "yes"), **extra: Any) -> dict[str, Any]:
    """An attempt as garak 0.12's ``Attempt.as_dict`` writes it."""
    turns = [[{"role": "user", "content": "q"}, {"role": "assistant", "content": o}] for o in outputs]
    return {
        "entry_type": "attempt", "uuid": uuid, "seq": 0, "status": status, "probe_classname": "p.P",
        "probe_params": {}, "targets": [], "prompt": "q", "outputs": list(outputs),
        "detector_results": {"d.D": [0.0, 1.0]} if status == 2 else {}, "notes": {}, "goal": "g",
        "messages": turns if status == 2 else [{"role": "user", "content": "q"}], "lang": "en",
        "reverse_translation_outputs": [], **extra,
    }  # fmt: skip


def test_the_0_12_layout_reads() -> None:
    evals = {"entry_type": "eval", "probe": "p.P", "detector": "d.D", "passed": 1, "total": 2}
    evidence = _load(_lines(SETUP, INIT, _old(1), _old(2), evals, DONE))
    (episode,) = evidence.episodes
    assert [(m.role, m.text) for m in episode.messages] == [("user", "q"), ("assistant", "no"), ("assistant", "yes")]
    assert [s.attack_succeeded for s in episode.facts.scores] == [False, True]
    assert evidence.run_problems == () and evidence.format_version == "0.12.0"


def test_a_0_10_eval_names_its_detector_with_a_prefix() -> None:
    evals = {"entry_type": "eval", "probe": "p.P", "detector": "detector.d.D", "passed": 0, "total": 2}
    entry = _old(2, detector_results={"d.D": [0.2, 0.3]})
    (episode,) = _load(_lines({"entry_type": "start_run setup"}, entry, evals, DONE)).episodes
    assert [s.attack_succeeded for s in episode.facts.scores] == [True, True]  # settled by the eval


def test_a_0_12_multi_turn_history_is_the_prompt() -> None:
    history = [[{"role": "system", "content": "s"}, {"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]]
    (episode,) = _load(_lines(_old(2, outputs=("a",), messages=history, detector_results={}))).episodes
    assert [(m.role, m.text) for m in episode.messages] == [("system", "s"), ("user", "q"), ("assistant", "a")]


def test_a_0_12_hitlog_line_reads() -> None:
    hit = {"goal": "g", "prompt": "q", "output": "yes", "triggers": None, "score": 1.0, "run_id": "r",
           "attempt_id": "u1", "attempt_seq": 0, "attempt_idx": 1, "generator": "t t", "probe": "p.P",
           "detector": "d.D", "generations_per_prompt": 2}  # fmt: skip
    raw = _lines(hit)
    assert FORMAT.sniff(raw[:40], ".jsonl")
    (episode,) = _load(raw).episodes
    assert [m.text for m in episode.messages] == ["q", "yes"]


def _new(status: int, note: str, seq: int = 0) -> dict[str, Any]:
    content = {"text": "q", "lang": "en", "notes": {"n": note}}
    return {
        "entry_type": "attempt", "uuid": "u1", "seq": seq, "status": status, "probe_classname": "p.P",
        "prompt": {"turns": [{"role": "user", "content": content}], "notes": {"n": note}},
        "outputs": [{"text": "out", "notes": {"judged": note}}], "notes": {"n": note},
        "detector_results": {"d.D": [[0.1, 0.9]]} if status == 2 else {}, "goal": "g",
    }  # fmt: skip


def test_notes_may_change_between_the_records_of_one_attempt() -> None:
    (episode,) = _load(_lines(SETUP, _new(1, "before"), _new(2, CANARY), DONE)).episodes
    assert [m.text for m in episode.messages] == ["q", "out"]


def test_per_turn_detector_results_are_one_score_per_turn() -> None:
    (episode,) = _load(_lines(SETUP, _new(2, "x"), DONE)).episodes
    assert [(s.value, s.attack_succeeded) for s in episode.facts.scores] == [(0.1, False), (0.9, True)]


@pytest.mark.parametrize(
    ("entries", "field"),
    [
        ((_new(1, "x"), _new(2, "x", seq=1)), "seq"),
        ((_new(2, "x"), _new(2, "x", seq=3)), "seq"),
        ((_new(2, "x"), _new(2, "x")), "status"),
        ((_old(1), _old(2, outputs=(CANARY, "yes"))), "outputs"),
        ((_old(1), _old(2, prompt=CANARY)), "prompt"),
    ],
)
def test_disagreeing_records_name_the_field_that_disagrees(entries: tuple[dict[str, Any], ...], field: str) -> None:
    with pytest.raises(FormatError) as caught:
        _load(_lines(*entries))
    message = caught.value.finding.message
    assert caught.value.finding.code == Code.GARAK_ATTEMPT_CONFLICT
    assert message.endswith(f"disagree on {field}.") and CANARY not in message


@pytest.mark.parametrize(
    ("evals", "kind", "claimed", "held"),
    [
        ({"passed": 1, "total": 2}, None, None, None),
        ({"passed": 1, "total": 5}, "samples_missing", 5, 2),
        ({"passed": 0, "total": 1}, "totals_contradict", 1, 2),
        ({"passed": 2, "total": 2}, "totals_contradict", 0, 1),  # an edited verdict: no fail recorded, one hit held
        ({"passed": 1, "fails": 1, "nones": 3, "total_evaluated": 2}, "totals_contradict", 5, 2),
        ({"passed": 1, "fails": 2, "total_evaluated": 2}, "totals_contradict", 3, 2),
    ],
)
def test_eval_totals_are_checked_against_the_attempts(evals: dict[str, int], kind: str | None, claimed: int | None, held: int | None) -> None:
    entry = {"entry_type": "eval", "probe": "p.P", "detector": "d.D", **evals}
    evidence = _load(_lines(SETUP, _old(2), entry, DONE))
    assert [(p.kind, p.claimed, p.held) for p in evidence.run_problems] == ([] if kind is None else [(kind, claimed, held)])


def test_a_report_without_its_completion_entry_did_not_finish() -> None:
    (problem,) = _load(_lines(SETUP, _old(1))).run_problems
    assert (problem.kind, problem.status) == ("not_finished", "started")


def test_hostile_detector_results_stay_bounded() -> None:
    wide = _old(2, detector_results={"d.D": [[0.1] * 50, 0.2]})
    with pytest.raises(FormatError) as caught:
        _load(_lines(wide), FormatLimits(items_per_episode=20))
    assert caught.value.finding.code == Code.GARAK_TOO_MANY_ITEMS
    with pytest.raises(FormatError) as caught:
        _load(_lines(_old(2, detector_results={"d.D": [[CANARY]]})))
    assert caught.value.finding.code == Code.GARAK_SCHEMA and CANARY not in caught.value.finding.message
    long_history = _old(2, messages=[[{"role": "user", "content": "q"}] * 50])
    with pytest.raises(FormatError) as caught:
        _load(_lines(long_history), FormatLimits(items_per_episode=20))
    assert caught.value.finding.code == Code.GARAK_TOO_MANY_ITEMS


def test_a_per_turn_hit_keeps_the_outputs_scores() -> None:
    hit = {"goal": "g", "prompt": {"turns": [{"role": "user", "content": {"text": "q"}}]}, "output": {"text": "a"},
           "score": [0.1, 0.9], "run_id": "r", "attempt_id": "u1", "attempt_idx": 0, "probe": "p.P", "detector": "d.D"}  # fmt: skip
    ((score,),) = [e.facts.scores for e in _load(_lines(hit)).episodes]
    assert (score.value, score.attack_succeeded) == ([0.1, 0.9], True)
    with pytest.raises(FormatError) as caught:
        _load(_lines({**hit, "score": [CANARY]}))
    assert caught.value.finding.code == Code.GARAK_SCHEMA and CANARY not in caught.value.finding.message
