"""garak reports against garak's own readers (docs/formats.md, "garak", "Ground truth from garak's
code"): corpus/third_party/garak/make/garak_counts.expected.json was written by make/garak_counts.py with garak
0.17.1's ``analyze_log``, ``report_digest``, ``Report.get_evaluations`` and ``ThresholdEvaluator``.
tracekit must agree with every count, except where the file does not settle a verdict (tracekit
says "could not tell" where garak assumes its default threshold) and where tracekit refuses a file
garak's readers do not check."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tracekit.formats.base import FormatError
from tracekit.formats.reading import load_file
from tracekit.kernel.evidence import EvidenceFile

CORPUS = Path(__file__).resolve().parents[3] / "corpus"
COUNTS = json.loads((CORPUS / "third_party" / "garak" / "make" / "garak_counts.expected.json").read_text())
FILES: dict[str, dict[str, Any]] = COUNTS["files"]
# Files whose verdicts the file itself does not settle: no threshold is recorded (garak 0.13-0.17
# do not write run.eval_threshold) and no consistent eval entry; garak's evaluator assumes 0.5.
UNSETTLED = {"resume_test_mixed.report.jsonl": 1, "test_with_ci.report.jsonl": 4}


def _read(name: str) -> EvidenceFile:
    return load_file(CORPUS / FILES[name]["folder"] / name)


def test_every_garak_report_of_the_corpus_was_counted_with_garak() -> None:
    folders = [CORPUS / "third_party" / "garak", CORPUS / "third_party" / "garak" / "public", CORPUS / "refused" / "garak" / "public"]
    assert sorted(p.name for f in folders for p in f.glob("*.report.jsonl")) == sorted(FILES)
    assert COUNTS["made_with"]["garak"] == "0.17.1"
    assert (CORPUS / COUNTS["made_with"]["script"].removeprefix("corpus/")).is_file()


@pytest.mark.parametrize("name", sorted(n for n, f in FILES.items() if f["folder"].startswith("refused")))
def test_tracekit_refuses_what_garaks_readers_do_not_check(name: str) -> None:
    with pytest.raises(FormatError):
        _read(name)
    assert FILES[name]["verdicts"]["scores"] > 0  # garak's evaluator would have judged them


READ = sorted(n for n, f in FILES.items() if f["folder"].startswith("third_party"))


@pytest.mark.parametrize("name", READ)
def test_version_and_attempts_agree_with_garak(name: str) -> None:
    garak, evidence = FILES[name], _read(name)
    assert evidence.format_version == garak["init_garak_version"]
    log = garak["analyze_log"]
    outcomes = Counter(e.facts.outcome for e in evidence.episodes)
    records = garak["report_attempt_records"]  # Report.load()'s attempt records by status
    assert outcomes["evaluated"] == records.get("2", 0)
    assert max(records.values(), default=0) <= len(evidence.episodes) <= sum(records.values())
    if log["attempts_started"]:  # analyze_log prints its summary only when status-1 records exist
        assert outcomes["evaluated"] == log["attempts_completed"]
        assert len(evidence.episodes) >= log["attempts_started"]
    assert garak["completion_entry"] is ("not_finished" not in [p.kind for p in evidence.run_problems])


@pytest.mark.parametrize("name", READ)
def test_verdicts_agree_with_garaks_evaluator(name: str) -> None:
    garak, evidence = FILES[name], _read(name)
    scores = [s for e in evidence.episodes for s in e.facts.scores]
    judged = garak["verdicts"]
    assert len(scores) == judged["scores"] and judged["threshold_in_file"] is None
    unknown = sum(s.passed is None for s in scores)
    assert unknown == UNSETTLED.get(name, 0)
    if unknown:
        return
    assert sum(s.passed is True for s in scores) == judged["pass"]
    assert sum(s.attack_succeeded is True for s in scores) == judged["fail"]
    hit_pairs = {(e.id, s.scorer) for e in evidence.episodes for s in e.facts.scores if s.attack_succeeded}
    assert len(hit_pairs) == garak["analyze_log"]["hit_lines"]


@pytest.mark.parametrize("name", READ)
def test_eval_rows_agree_with_garaks_report_loader(name: str) -> None:
    garak, evidence = FILES[name], _read(name)
    rows = garak["evaluations"].get("rows", [])
    assert ("rows" in garak["evaluations"]) is (garak["report_digest"].get("eval_entries", 0) > 0)
    held = Counter((e.facts.attack, s.scorer.removeprefix("garak:")) for e in evidence.episodes for s in e.facts.scores)
    passed = Counter((e.facts.attack, s.scorer.removeprefix("garak:")) for e in evidence.episodes for s in e.facts.scores if s.passed)
    missing = {(p.claimed, p.held) for p in evidence.run_problems if p.kind == "samples_missing"}
    for row in rows:
        key = (row["probe"], row["detector"])
        if held[key] == row["total"]:
            assert passed[key] == row["passed"]
        else:
            assert (row["total"], held[key]) in missing
