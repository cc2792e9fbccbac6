"""A file of many episodes goes into the store without being held (docs/threat-model.md, "The
campaign store"): its rows reach the open transaction in stages while its episodes
are still read, its seal is made as they pass and checked as they stream back, a failure
half-way leaves nothing of it, and DuckDB itself is held to a memory limit."""

from __future__ import annotations

import io
import json
import os
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.helpers import run_cli
from tracekit.kernel.errors import Code, TracekitError
from tracekit.store import writer as writer_module
from tracekit.store.db import MEMORY_ENV, MEMORY_MIB, open_store
from tracekit.store.ingest import Stored, rows_for
from tracekit.store.schema import migrate
from tracekit.store.writer import STAGE_ROWS, Writer

KEY = bytes(range(32))


def chatty_eval(samples: int, messages: int) -> bytes:
    """An Inspect ``.eval`` of ``samples`` samples of ``messages`` one-word messages each."""
    out = io.BytesIO()
    roles = ("user", "assistant")
    header = {"version": 2, "status": "success",
              "eval": {"task": "t", "model": "mockllm/model", "packages": {"inspect_ai": "0.3.0"}}}
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps(header))
        for n in range(samples):
            body = [{"role": roles[i % 2], "content": f"m{i % 7}"} for i in range(messages + n % 3)]
            archive.writestr(f"samples/{n}_epoch_1.json", json.dumps({"id": n, "epoch": 1, "messages": body}))
    return out.getvalue()


def test_a_file_of_many_episodes_is_stored_as_plain_audit_reports_it_and_reused(tmp_path: Path) -> None:
    # 2,500 episodes of about 43 rows each: more rows than one stage (STAGE_ROWS), and episode
    # lines past what a worker sends back inline, so they go through the run's spill folder.
    samples = 2500
    assert samples * 40 > STAGE_ROWS
    root = tmp_path / "campaign"
    root.mkdir()
    (root / "many.eval").write_bytes(chatty_eval(samples, 10))
    db = tmp_path / "c.duckdb"
    plain = run_cli("audit", str(root / "many.eval"), "-f", "json", "-q")
    first = run_cli("audit", str(root), "--db", str(db), "-q")
    assert first.returncode == plain.returncode == 1, first.stderr
    report = json.loads(plain.stdout)["traces"][0]
    con = duckdb.connect(str(db), read_only=True)
    try:
        ids = [r[0] for r in con.execute("SELECT episode_id FROM episodes ORDER BY episode").fetchall()]
        stored = con.execute(
            "SELECT episode, field, status FROM completeness ORDER BY episode, field"
        ).fetchall()
        count = con.execute("SELECT episodes FROM results").fetchone()
    finally:
        con.close()
    assert count == (samples,)
    assert ids == [e["id"] for e in report["episodes"]]
    assert stored == sorted(
        (i, row["field"], row["status"]) for i, e in enumerate(report["episodes"]) for row in e["completeness"]
    )
    again = run_cli("audit", str(root), "--db", str(db))
    assert again.returncode == 1, again.stderr
    assert b"0 read, 1 reused" in again.stderr  # the seal made while streaming holds when checked
    assert b"seal_mismatch" not in again.stderr


def _episode(index: int) -> dict[str, Any]:
    return {
        "episode_id": f"e{index}", "format": "inspect", "exit_code": 1, "readable": True, "intact": None,
        "rerunnable": False, "outcome": None, "demonstration": None,
        "findings": [{"code": "audit.field_missing", "severity": "warning", "where": "w", "message": "m"}],
        "completeness": [{"field": f"f{k}", "status": "missing", "where": "w", "needed_to_rerun": True}
                         for k in range(3)],
    }


def test_rows_reach_the_transaction_in_stages_and_a_failed_file_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writer_module, "STAGE_ROWS", 10)
    con = duckdb.connect()
    migrate(con)
    head = {"format": "inspect", "exit_code": 1, "readable": True, "intact": None, "rerunnable": False}
    seen: list[int] = []

    def episodes(fail: bool) -> Iterator[dict[str, Any]]:
        for index in range(40):
            count = con.execute("SELECT count(*) FROM completeness").fetchone()
            seen.append(int(count[0]) if count else 0)
            yield _episode(index)
        if fail:
            raise RuntimeError("the reader failed half-way")

    writer = Writer(con, 1, str(tmp_path))
    with pytest.raises(RuntimeError):
        writer.add([("a.eval", 1, "d", "inspect", "r")], rows_for("r", "d", "k", 1, 1, Stored(head, episodes(True))), KEY)
    # Rows went into the open transaction while episodes were still being read ...
    assert 0 < max(seen) < 40 * 3
    # ... and the failure left nothing of the file.
    for table in ("results", "episodes", "findings", "completeness", "verdicts", "files"):
        row = con.execute(f"SELECT count(*) FROM {table}").fetchone()
        assert row == (0,), table
    writer.add([("a.eval", 1, "d", "inspect", "r")], rows_for("r", "d", "k", 1, 1, Stored(head, episodes(False))), KEY)
    writer.flush()
    assert con.execute("SELECT count(*), sum(episode) FROM completeness").fetchone() == (120, 3 * sum(range(40)))
    from tracekit.store.seal import broken

    sealed = dict(con.execute("SELECT result_id, seal FROM results").fetchall())
    assert broken(con, KEY, sealed) == set()


def test_duckdb_is_held_to_the_memory_limit_and_spills_in_a_private_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.duckdb"
    monkeypatch.delenv(MEMORY_ENV, raising=False)
    with open_store(path, writable=True) as con:
        limit, spill = con.execute(
            "SELECT current_setting('memory_limit'), current_setting('temp_directory')"
        ).fetchone()
        assert limit == f"{MEMORY_MIB:.1f} MiB"
        assert not str(spill).startswith(str(tmp_path))  # never beside the user's store
    assert not os.path.exists(spill)  # removed with the connection
    monkeypatch.setenv(MEMORY_ENV, "256")
    with open_store(path, writable=False) as con:
        assert con.execute("SELECT current_setting('memory_limit')").fetchone() == ("256.0 MiB",)
    with pytest.raises(TracekitError) as raised, open_store(path, writable=False):
        raise duckdb.OutOfMemoryException("DuckDB's own words")
    assert raised.value.finding.code is Code.STORE_MEMORY_LIMIT
    assert "256 MiB" in raised.value.finding.message


@pytest.mark.parametrize("value", ["lots", "12", "-5", "1e9", "٣٣٣"])
def test_a_bad_memory_setting_is_a_diagnostic(value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.duckdb"
    con = duckdb.connect(str(path))
    migrate(con)
    con.close()
    monkeypatch.setenv(MEMORY_ENV, value)
    result = run_cli("db", "summary", str(path))
    assert result.returncode == 2
    assert b"store.memory_setting" in result.stderr and b"Traceback" not in result.stderr
    assert value.encode() not in result.stderr
