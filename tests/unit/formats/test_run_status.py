"""Run status of imported files (docs/formats.md, "Run status"): a run that did not finish, or
whose totals disagree with its records, is a finding; a missing sample is never an episode."""

from __future__ import annotations

import json
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tracekit.formats.reading import load_file
from tracekit.judging.audit.imported import audit_evidence
from tracekit.kernel.errors import Code

ROOT = Path(__file__).resolve().parents[3]
INSPECT = ROOT / "corpus" / "third_party" / "inspect"
TRACEKIT = ROOT / ".venv" / "bin" / "tracekit"


def _log(**changes: Any) -> dict[str, Any]:
    log = json.loads((INSPECT / "tracekit_corpus.json").read_text())
    log.update(changes)
    return log


def _codes(path: Path) -> list[str]:
    evidence = load_file(path)
    return [f.code.value for f in audit_evidence(str(path), evidence).findings]


@pytest.mark.parametrize("status", ["error", "cancelled", "started"])
def test_a_failed_run_without_samples_is_a_finding_and_no_episode(tmp_path: Path, status: str) -> None:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(_log(status=status, samples=[])))
    evidence = load_file(path)
    assert evidence.episodes == ()
    assert [(p.kind, p.status) for p in evidence.run_problems][0] == ("not_finished", status)
    report = audit_evidence(str(path), evidence)
    assert not report.rerunnable and report.exit_code == 1
    codes = [f.code for f in report.findings]
    assert Code.AUDIT_RUN_NOT_FINISHED in codes and Code.AUDIT_RUN_SAMPLES_MISSING in codes


def test_the_cli_counts_no_episode_for_a_failed_run(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text(json.dumps(_log(status="error", samples=[], error={"message": "x"})))
    done = subprocess.run([str(TRACEKIT), "audit", str(path)], capture_output=True, text=True)
    assert done.returncode == 1
    assert "0 episode(s), 0 rerunnable" in done.stderr + done.stdout


def test_results_claiming_samples_the_file_does_not_hold(tmp_path: Path) -> None:
    log = _log()
    log["samples"] = log["samples"][:4]
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(log))
    (problem,) = load_file(path).run_problems
    assert (problem.kind, problem.claimed, problem.held) == ("samples_missing", 9, 4)
    log["results"]["total_samples"] = 2
    path.write_text(json.dumps(log))
    (problem,) = load_file(path).run_problems
    assert (problem.kind, problem.claimed, problem.held) == ("totals_contradict", 2, 4)


def test_an_unknown_status_word_is_not_repeated(tmp_path: Path) -> None:
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(_log(status="CANARY-status-do-not-echo")))
    report = audit_evidence(str(path), load_file(path))
    text = json.dumps([f.message for f in report.findings])
    assert "CANARY" not in text and "unknown" in text


@pytest.mark.parametrize("name", ["tracekit_corpus.json", "tracekit_corpus.eval", "tracekit_corpus_epochs.eval"])
def test_finished_real_runs_have_no_run_problem(name: str) -> None:
    assert load_file(INSPECT / name).run_problems == ()


def test_an_eval_still_being_written_is_read_as_started(tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard")
    path = tmp_path / "partial.eval"
    raw = (INSPECT / "tracekit_corpus.eval").read_bytes()
    with zipfile.ZipFile(INSPECT / "tracekit_corpus.eval") as real, zipfile.ZipFile(path, "w") as cut:
        for info in real.infolist():
            if info.filename.startswith(("_journal/start.json", "samples/")):
                local = raw[info.header_offset + 26 : info.header_offset + 30]
                start = info.header_offset + 30 + int.from_bytes(local[:2], "little") + int.from_bytes(local[2:], "little")
                body = zstandard.ZstdDecompressor().decompressobj().decompress(raw[start : start + info.compress_size])
                cut.writestr(info.filename, body, zipfile.ZIP_DEFLATED)
    evidence = load_file(path)
    assert len(evidence.episodes) == 9
    assert [(p.kind, p.status) for p in evidence.run_problems] == [("not_finished", "started")]
    assert Code.AUDIT_RUN_NOT_FINISHED.value in _codes(path)
