"""``tracekit db`` and ``audit --db`` as a new user runs them, through the installed CLI: help,
missing arguments, a folder where a file belongs, outputs through the one sink, every format,
the summary line, -q, and piping into head (docs/cli.md)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import _BIN, CORPUS, run_cli

SUBCOMMANDS = ("summary", "diff", "findings", "runs", "export")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of two runs over a small mixed campaign; the second run sees one file changed."""
    root = tmp_path_factory.mktemp("store")
    campaign = root / "campaign"
    campaign.mkdir()
    shutil.copy(CORPUS / "third_party" / "agentguard" / "safe-trace-v2.jsonl", campaign / "a.jsonl")
    for source in sorted((CORPUS / "harness" / "s8_secret_disclosure").glob("*.json"))[:3]:
        shutil.copy(source, campaign / source.name)
    db = root / "c.duckdb"
    first = run_cli("audit", str(campaign), "--db", str(db))
    assert first.returncode in (0, 1), first.stderr
    assert first.stderr.decode().startswith("tracekit audit: run 1:")
    (campaign / "a.jsonl").write_bytes((campaign / "a.jsonl").read_bytes()[:-40])
    assert run_cli("audit", str(campaign), "--db", str(db), "-q").returncode == 2
    return db


@pytest.mark.parametrize("sub", SUBCOMMANDS)
def test_help_and_missing_arguments(sub: str) -> None:
    short = run_cli("db", sub, "-h")
    assert short.returncode == 0 and short.stdout == run_cli("db", sub, "--help").stdout
    assert b"--format" in short.stdout and b"--quiet" in short.stdout
    bare = run_cli("db", sub)
    assert bare.returncode == 2 and b"Missing" in bare.stderr and b"Traceback" not in bare.stderr


@pytest.mark.parametrize("fmt", ["table", "json", "markdown"])
def test_every_query_in_every_format(fmt: str, store: Path, tmp_path: Path) -> None:
    for sub in ("summary", "diff", "findings", "runs"):
        result = run_cli("db", sub, str(store), "-f", fmt)
        assert result.returncode == 0, (sub, result.stderr)
        assert result.stderr.decode().startswith(f"tracekit db {sub}: ")
        if fmt == "json":
            assert json.loads(result.stdout)["report_version"] == 1
        elif fmt == "markdown":
            assert result.stdout.startswith(b"## ") and (sub == "diff" or b"|---|" in result.stdout)
        target = tmp_path / f"{sub}.{fmt}"
        written = run_cli("db", sub, str(store), "-f", fmt, "-o", str(target), "-q")
        assert written.returncode == 0 and written.stderr == b"" and written.stdout == b""
        assert target.read_bytes() == result.stdout
        again = run_cli("db", sub, str(store), "-f", fmt, "-o", str(target))
        assert again.returncode == 2 and b"cli.output_exists" in again.stderr
    diff = json.loads(run_cli("db", "diff", str(store), "-f", "json").stdout)
    assert [f["path"] for f in diff["files"]] == ["a.jsonl"]


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_export_goes_through_the_sink(kind: str, store: Path, tmp_path: Path) -> None:
    missing = run_cli("db", "export", str(store), f"--{kind}", str(tmp_path / "no" / "out"))
    assert missing.returncode == 2 and b"cli.output_parent_missing" in missing.stderr
    out = tmp_path / "out"
    result = run_cli("db", "export", str(store), f"--{kind}", str(out), "-f", "json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["kind"] == kind and sorted(t["file"] for t in report["tables"]) == sorted(os.listdir(out))
    assert result.stderr.decode().startswith("tracekit db export: ")
    again = run_cli("db", "export", str(store), f"--{kind}", str(out))
    assert again.returncode == 2 and b"cli.output_exists" in again.stderr
    assert run_cli("db", "export", str(store), f"--{kind}", str(out), "--force", "-q").returncode == 0
    assert not [n for n in os.listdir(out) if n.startswith(".tracekit")]
    fifo_dir = tmp_path / "fifo"
    fifo_dir.mkdir()
    os.mkfifo(fifo_dir / f"runs.{kind}")
    refused = run_cli("db", "export", str(store), f"--{kind}", str(fifo_dir), "--force")
    assert refused.returncode == 2 and b"cli.output_not_regular" in refused.stderr


def test_wrong_inputs_are_diagnostics(store: Path, tmp_path: Path) -> None:
    trace = CORPUS / "third_party" / "agentguard" / "safe-trace-v2.jsonl"
    cases = [
        (("db", "summary", str(tmp_path)), b"cli.not_a_file"),
        (("db", "summary", str(tmp_path / "absent.duckdb")), b"format.unreadable"),
        (("db", "summary", str(trace)), b"store.not_a_store"),
        (("db", "diff", str(store), "--since", "99"), b"store.unknown_run"),
        (("db", "findings", str(store), "--policy", "nope"), b"cli.bad_value"),
        (("db", "export", str(store)), b"cli.missing_argument"),
        (("db", "export", str(store), "--csv", str(tmp_path / "a"), "--parquet", str(tmp_path / "b")), b"cli.option_conflict"),
        (("db", "summary", str(store), "-o", os.devnull, "--force"), b"cli.output_not_regular"),
        (("audit", str(trace), "--db", str(tmp_path / "n.duckdb")), b"store.campaign_root"),
    ]
    for args, code in cases:
        result = run_cli(*args)
        assert result.returncode == 2 and code in result.stderr, (args, result.stderr)
        assert b"Traceback" not in result.stderr


@pytest.mark.parametrize("fmt", ["junit", "sarif"])
def test_audit_db_in_the_pass_fail_formats(fmt: str, store: Path, tmp_path: Path) -> None:
    db = tmp_path / "copy.duckdb"
    shutil.copy(store, db)
    campaign = CORPUS / "harness" / "s8_secret_disclosure"
    result = run_cli(
        "audit", str(campaign), "--db", str(db), "--new-root", "-f", fmt, "-o", str(tmp_path / "out")
    )
    assert result.returncode == 1, result.stderr
    text = (tmp_path / "out").read_text()
    files = len(list(campaign.glob("*.json")))
    if fmt == "junit":
        assert f'tests="{files}"' in text
    else:
        assert len({r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                    for r in json.loads(text)["runs"][0]["results"]}) == files


def test_piping_into_head(store: Path) -> None:
    command = f"'{_BIN}' db findings '{store}' -f json | head -n 1"
    result = subprocess.run(["sh", "-c", command], capture_output=True, timeout=60, check=False)
    assert result.stdout == b"{\n" and b"Traceback" not in result.stderr


_PART = st.sampled_from(["a", "b", "sub", ".", "..", "x.jsonl", ""])


@settings(max_examples=400, deadline=None)
@given(st.lists(_PART, min_size=1, max_size=4), st.lists(_PART, min_size=1, max_size=4), st.booleans())
def test_a_stored_path_is_relpath_s_answer(root_parts: list[str], below: list[str], absolute: bool) -> None:
    """runner.relative takes a walked path's part past the root where that is exactly what
    ``os.path.relpath`` answers, and asks it otherwise."""
    from tracekit.store.runner import relative

    root = ("/" if absolute else "") + "/".join(root_parts)
    root = root or "."
    path = root.rstrip("/") + "/" + "/".join(below)
    assert relative(path, root) == os.path.relpath(path, root).replace(os.sep, "/")
