"""Schema versions and migrations, the incremental rule's keys, policies and finding diffs."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from tracekit.kernel.errors import Code, TracekitError
from tracekit.store.db import open_store
from tracekit.store.diff import FindingRef, compare_findings
from tracekit.store.incremental import RunOptions, options_key, result_id
from tracekit.store.ingest import POLICIES, policy_of
from tracekit.store.schema import SCHEMA_VERSION, TABLES, current_version, migrate


def test_new_store_is_migrated_to_the_current_version(tmp_path: Path) -> None:
    with open_store(tmp_path / "s.duckdb", writable=True) as con:
        assert current_version(con) == SCHEMA_VERSION
        names = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    assert set(TABLES) | {"schema_version"} <= names


def test_migrations_apply_once_and_in_order(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "m.duckdb"))
    steps = ((1, ("CREATE TABLE a (x INTEGER)",)), (2, ("ALTER TABLE a ADD COLUMN y INTEGER",)))
    assert migrate(con, steps[:1]) == 1
    assert migrate(con, steps) == 2
    assert migrate(con, steps) == 2  # nothing left to apply: the ALTER is not run twice
    assert [r[0] for r in con.execute("SELECT version FROM schema_version ORDER BY 1").fetchall()] == [1, 2]
    with pytest.raises(TracekitError) as raised:  # a store newer than the migrations known
        migrate(con, steps[:1])
    assert raised.value.finding.code is Code.STORE_NEWER_SCHEMA
    con.close()


def test_failed_migration_leaves_the_previous_version(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "f.duckdb"))
    broken = ((1, ("CREATE TABLE a (x INTEGER)", "THIS IS NOT SQL")),)
    with pytest.raises(duckdb.Error):
        migrate(con, broken)
    assert current_version(con) == 0
    assert migrate(con) == SCHEMA_VERSION
    con.close()


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.duckdb"
    with open_store(path, writable=True) as con:
        con.execute("INSERT INTO schema_version VALUES (?, current_timestamp)", [SCHEMA_VERSION + 1])
    for writable in (True, False):
        with pytest.raises(TracekitError) as raised, open_store(path, writable=writable):
            pass
        assert raised.value.finding.code is Code.STORE_NEWER_SCHEMA


def test_missing_and_foreign_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(TracekitError) as raised, open_store(tmp_path / "none", writable=False):
        pass
    assert raised.value.finding.code is Code.FORMAT_UNREADABLE  # docs/cli.md, "One code per mistake"
    junk = tmp_path / "junk.duckdb"
    junk.write_bytes(b"CANARY-not-a-database" * 200)
    with pytest.raises(TracekitError) as raised, open_store(junk, writable=True):
        pass
    assert raised.value.finding.code is Code.STORE_NOT_A_STORE


def test_options_key_changes_only_for_the_formats_an_option_affects() -> None:
    plain, scenario = RunOptions(), RunOptions(scenario="ab" * 32)
    strict = RunOptions(strict_sources=True)
    assert options_key("1", "harness", plain) != options_key("1", "harness", scenario)
    assert options_key("1", "harness", plain) == options_key("1", "harness", strict)
    assert options_key("1", "agentguard", plain) != options_key("1", "agentguard", strict)
    assert options_key("1", "inspect", plain) != options_key("1", "inspect", scenario)
    assert options_key("1", "inspect", plain) == options_key("1", "inspect", strict)
    assert options_key("1", "not_a_trace", plain) == options_key("1", "not_a_trace", scenario)
    forced = RunOptions(other=(("input_format", '"otel"'),))
    for fmt in ("harness", "agentguard", "inspect", "not_a_trace"):
        assert options_key("1", fmt, plain) != options_key("1", fmt, forced)
    assert options_key("1", "harness", plain) != options_key("2", "harness", plain)
    assert options_key("1", "harness", plain) != options_key("1", "agentguard", plain)
    assert result_id("d", "k") != result_id("d", "k2")


def test_every_code_maps_to_a_known_policy() -> None:
    assert {policy_of(code.value) for code in Code} <= set(POLICIES)
    assert policy_of("audit.score_mismatch") == "consistency"
    assert policy_of("chain.event_hash_mismatch") == "integrity"
    assert policy_of("audit.field_missing") == "completeness"
    assert policy_of("replay.divergent") == "replay"


def _ref(code: str, where: str | None = None, severity: str = "warning", line: int = 1) -> FindingRef:
    return FindingRef(0, code, severity, "other", line, where)


def test_finding_diff_new_fixed_changed_with_repeats() -> None:
    before = [_ref("a"), _ref("a"), _ref("b", "x"), _ref("c")]
    after = [_ref("a"), _ref("b", "x", severity="error"), _ref("d")]
    new, fixed, changed = compare_findings(before, after)
    assert [r.code for r in new] == ["d"]
    assert sorted(r.code for r in fixed) == ["a", "c"]
    assert [(c.before.severity, c.after.severity) for c in changed] == [("warning", "error")]


def test_a_version_2_store_is_named_older_and_upgraded_by_a_writer(tmp_path: Path) -> None:
    from tracekit.store.schema import MIGRATIONS

    path = tmp_path / "v2.duckdb"
    con = duckdb.connect(str(path))
    assert migrate(con, MIGRATIONS[:2]) == 2
    con.execute("INSERT INTO episodes VALUES ('r', 0, ?, 'inspect', 0, true, NULL, true, NULL, NULL)", ["ab" * 16])
    con.execute("INSERT INTO episodes VALUES ('t', 0, ?, 'agentguard', 0, true, true, true, NULL, NULL)", ["cd" * 32])
    con.close()
    with pytest.raises(TracekitError) as raised, open_store(path, writable=False):
        pass
    assert raised.value.finding.code is Code.STORE_OLDER_SCHEMA
    assert "version 2" in raised.value.finding.message and "tracekit audit DIR --db FILE" in raised.value.finding.message
    with open_store(path, writable=True) as con:
        assert current_version(con) == SCHEMA_VERSION == 5
        # An old digest is no id any report prints: cleared; an AgentGuard trace id already is one.
        ids = dict(con.execute("SELECT result_id, episode_id FROM episodes").fetchall())
    assert ids == {"r": None, "t": "cd" * 32}
    with open_store(path, writable=False) as con:
        assert current_version(con) == 5


def test_version_4_keeps_every_row_drops_the_per_episode_keys_and_clears_every_seal() -> None:
    from tracekit.store.schema import MIGRATIONS

    con = duckdb.connect()
    assert migrate(con, MIGRATIONS[:3]) == 3
    con.execute("INSERT INTO results VALUES ('r', 'd', 'k', 'inspect', NULL, 1, 1, true, NULL, true, 1, 1, 'seal')")
    con.execute("INSERT INTO findings VALUES ('r', 0, 0, 'audit.field_missing', 'warning', 'completeness', NULL, 'w', 'm')")
    con.execute("INSERT INTO completeness VALUES ('r', 0, 'f', 'missing', 'w', true)")
    con.execute("INSERT INTO verdicts VALUES ('r', 0, 'verify', 'no_integrity')")
    before = {t: con.execute(f"SELECT * FROM {t}").fetchall() for t in ("findings", "completeness", "verdicts")}
    assert migrate(con, MIGRATIONS[:4]) == 4
    assert {t: con.execute(f"SELECT * FROM {t}").fetchall() for t in before} == before
    assert con.execute("SELECT seal FROM results").fetchall() == [(None,)]
    keys = con.execute(
        "SELECT table_name FROM duckdb_constraints() WHERE constraint_type = 'PRIMARY KEY'"
    ).fetchall()
    assert {str(k[0]) for k in keys} == {"runs", "results", "files", "episodes", "schema_version"}
    not_null = con.execute(
        "SELECT count(*) FROM duckdb_constraints() WHERE table_name = 'findings' AND constraint_type = 'NOT NULL'"
    ).fetchone()
    assert not_null is not None and not_null[0] == 7  # every column but line and where
