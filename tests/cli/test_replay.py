"""replayability and replay through the installed entry point, as a user runs them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.helpers import CORPUS, FIXTURE, run_cli

REPLAY = CORPUS / "replay"
EXACT = REPLAY / "combo__tests_unsafe_diff.jsonl"
SEMANTIC = REPLAY / "equivalence__message_drift.jsonl"
DIVERGENT = REPLAY / "equivalence__lying_score_and_result.jsonl"
TAMPERED = CORPUS / "invalid" / "chain__tampered_payload.jsonl"


def test_shared_fixture_is_not_replayable_with_the_score_weights_reason() -> None:
    result = run_cli("replayability", str(FIXTURE))
    assert result.returncode == 1
    out = result.stdout.decode()
    assert "\nreplayable        no\n" in out
    assert "\nmissing inputs    score_weights\n" in out
    assert "\nreason  1       replay.score_weights" in out
    replayed = run_cli("replay", str(FIXTURE))
    assert replayed.returncode == 2
    assert b"replay.score_weights" in replayed.stderr and b"Traceback" not in replayed.stderr


def test_replayability_exit_codes() -> None:
    assert run_cli("replayability", str(EXACT)).returncode == 0
    assert run_cli("replayability", str(REPLAY / "not_replayable__v1.jsonl")).returncode == 1
    invalid = run_cli("replayability", str(TAMPERED))
    assert invalid.returncode == 2 and b"chain.event_hash_mismatch" in invalid.stderr
    assert b"replay.trace_invalid" in invalid.stderr


def test_replayability_json() -> None:
    result = run_cli(
        "replayability", str(REPLAY / "not_replayable__missing_severity.jsonl"), "--format", "json"
    )
    assert result.returncode == 1
    doc = json.loads(result.stdout)
    assert doc["replayable"] is False and doc["missing_inputs"] == ["severity:diff-size"]
    assert [r["code"] for r in doc["reasons"]] == ["replay.missing_severity"]


def test_replay_exit_codes_and_relaxing_flags() -> None:
    assert run_cli("replay", str(EXACT)).returncode == 0
    assert run_cli("replay", str(SEMANTIC)).returncode == 1
    assert run_cli("replay", str(SEMANTIC), "--no-require-equivalence").returncode == 0
    assert run_cli("replay", str(DIVERGENT)).returncode == 1
    assert run_cli("replay", str(DIVERGENT), "--allow-divergence").returncode == 0
    assert run_cli("replay", str(DIVERGENT), "--require-equivalence").returncode == 1
    assert run_cli("replay", str(TAMPERED)).returncode == 2


def test_replay_table_shows_recorded_and_recomputed() -> None:
    result = run_cli("replay", str(DIVERGENT))
    out = result.stdout.decode()
    assert "equivalence         divergent" in out
    assert "tests-passed" in out and "fail" in out
    assert "score" in out and "100" in out and "70" in out
    assert "tracekit replay: divergent, 3 difference(s); exit 1" in result.stderr.decode()


def test_replay_json_report() -> None:
    result = run_cli("replay", str(EXACT), "--format", "json")
    assert result.returncode == 0
    doc = json.loads(result.stdout)
    assert doc["equivalence"] == "exact" and doc["differences"] == []
    assert doc["recomputed"]["result"] == "FAIL" and doc["recomputed"]["score"] == 10
    assert doc["recorded"]["failed_checks"] == ["Tests passed", "Unsafe commands", "Diff size"]
    assert len(doc["recomputed"]["checks"]) == 7


def test_not_replayable_replay_prints_json_and_exits_2() -> None:
    result = run_cli(
        "replay",
        str(REPLAY / "not_replayable__forged_content_based_secret_scan.jsonl"),
        "--format",
        "json",
    )
    assert result.returncode == 2
    doc = json.loads(result.stdout)
    assert doc["replayable"] is False and doc["recomputed"] is None and doc["equivalence"] is None
    assert b"replay.secret_scan_not_recomputable" in result.stderr


def test_output_dir_written_atomically_and_never_overwritten(tmp_path: Path) -> None:
    missing_parent = run_cli("replay", str(SEMANTIC), "--output-dir", str(tmp_path / "no" / "out"))
    assert missing_parent.returncode == 2 and b"cli.output_parent_missing" in missing_parent.stderr
    assert not (tmp_path / "no").exists()  # one rule: tracekit never creates parent folders
    out = tmp_path / "out"
    first = run_cli("replay", str(SEMANTIC), "--output-dir", str(out))
    assert first.returncode == 1
    doc = json.loads((out / "replay.json").read_text())
    assert doc["equivalence"] == "semantic"
    markdown = (out / "replay.md").read_text()
    assert markdown.startswith("# tracekit replay") and "| tests-passed |" in markdown
    assert sorted(p.name for p in out.iterdir()) == ["replay.json", "replay.md"]
    again = run_cli("replay", str(EXACT), "--output-dir", str(out))
    assert again.returncode == 2 and b"cli.output_exists" in again.stderr
    assert json.loads((out / "replay.json").read_text())["equivalence"] == "semantic"
    forced = run_cli("replay", str(EXACT), "--output-dir", str(out), "--force")
    assert forced.returncode == 0
    assert json.loads((out / "replay.json").read_text())["equivalence"] == "exact"


def test_output_dir_is_not_created_for_a_refused_trace(tmp_path: Path) -> None:
    out = tmp_path / "never"
    result = run_cli("replay", str(REPLAY / "not_replayable__v1.jsonl"), "--output-dir", str(out))
    assert result.returncode == 2 and not out.exists()
    assert run_cli("replay", str(TAMPERED), "--output-dir", str(out)).returncode == 2
    assert not out.exists()


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_output_dir_symlinks_are_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    result = run_cli("replay", str(EXACT), "--output-dir", str(link))
    assert result.returncode == 2 and b"cli.output_unsafe" in result.stderr
    (real / "replay.json").symlink_to(tmp_path / "victim")
    result = run_cli("replay", str(EXACT), "--output-dir", str(real), "--force")
    assert result.returncode == 2 and not (tmp_path / "victim").exists()


def test_strict_sources_flag() -> None:
    path = str(REPLAY / "not_replayable__strict_sources.jsonl")
    assert run_cli("replayability", path).returncode == 0
    strict = run_cli("replayability", path, "--strict-sources")
    assert strict.returncode == 1 and b"replay.strict_sources" in strict.stdout
    assert run_cli("replay", path).returncode == 0
    assert run_cli("replay", path, "--strict-sources").returncode == 2


def test_stdin_and_missing_file() -> None:
    result = run_cli("replay", "-", stdin=EXACT.read_bytes())
    assert result.returncode == 0
    missing = run_cli("replay", "/nonexistent/trace.jsonl")
    assert missing.returncode == 2 and b"Traceback" not in missing.stderr


# ------------------------------------------------------------------------ one look (report/text.py)


def _head(out: str) -> dict[str, str]:
    """The head block of a one-trace table report: ``label  value`` rows up to the first blank
    line, split at the column of the values."""
    block = out.split("\n\n", 1)[0].splitlines()
    column = min(len(line) - len(line.split("  ", 1)[1].lstrip()) for line in block)
    return {line[:column].rstrip(): line[column:] for line in block}


def test_show_replayability_and_replay_tables_share_one_look() -> None:
    """The same head (lower-case labels, no header line, values in one column), the same
    first rows, and reasons and notices in the same findings table."""
    shown = _head(run_cli("show", str(SEMANTIC), "-q").stdout.decode())
    able = _head(run_cli("replayability", str(SEMANTIC), "-q").stdout.decode())
    replayed = _head(run_cli("replay", str(SEMANTIC), "-q").stdout.decode())
    first = ["trace id", "episode", "schema version"]
    assert list(shown)[:3] == list(able)[:3] == list(replayed)[:3] == first
    assert shown["trace id"] == able["trace id"] == replayed["trace id"]
    assert shown["episode"] == able["episode"] == replayed["episode"]  # docs/cli.md, "Episode ids"
    assert list(able)[3:5] == list(replayed)[3:5] == ["replayable", "missing inputs"]
    for head in (shown, able, replayed):
        assert all(label == label.lower() for label in head)
    not_replayable = REPLAY / "not_replayable__missing_severity.jsonl"
    table = run_cli("replayability", str(not_replayable), "-q").stdout.decode()
    assert "\nkind    line    code" in table and "reason  1       replay.missing_severity" in table
    for command in ("show", "replayability", "replay"):
        markdown = run_cli(command, str(SEMANTIC), "-f", "markdown", "-q").stdout.decode()
        assert markdown.startswith(f"# tracekit {command}\n\n| field | value |\n|---|---|\n")
        assert "| trace id | " in markdown


def test_summary_lines_name_the_verdict_and_the_exit_code() -> None:
    cases = [
        (("replayability", str(SEMANTIC)), "tracekit replayability: replayable; exit 0"),
        (
            ("replayability", str(REPLAY / "not_replayable__v1.jsonl")),
            "tracekit replayability: not replayable, 1 reason(s); exit 1",
        ),
        (("replay", str(EXACT)), "tracekit replay: exact, 0 difference(s); exit 0"),
        (
            ("replay", str(SEMANTIC), "--allow-divergence"),
            "tracekit replay: semantic, 1 difference(s); exit 0",
        ),
        (
            ("replay", str(REPLAY / "not_replayable__v1.jsonl")),
            "tracekit replay: not replayable, 1 reason(s); exit 2",
        ),
        (("show", str(SEMANTIC)), "tracekit show: intact, 14 event(s); exit 0"),
    ]
    for args, line in cases:
        result = run_cli(*args)
        assert result.stderr.decode().splitlines()[-1] == line, args
        assert result.returncode == int(line[-1]), args
