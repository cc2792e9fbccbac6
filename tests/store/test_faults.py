"""A real ``tracekit audit --db`` process killed (SIGKILL) or interrupted (SIGINT) at several
deterministic points leaves a consistent store, and the next run resumes: it reads only what
was not committed and ends with exactly the rows of an uninterrupted run. The Dask executor
writes the same rows as the local one."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.helpers import run_cli

BIN = Path(sys.executable).parent / "tracekit"
# Rows that do not depend on when or how a run happened.
CONTENT = {
    "files": "SELECT path, size, digest, format, result_id FROM files "
             "WHERE run_id = (SELECT max(run_id) FROM runs WHERE status = 'complete')",
    "results": "SELECT * EXCLUDE (first_run) FROM results",
    "episodes": "SELECT * FROM episodes",
    "findings": "SELECT * FROM findings",
    "completeness": "SELECT * FROM completeness",
    "verdicts": "SELECT * FROM verdicts",
}


def content(db: Path) -> dict[str, list[Any]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {name: sorted(con.execute(sql).fetchall(), key=repr) for name, sql in CONTENT.items()}
    finally:
        con.close()


def consistent(db: Path) -> None:
    """Every linked result is whole: its episodes, and no row points at a missing result."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute(
            "SELECT count(*) FROM files f LEFT JOIN results r USING (result_id) "
            "WHERE r.result_id IS NULL"
        ).fetchone()[0] == 0
        assert con.execute(
            "SELECT count(*) FROM results r WHERE r.episodes <> "
            "(SELECT count(*) FROM episodes e WHERE e.result_id = r.result_id)"
        ).fetchone()[0] == 0
        for table in ("findings", "completeness", "verdicts"):
            assert con.execute(
                f"SELECT count(*) FROM {table} t LEFT JOIN episodes e "
                "ON e.result_id = t.result_id AND e.episode = t.episode WHERE e.result_id IS NULL"
            ).fetchone()[0] == 0
    finally:
        con.close()


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, list[Any]]]:
    from tests.store.conftest import make_campaign

    root = make_campaign(tmp_path_factory.mktemp("ref") / "campaign")
    db = root.parent / "ref.duckdb"
    assert run_cli("audit", str(root), "--db", str(db), "-q").returncode == 2
    return root, content(db)


@pytest.mark.slow
@pytest.mark.parametrize(
    "fault", ["kill:after_commit:1", "kill:before_commit:1", "kill:after_commit:100",
              "int:before_commit:64", "int:after_commit:64"],
)
def test_killed_run_leaves_a_consistent_store_and_resumes(
    fault: str, reference: tuple[Path, dict[str, list[Any]]], tmp_path: Path
) -> None:
    root, expected = reference
    db = tmp_path / "c.duckdb"
    env = dict(os.environ, TRACEKIT_STORE_FAULT=fault)
    killed = subprocess.run([str(BIN), "audit", str(root), "--db", str(db), "-q"],
                            capture_output=True, env=env, timeout=300, check=False)
    action, point, count = fault.split(":")
    assert killed.returncode == (-9 if action == "kill" else 130), killed.stderr
    assert b"Traceback" not in killed.stderr
    consistent(db)
    con = duckdb.connect(str(db), read_only=True)
    status, committed = con.execute("SELECT status, files_audited FROM runs").fetchone()
    con.close()
    assert status == ("running" if action == "kill" else "interrupted")
    # The batch the fault hit was rolled back whole; the ones before it are kept.
    assert committed < int(count) if point == "before_commit" else committed >= int(count)

    resumed = run_cli("audit", str(root), "--db", str(db), "-q")
    assert resumed.returncode == 2, resumed.stderr
    consistent(db)
    con = duckdb.connect(str(db), read_only=True)
    runs = con.execute("SELECT status, files_reused FROM runs ORDER BY run_id").fetchall()
    con.close()
    assert runs[0][0] == "interrupted" and runs[1][0] == "complete"
    assert runs[1][1] >= committed  # what was committed is not read again
    assert content(db) == expected


@pytest.mark.slow
def test_dask_run_writes_the_same_rows_as_local(
    reference: tuple[Path, dict[str, list[Any]]], tmp_path: Path
) -> None:
    distributed = pytest.importorskip("distributed")
    root, expected = reference
    db = tmp_path / "dask.duckdb"
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, protocol="tcp", host="127.0.0.1",
        dashboard_address=None,
    ) as cluster:
        result = run_cli("audit", str(root), "--db", str(db), "-q", "--executor", "dask",
                         "--scheduler", str(cluster.scheduler_address))
    assert result.returncode == 2, result.stderr
    assert content(db) == expected
    local2 = tmp_path / "jobs2.duckdb"
    assert run_cli("audit", str(root), "--db", str(local2), "-q", "--jobs", "2").returncode == 2
    assert content(local2) == expected
    shutil.rmtree(root.parent / "unused", ignore_errors=True)


@pytest.mark.slow
def test_a_second_run_is_refused_while_the_first_holds_the_store(
    reference: tuple[Path, dict[str, list[Any]]], tmp_path: Path
) -> None:
    root, expected = reference
    db = tmp_path / "c.duckdb"
    env = dict(os.environ, TRACEKIT_STORE_FAULT="stop:after_commit:1")
    first = subprocess.Popen([str(BIN), "audit", str(root), "--db", str(db), "-q"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        _, status = os.waitpid(first.pid, os.WUNTRACED)  # returns once it stopped itself
        assert os.WIFSTOPPED(status)
        for args in (("audit", str(root), "--db", str(db), "-q"), ("db", "summary", str(db))):
            second = run_cli(*args)
            assert second.returncode == 2 and b"store.locked" in second.stderr
        os.kill(first.pid, signal.SIGCONT)
        _, status = os.waitpid(first.pid, 0)
        assert os.waitstatus_to_exitcode(status) == 2
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert content(db) == expected
