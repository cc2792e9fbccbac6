"""``tracekit audit campaign/ --db`` and ``tracekit db``, as a user runs them: incremental
re-runs, exact diffs, options that invalidate what they affect, the store's lock."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import duckdb

from tests.helpers import CORPUS, run_cli
from tests.store.conftest import make_campaign
from tracekit.store.schema import SCHEMA_VERSION

CANARY = "CANARY-7f3e"


def audit(campaign: Path, db: Path, *extra: str) -> Any:
    result = run_cli("audit", str(campaign), "--db", str(db), "-f", "json", *extra)
    assert result.returncode in (0, 1, 2), result.stderr
    assert b"Traceback" not in result.stderr
    return result


def last_run(db: Path) -> tuple[Any, ...]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(
            "SELECT run_id, status, files_seen, files_audited, files_reused FROM runs "
            "ORDER BY run_id DESC LIMIT 1"
        ).fetchone()
    finally:
        con.close()


def test_first_run_then_unchanged_rerun_reads_nothing(campaign: Path, tmp_path: Path) -> None:
    db = tmp_path / "c.duckdb"
    first = audit(campaign, db)
    files = sum(  # ground truth (*.expected.json) is never collected (tracekit.cli.common)
        1 for p in campaign.rglob("*")
        if p.suffix in (".json", ".jsonl", ".eval") and not p.name.endswith(".expected.json")
    )
    run_id, status, seen, audited, reused = last_run(db)
    assert (run_id, status, seen, reused) == (1, "complete", files, 0)
    assert audited == files
    summary = json.loads(first.stdout)
    assert summary["files"] == files
    by_format = summary["by_format"]
    assert {"agentguard", "harness", "inspect", "otel", "agentdojo", "garak"} <= set(by_format)
    for name in ("inspect", "otel", "garak"):  # files holding several episodes each
        assert by_format[name]["episodes"] > by_format[name]["files"] > 0
    assert summary["episodes"] == sum(f["episodes"] for f in summary["by_format"].values())
    assert first.returncode == 2  # tampered traces in the campaign

    second = audit(campaign, db)
    assert last_run(db) == (2, "complete", files, 0, files)
    assert second.returncode == first.returncode
    again = json.loads(run_cli("db", "summary", str(db), "-f", "json").stdout)
    assert again["run"]["run_id"] == 2
    assert {k: again[k] for k in ("files", "episodes", "by_format")} == {
        k: summary[k] for k in ("files", "episodes", "by_format")
    }
    diff = json.loads(run_cli("db", "diff", str(db), "-f", "json").stdout)
    assert diff["files"] == [] and diff["unchanged"] == files


def test_diff_lists_exactly_the_changed_files(campaign: Path, tmp_path: Path) -> None:
    db = tmp_path / "c.duckdb"
    audit(campaign, db)
    clean = campaign / "audit" / "agentguard" / "consistent__clean_run.jsonl"
    forged = (campaign / "audit" / "agentguard" / "forgery__score_mismatch.jsonl").read_bytes()
    clean.write_bytes(forged)  # content changed: now a consistency error
    tampered = sorted((campaign / "valid").glob("*.jsonl"))[0]
    tampered.write_bytes(tampered.read_bytes().replace(b'"', b"'", 1))
    (campaign / "valid" / "added.jsonl").write_bytes(
        (CORPUS / "third_party" / "agentguard" / "safe-trace-v2.jsonl").read_bytes()
    )
    removed = sorted((campaign / "replay").glob("*.jsonl"))[0]
    removed.unlink()
    audit(campaign, db)
    diff = json.loads(run_cli("db", "diff", str(db), "-f", "json").stdout)
    changes = {f["path"]: f["change"] for f in diff["files"]}
    assert changes == {
        "audit/agentguard/consistent__clean_run.jsonl": "content",
        "valid/added.jsonl": "added",
        f"replay/{removed.name}": "removed",
        f"valid/{tampered.name}": "content",
    }
    by_path = {f["path"]: f for f in diff["files"]}
    clean_diff = by_path["audit/agentguard/consistent__clean_run.jsonl"]
    assert "audit.score_mismatch" in {f["code"] for f in clean_diff["new"]}
    assert "replay.exact" in {f["code"] for f in clean_diff["fixed"]}
    assert by_path[f"valid/{tampered.name}"]["exit_after"] == 2
    text = run_cli("db", "diff", str(db)).stdout.decode()
    assert "consistent__clean_run.jsonl: content" in text
    since = json.loads(run_cli("db", "diff", str(db), "--since", "1", "-f", "json").stdout)
    assert since["files"] == diff["files"]


def _files_by_format(db: Path) -> dict[str, int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return dict(con.execute(
            "SELECT format, count(*) FROM files WHERE run_id = (SELECT max(run_id) FROM runs) "
            "GROUP BY format"
        ).fetchall())
    finally:
        con.close()


def test_changed_options_invalidate_only_the_formats_they_affect(
    campaign: Path, tmp_path: Path
) -> None:
    db = tmp_path / "c.duckdb"
    audit(campaign, db)
    counts = _files_by_format(db)
    audit(campaign, db, "--strict-sources")  # AgentGuard only
    _, _, seen, audited, reused = last_run(db)
    assert counts["agentguard"] > 0 and audited == counts["agentguard"]
    assert reused == seen - counts["agentguard"]
    scenario = sorted((CORPUS / "harness").rglob("*.yaml"))[0]
    audit(campaign, db, "--strict-sources", "--scenario", str(scenario))
    _, _, seen, audited, reused = last_run(db)
    # A scenario judges harness traces and every imported format and is noted on AgentGuard
    # ones: every trace is read again; only walked files that are no trace are kept.
    assert reused == seen - audited == counts["not_a_trace"] > 0
    assert audited == sum(n for name, n in counts.items() if name != "not_a_trace")


def test_summary_findings_and_export(campaign: Path, tmp_path: Path) -> None:
    db = tmp_path / "c.duckdb"
    audit(campaign, db)
    found = json.loads(
        run_cli("db", "findings", str(db), "--policy", "consistency", "--trace-format",
                "agentguard", "-f", "json").stdout
    )
    assert found["total"] >= 14 and {r["policy"] for r in found["rows"]} == {"consistency"}
    assert run_cli("db", "findings", str(db), "--policy", CANARY).returncode == 2
    for fmt in ("table", "markdown"):
        out = run_cli("db", "summary", str(db), "-f", fmt)
        assert out.returncode == 0 and b"agentguard" in out.stdout
    out_dir = tmp_path / "export"
    assert run_cli("db", "export", str(db), "--parquet", str(out_dir)).returncode == 0
    assert run_cli("db", "export", str(db), "--parquet", str(out_dir)).returncode == 2
    con = duckdb.connect()
    rows = con.execute(f"SELECT count(*) FROM '{out_dir}/files.parquet'").fetchone()[0]
    assert rows == last_run(db)[2]
    assert run_cli("db", "export", str(db), "--csv", str(tmp_path / "csv")).returncode == 0
    assert (tmp_path / "csv" / "findings.csv").read_text().startswith("result_id,")


def test_second_writer_is_refused_while_the_store_is_held(campaign: Path, tmp_path: Path) -> None:
    db = tmp_path / "c.duckdb"
    audit(campaign, db)
    holder = duckdb.connect(str(db))  # another process's audit in progress
    try:
        for args in (("audit", str(campaign), "--db", str(db)), ("db", "summary", str(db))):
            result = run_cli(*args)
            assert result.returncode == 2
            assert b"store.locked" in result.stderr and str(db).encode() not in result.stderr
    finally:
        holder.close()


def test_store_errors_are_diagnostics(tmp_path: Path) -> None:
    newer = tmp_path / "newer.duckdb"
    con = duckdb.connect(str(newer))
    con.execute("CREATE TABLE schema_version (version INTEGER, applied_at TIMESTAMP)")
    con.execute("INSERT INTO schema_version VALUES (?, current_timestamp)", [SCHEMA_VERSION + 7])
    con.close()
    result = run_cli("db", "summary", str(newer))
    assert result.returncode == 2 and b"store.newer_schema" in result.stderr
    assert run_cli("db", "summary", str(tmp_path / "absent")).returncode == 2
    junk = tmp_path / f"{CANARY}.duckdb"
    junk.write_bytes(CANARY.encode() * 100)
    result = run_cli("db", "summary", str(junk))
    assert result.returncode == 2 and b"store.not_a_store" in result.stderr
    empty = tmp_path / "empty"
    make_campaign(empty)
    shutil.rmtree(empty / "replay")
    result = run_cli("audit", str(empty), str(empty), "--db", str(tmp_path / "x.duckdb"))
    assert result.returncode == 2 and b"store.campaign_root" in result.stderr
    fresh = tmp_path / "fresh.duckdb"
    duckdb.connect(str(fresh)).close()
    assert b"store.not_a_store" in run_cli("db", "diff", str(fresh)).stderr
