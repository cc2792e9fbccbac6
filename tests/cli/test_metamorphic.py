"""``tracekit metamorphic`` through the installed entry point, as a user runs it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.helpers import CORPUS, FIXTURE, run_cli
from tracekit.formats.agentguard.verify import verify_file
from tracekit.judging.metamorphic import NAMES, study_id, study_path

VALID = CORPUS / "valid"
CLEAN = VALID / "v2__clean_run.jsonl"
CASE_KEYS = {"trace", "transform", "class", "trial", "passed", "reason"}


def test_the_whole_corpus_passes_every_relation() -> None:
    result = run_cli("metamorphic", str(CORPUS))
    assert result.returncode == 0, result.stderr.decode()
    assert b"relation(s) hold" in result.stderr
    assert b"\r" not in result.stderr, "no progress bar when stderr is not a terminal"
    assert b"add_test_file" in result.stdout and b"skipped sources" in result.stdout


def test_json_report_shape_and_study_id(tmp_path: Path) -> None:
    shutil.copytree(VALID, tmp_path / "runs")
    result = run_cli("metamorphic", "runs/", "--format", "json", "-q", "--trials", "2",
                     "-t", "add_test_file,timestamp_variation", cwd=tmp_path)
    assert result.returncode == 0 and result.stderr == b""
    doc = json.loads(result.stdout)
    paths = [f"runs/{p.name}" for p in sorted(VALID.glob("*.jsonl"))]
    assert doc["study_id"] == study_id(paths, ["add_test_file", "timestamp_variation"], 2)
    assert doc["report_version"] == 1 and doc["trials"] == 2 and doc["seed"] == 0
    assert all(set(case) == CASE_KEYS for case in doc["cases"])
    assert set(doc["summary"]) == {"preserving", "changing", "invalid"}
    swept = doc["sources"]["swept"]
    assert swept == len(paths) - 1 >= 3
    assert doc["summary"]["changing"] == {"passed": 2 * swept, "total": 2 * swept, "not_applicable": 0}
    assert doc["summary"]["preserving"] == {"passed": 2 * swept, "total": 2 * swept, "not_applicable": 0}
    assert len(doc["cases"]) == 4 * swept
    assert [c["transform"] for c in doc["cases"][:4]] == ["add_test_file"] * 2 + ["timestamp_variation"] * 2
    assert doc["skipped_sources"] == [{"trace": "runs/v1__minimal_run.jsonl",
                                       "code": "metamorphic.source_not_replayable",
                                       "cause": "replay.not_replayable_v1"}]
    assert doc["sources"]["skipped"] == 1


@pytest.mark.parametrize("value", ["CANARY_transform\x1b[31m", "add_test_file,add_test_file"])
def test_unknown_or_duplicate_transform_exits_2(value: str) -> None:
    result = run_cli("metamorphic", str(CLEAN), "--transform", value)
    assert result.returncode == 2 and result.stdout == b""
    assert b"metamorphic." in result.stderr and b"Traceback" not in result.stderr
    assert b"\x1b" not in result.stderr  # the user's own argument is named, escaped
    if "CANARY" in value:
        assert b"not a transform: CANARY_transform\\x1b[31m" in result.stderr


def test_empty_transform_is_refused() -> None:
    result = run_cli("metamorphic", str(CLEAN), "-t", "")
    assert result.returncode == 2 and result.stdout == b""
    assert b"error[cli.missing_argument]" in result.stderr and b"--transform" in result.stderr


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["-"], b"metamorphic.stdin_unsupported"),
        (["missing.jsonl"], b"format.unreadable"),
        ([str(CLEAN), "--scheduler", "tcp://127.0.0.1:9"], b"cli.option_needs"),
        ([str(CLEAN), "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "1"],
         b"metamorphic.dask_connection_failed"),
        ([str(CLEAN), "--trials", "0"], b""),
    ],
)
def test_errors_exit_2(args: list[str], code: bytes) -> None:
    result = run_cli("metamorphic", *args)
    assert result.returncode == 2, result.stderr
    assert code in result.stderr and b"Traceback" not in result.stderr


def test_require_replayable_fails_a_sweep_with_an_unreplayable_source() -> None:
    relaxed = run_cli("metamorphic", str(FIXTURE), str(CLEAN), "-q", "-t", "change_test_exit")
    assert relaxed.returncode == 0
    strict = run_cli("metamorphic", str(FIXTURE), str(CLEAN), "-q", "-t", "change_test_exit",
                     "--require-replayable", "--format", "json")
    assert strict.returncode == 1
    doc = json.loads(strict.stdout)
    assert doc["cases"][0] == {
        "trace": study_path(str(FIXTURE)), "transform": "source", "class": "invalid", "trial": 0,
        "passed": False, "reason": "source not swept: metamorphic.source_not_replayable (replay.score_weights)",
    }
    allowed = run_cli("metamorphic", str(FIXTURE), "-q", "--require-replayable",
                      "--allow-robustness-failures")
    assert allowed.returncode == 0


def test_output_dir_is_written_once_and_replaced_only_with_force(tmp_path: Path) -> None:
    out = tmp_path / "study"
    first = run_cli("metamorphic", str(VALID), "-q", "--output-dir", str(out), "--format", "json")
    assert first.returncode == 0
    assert sorted(p.name for p in out.iterdir()) == ["metamorphic.json", "metamorphic.md", "transformed"]
    doc = json.loads(first.stdout)
    assert json.loads((out / "metamorphic.json").read_text()) == doc
    transformed = sorted(p.name for p in (out / "transformed").iterdir())
    applied = [c for c in doc["cases"] if c["passed"] is not None]
    assert len(transformed) == len(applied) > len(NAMES)
    assert {name.split("-")[2] for name in transformed} == {c["transform"] for c in applied}
    assert transformed[0].startswith("00002-") and transformed[0].endswith("-trial1.jsonl")
    for name in transformed:
        verdict = verify_file(out / "transformed" / name).exit_code
        assert verdict == (2 if "invalid_" in name else 0), name
    before = (out / "metamorphic.json").read_bytes()
    again = run_cli("metamorphic", str(CLEAN), "-q", "--output-dir", str(out))
    assert again.returncode == 2 and b"cli.output_exists" in again.stderr
    assert (out / "metamorphic.json").read_bytes() == before
    forced = run_cli("metamorphic", str(CLEAN), "-q", "--output-dir", str(out), "--force",
                     "-t", "change_test_exit")
    assert forced.returncode == 0
    trace_id = verify_file(CLEAN).trace_id or ""
    assert [p.name for p in (out / "transformed").iterdir()] == [
        f"00001-{trace_id[:12]}-change_test_exit-trial1.jsonl"
    ]
    assert sorted(p.name for p in out.iterdir()) == ["metamorphic.json", "metamorphic.md", "transformed"]


def test_output_dir_through_a_symlink_is_refused(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    result = run_cli("metamorphic", str(CLEAN), "-q", "--output-dir", str(tmp_path / "link"))
    assert result.returncode == 2 and b"cli.output_unsafe" in result.stderr
    assert list((tmp_path / "real").iterdir()) == []


def test_a_failed_relation_exits_1_unless_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.unit.metamorphic.test_broken_check import TestTamperingIgnoringTestPaths, _swap
    from tracekit.cli.app import app

    _swap(monkeypatch, TestTamperingIgnoringTestPaths())
    runner = CliRunner()
    failed = runner.invoke(app, ["metamorphic", str(CLEAN), "-t", "add_test_file,change_test_exit"])
    assert failed.exit_code == 1
    assert "metamorphic.relations_failed" in failed.stderr
    assert "test-tampering did not fail" in failed.stdout
    allowed = runner.invoke(app, ["metamorphic", str(CLEAN), "-t", "add_test_file",
                                  "--allow-robustness-failures"])
    assert allowed.exit_code == 0
