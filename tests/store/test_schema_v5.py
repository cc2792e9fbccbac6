"""Schema version 5: one row per episode, the documented per-episode tables as views, the
migration from version 4, and details written once per file (docs/campaign-store.md, "Schema")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import pytest

from tracekit.store import ingest
from tracekit.store.export import export_table
from tracekit.store.ingest import Stored, rows_for
from tracekit.store.schema import MIGRATIONS, SCHEMA_VERSION, VIEWS, migrate
from tracekit.store.writer import Writer

_TYPES = (
    "SELECT table_name, column_name, data_type FROM information_schema.columns "
    "WHERE table_name IN ('episodes', 'findings', 'completeness', 'verdicts') "
    "ORDER BY table_name, ordinal_position"
)
_V4_ROWS = (
    "INSERT INTO results VALUES ('r', 'd', 'k', 'inspect', NULL, 1, 1, true, NULL, true, 2, 1, 'seal')",
    "INSERT INTO results VALUES ('t', 'e', 'k', 'agentguard', NULL, 1, 0, true, true, true, 1, 1, 'seal')",
    "INSERT INTO episodes VALUES ('r', 0, 'a', 'inspect', 1, true, NULL, false, 'pass', NULL)",
    "INSERT INTO episodes VALUES ('r', 1, 'b', 'inspect', 0, true, NULL, true, NULL, NULL)",
    "INSERT INTO episodes VALUES ('t', 0, 'c', 'agentguard', 0, true, true, true, NULL, 'x')",
    "INSERT INTO findings VALUES ('r', 0, 0, 'audit.field_missing', 'warning', 'completeness', 7, 'w', '=m')",
    "INSERT INTO findings VALUES ('r', 0, 1, 'audit.no_integrity', 'info', 'integrity', NULL, NULL, 'n')",
    "INSERT INTO findings VALUES ('r', 1, 0, 'audit.field_missing', 'warning', 'completeness', NULL, 'w', 'm')",
    "INSERT INTO completeness VALUES ('r', 0, 'seed', 'missing', 'w', true)",
    "INSERT INTO completeness VALUES ('r', 0, 'model', 'partial', 'v', false)",
    "INSERT INTO completeness VALUES ('r', 1, 'seed', 'present', 'w', true)",
    "INSERT INTO verdicts VALUES ('r', 0, 'verify', 'no_integrity')",
    "INSERT INTO verdicts VALUES ('r', 0, 'check', 'pass')",
    "INSERT INTO verdicts VALUES ('r', 1, 'verify', 'no_integrity')",
    "INSERT INTO verdicts VALUES ('t', 0, 'verify', 'intact')",
)


def _csv(con: Any, table: str, target: Path) -> bytes:
    con.execute(f"COPY (SELECT * FROM {table}) TO '{target}' (FORMAT csv, HEADER true)")
    return target.read_bytes()


@pytest.mark.parametrize("part_rows", [100_000, 2])
def test_version_5_keeps_every_row_as_one_row_per_episode_and_clears_every_seal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, part_rows: int
) -> None:
    from tracekit.store import schema

    monkeypatch.setattr(schema, "MIGRATE_ROWS", part_rows)  # 2: the episodes moved in 6 parts
    con = duckdb.connect()
    assert migrate(con, MIGRATIONS[:4]) == 4
    for statement in _V4_ROWS:
        con.execute(statement)
    types = con.execute(_TYPES).fetchall()
    rows = {t: sorted(con.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in VIEWS}
    csv = {t: _csv(con, t, tmp_path / f"{t}-v4.csv") for t in VIEWS}
    assert migrate(con) == SCHEMA_VERSION == 5
    assert con.execute(_TYPES).fetchall() == types
    assert {t: sorted(con.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in VIEWS} == rows
    for table in VIEWS:  # db export writes each table as version 4 did, in the same order
        export_table(con, table, str(tmp_path / f"{table}.csv"), "csv")
        assert (tmp_path / f"{table}.csv").read_bytes() == csv[table].replace(b"=m", b"'=m")
    assert con.execute("SELECT seal FROM results").fetchall() == [(None,), (None,)]
    kinds = dict(con.execute(
        "SELECT table_name, table_type FROM information_schema.tables"
    ).fetchall())
    assert {t: kinds[t] for t in VIEWS} == dict.fromkeys(VIEWS, "VIEW")
    assert kinds["episode_rows"] == kinds["episode_details"] == "BASE TABLE"
    assert con.execute("SELECT count(*) FROM episode_rows").fetchone() == (3,)


def _episode(code: str) -> dict[str, Any]:
    return {
        "episode_id": code, "format": "inspect", "exit_code": 1, "readable": True, "intact": None,
        "rerunnable": False, "outcome": None, "demonstration": None,
        "findings": [{"code": code, "severity": "warning", "message": "m", "where": "w"}],
        "completeness": [{"field": "f", "status": "missing", "where": "w", "needed_to_rerun": True}],
    }


def _written(codes: list[str], tmp_path: Path) -> tuple[Any, dict[str, int]]:
    con = duckdb.connect()
    migrate(con)
    report = {"format": "inspect", "exit_code": 1, "readable": True, "intact": None, "rerunnable": False}
    rows = list(rows_for("r", "d", "k", 1, 1, Stored(report, [_episode(c) for c in codes])))
    tmp_path.mkdir(exist_ok=True)
    writer = Writer(con, 1, str(tmp_path), batch_files=1)
    writer.add([], iter(rows), bytes(32))
    writer.flush()
    counts = {t: sum(1 for table, _ in rows if table == t) for t in ("episode_rows", "episode_details")}
    return con, counts


def test_a_file_of_alike_episodes_writes_each_detail_once(tmp_path: Path) -> None:
    con, counts = _written(["a.x", "a.x", "b.y", "a.x", "b.y"], tmp_path)
    assert counts == {"episode_rows": 5, "episode_details": 2}
    found = con.execute("SELECT episode, seq, code FROM findings ORDER BY episode").fetchall()
    assert found == [(0, 0, "a.x"), (1, 0, "a.x"), (2, 0, "b.y"), (3, 0, "a.x"), (4, 0, "b.y")]


def test_details_past_the_bound_are_written_again_with_the_same_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codes = ["a.x", "b.y", "a.x", "c.z", "a.x"]
    con, _ = _written(codes, tmp_path / "a")
    expected = {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in VIEWS}
    monkeypatch.setattr(ingest, "DETAILS_HELD", 2)  # a file of many distinct details
    con, counts = _written(codes, tmp_path / "b")
    # a, b, a (known), then c past the bound: forgotten, so the last a is written again
    assert counts == {"episode_rows": 5, "episode_details": 4}
    assert {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in VIEWS} == expected


def test_findings_lists_what_the_plain_query_over_the_views_lists(campaign: Path) -> None:
    """db findings counts per detail and expands only the episodes it shows: the same total
    and rows, in the same order, as the documented query over the views (docs/campaign-store.md,
    "Queries") for every filter and limit."""
    from tests.helpers import run_cli
    from tracekit.store.queries import FindingRow, findings

    db = campaign.parent / "c.duckdb"
    assert run_cli("audit", str(campaign), "--db", str(db), "-q").returncode == 2
    con = duckdb.connect(str(db), read_only=True)
    body = (
        "FROM files f JOIN episodes e ON e.result_id = f.result_id JOIN findings fi "
        "ON fi.result_id = e.result_id AND fi.episode = e.episode WHERE f.run_id = 1"
    )
    rank = "CASE fi.severity WHEN 'error' THEN 0 WHEN 'warning' THEN 1 WHEN 'notice' THEN 2 ELSE 3 END"
    for policy in (None, "integrity", "completeness", "nothing"):
        for fmt in (None, "agentguard", "inspect"):
            where = "".join(
                (f" AND fi.policy = '{policy}'" if policy else "", f" AND e.format = '{fmt}'" if fmt else "")
            )
            total = con.execute(f"SELECT count(*) {body}{where}").fetchone()
            for limit in (1, 7, 10_000):
                expected = con.execute(
                    "SELECT f.path, e.format, e.episode, e.episode_id, fi.code, fi.severity, fi.policy, "
                    f'fi.line, fi."where", fi.message {body}{where} '
                    f"ORDER BY {rank}, f.path, e.episode, fi.seq LIMIT {limit}"
                ).fetchall()
                got = findings(con, policy=policy, fmt=fmt, limit=limit)
                assert (got.total, got.rows) == (total[0] if total else 0, [FindingRow(*r) for r in expected])
    shown = findings(con)
    assert len({r.severity for r in shown.rows}) > 2 and len({r.format for r in shown.rows}) > 2  # not vacuous
    con.close()


def test_large_details_are_staged_by_bytes_and_a_row_past_the_reader_default_is_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file whose episodes share no detail writes rows of kilobytes: the writer stages them
    by bytes as well as rows, and raises DuckDB's JSON object limit for a longer row."""
    from tracekit.store import writer

    monkeypatch.setattr(writer, "STAGE_BYTES", 2048)
    monkeypatch.setattr(writer, "OBJECT_BYTES", 512)  # every detail row below is longer
    long = "x" * 600
    codes = [f"{long}.{i}" for i in range(6)]
    con, counts = _written(codes, tmp_path)
    assert counts == {"episode_rows": 6, "episode_details": 6}
    found = con.execute("SELECT episode, code FROM findings ORDER BY episode").fetchall()
    assert found == list(enumerate(codes))
