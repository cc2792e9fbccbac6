"""The campaign store's contract as a user meets it (docs/campaign-store.md): exports that a
spreadsheet cannot run, ``db runs``, bad store paths and corrupt stores as diagnostics, a diff
that never calls tampering fixed, one campaign root per store, rows bound to what they judged,
and a store that holds exactly what plain ``audit`` reports."""

from __future__ import annotations

import csv
import json
import os
import random
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import CORPUS, run_cli
from tracekit.store.diff import ABSENT, FindingRef, Judged, classify_lost

AGENTGUARD = CORPUS / "third_party" / "agentguard" / "safe-trace-v2.jsonl"
FORMULAS = ("=1+1", "+1", "-1", "@SUM(A1)")


def _campaign(root: Path) -> Path:
    campaign = root / "campaign"
    campaign.mkdir()
    shutil.copy(AGENTGUARD, campaign / "a.jsonl")
    for source in sorted((CORPUS / "harness" / "s8_secret_disclosure").glob("*.json"))[:2]:
        shutil.copy(source, campaign / source.name)
    return campaign


def _audit(campaign: Path, db: Path, *extra: str) -> object:
    result = run_cli("audit", str(campaign), "--db", str(db), "-q", *extra)
    assert result.returncode in (0, 1, 2) and b"Traceback" not in result.stderr, result.stderr
    return result


def test_csv_export_neutralises_formula_cells(tmp_path: Path) -> None:
    campaign = _campaign(tmp_path)
    for i, start in enumerate(FORMULAS):
        shutil.copy(AGENTGUARD, campaign / f"{start}{i}.jsonl")
    shutil.copy(AGENTGUARD, campaign / "\tTAB.jsonl")
    db = tmp_path / "c.duckdb"
    _audit(campaign, db)
    assert run_cli("db", "export", str(db), "--csv", str(tmp_path / "csv"), "-q").returncode == 0
    with open(tmp_path / "csv" / "files.csv", newline="") as handle:
        paths = [row["path"] for row in csv.DictReader(handle)]
    assert len(paths) == 3 + len(FORMULAS) + 1
    for path in paths:
        assert path[0] not in "=+-@\t\r", path
    assert sorted(p for p in paths if p.startswith("'")) == sorted(
        ["'\tTAB.jsonl", *(f"'{s}{i}.jsonl" for i, s in enumerate(FORMULAS))]
    )
    assert "a.jsonl" in paths  # ordinary cells unchanged
    with open(tmp_path / "csv" / "runs.csv", newline="") as handle:
        assert [row["run_id"] for row in csv.DictReader(handle)] == ["1"]  # numbers unchanged
    assert run_cli("db", "export", str(db), "--parquet", str(tmp_path / "pq"), "-q").returncode == 0
    import duckdb

    kept = duckdb.sql(f"SELECT path FROM '{tmp_path / 'pq' / 'files.parquet'}'").fetchall()
    assert "=1+10.jsonl" in {row[0] for row in kept}  # Parquet keeps the exact value


def test_db_runs_lists_every_run(tmp_path: Path) -> None:
    campaign = _campaign(tmp_path)
    db = tmp_path / "c.duckdb"
    _audit(campaign, db)
    scenario = CORPUS / "harness" / "s8_secret_disclosure" / "scenario.yaml"
    _audit(campaign, db, "--scenario", str(scenario))
    result = run_cli("db", "runs", str(db), "-f", "json")
    assert result.returncode == 0, result.stderr
    assert result.stderr.decode() == "tracekit db runs: 2 run(s), 2 complete\n"
    report = json.loads(result.stdout)
    assert report["report"] == "runs" and report["report_version"] == 1
    first, second = report["runs"]
    assert (first["run_id"], first["status"], first["files_seen"], first["files_reused"]) == (1, "complete", 3, 0)
    assert first["options"]["scenario"] is None and isinstance(second["options"]["scenario"], str)
    plain = run_cli("audit", str(campaign), "-q", "-f", "json")
    assert first["exit_code"] == plain.returncode
    table = run_cli("db", "runs", str(db), "-q").stdout.decode().splitlines()
    assert table[0] == "== 2 run(s)" and table[-1].split()[0] == "2" and "scenario" in table[-1]
    markdown = run_cli("db", "runs", str(db), "-q", "-f", "markdown").stdout.decode()
    assert markdown.startswith("## 2 run(s)") and "|---|" in markdown
    empty = tmp_path / "empty.duckdb"
    import duckdb

    from tracekit.store.schema import migrate

    con = duckdb.connect(str(empty))
    migrate(con)
    con.close()
    none = run_cli("db", "runs", str(empty), "-f", "json")
    assert none.returncode == 0 and json.loads(none.stdout)["runs"] == []


def test_bad_db_paths_get_the_output_codes(tmp_path: Path) -> None:
    campaign = _campaign(tmp_path)
    link = tmp_path / "link.duckdb"
    link.symlink_to(tmp_path / "target.duckdb")
    fifo = tmp_path / "fifo.duckdb"
    os.mkfifo(fifo)
    cases = [
        (tmp_path / "no" / "s.duckdb", b"cli.output_parent_missing"),
        (campaign / "a.jsonl" / "s.duckdb", b"cli.output_parent_missing"),
        (tmp_path, b"cli.output_is_folder"),
        (link, b"cli.output_unsafe"),
        (fifo, b"cli.output_not_regular"),
        (Path(os.devnull), b"cli.output_not_regular"),
        (Path("/proc/tracekit-store.duckdb"), b"cli.output_unwritable"),
    ]
    for db, code in cases:
        result = run_cli("audit", str(campaign), "--db", str(db))
        assert result.returncode == 2 and code in result.stderr, (db, result.stderr)
        assert result.stdout == b"" and str(db).encode() not in result.stderr
    assert not (tmp_path / "target.duckdb").exists()


def _damaged_copies(db: Path, tmp_path: Path) -> list[Path]:
    """Copies of ``db`` truncated at a few points and with blocks overwritten (seeded)."""
    size = db.stat().st_size
    out = []
    for i, cut in enumerate((12, size // 2, size - 4096)):
        copy = tmp_path / f"cut{i}.duckdb"
        shutil.copy(db, copy)
        os.truncate(copy, cut)
        out.append(copy)
    rng = random.Random(22)
    for i in range(3):
        copy = tmp_path / f"flip{i}.duckdb"
        shutil.copy(db, copy)
        with open(copy, "r+b") as handle:
            handle.seek(rng.randrange(12, size - 4096))
            handle.write(rng.randbytes(4096))
        out.append(copy)
    return out


def test_damaged_store_is_a_store_code_never_internal(tmp_path: Path) -> None:
    campaign = _campaign(tmp_path)
    db = tmp_path / "c.duckdb"
    _audit(campaign, db)
    seen = set()
    for copy in _damaged_copies(db, tmp_path):
        for args in (("db", "summary"), ("db", "findings"), ("db", "runs"), ("audit", str(campaign))):
            command = [*args, str(copy)] if args[0] == "db" else [*args, "--db", str(copy), "-q"]
            result = run_cli(*command)
            err = result.stderr
            assert b"internal" not in err and b"Traceback" not in err, (copy.name, args, err)
            assert result.returncode in (0, 1, 2), (copy.name, args)
            if result.returncode == 2:
                assert b"error[store.corrupt]" in err or b"error[store.not_a_store]" in err, err
                seen.add((copy.name, args[0]))
    assert ("cut1.duckdb", "db") in seen and ("cut1.duckdb", "audit") in seen


def _diff_json(db: Path) -> dict[str, Any]:
    result = run_cli("db", "diff", str(db), "-f", "json")
    assert result.returncode == 0, result.stderr
    return {f["path"]: f for f in json.loads(result.stdout)["files"]}


def test_diff_never_calls_tampering_fixed(tmp_path: Path) -> None:
    campaign = tmp_path / "campaign"
    shutil.copytree(CORPUS / "valid", campaign)
    db = tmp_path / "c.duckdb"
    _audit(campaign, db)
    names = sorted(p.name for p in campaign.glob("*.jsonl"))
    tampered, removed = campaign / names[0], campaign / names[1]
    data = bytearray(tampered.read_bytes())
    at = data.index(b'"', len(data) // 2) + 1
    data[at] ^= 1  # one byte inside a value: still JSON lines, no longer intact
    tampered.write_bytes(bytes(data))
    removed.unlink()
    _audit(campaign, db)
    files = _diff_json(db)
    assert set(files) == {names[0], names[1]}
    edit, gone = files[names[0]], files[names[1]]
    assert edit["change"] == "content" and edit["exit_after"] == 2
    assert edit["fixed"] == [] and edit["not_reevaluated"], edit
    assert gone["change"] == "removed" and gone["state_after"] == "absent"
    assert gone["fixed"] == [] and gone["not_reevaluated"] == [] and gone["gone"]
    text = run_cli("db", "diff", str(db), "-q").stdout.decode()
    assert "None" not in text and "fixed 0" in text and "fixed " not in text.replace("fixed 0", "")
    assert f"{names[1]}: removed (exit 0 -> absent)" in text or f"{names[1]}: removed (exit 1 -> absent)" in text


def _ref(episode: int, code: str) -> FindingRef:
    return FindingRef(episode, code, "warning", "other", None, None)


def test_lost_findings_are_fixed_only_when_re_evaluated() -> None:
    lost = [_ref(0, "a"), _ref(1, "b"), _ref(2, "c")]
    after = Judged("judged", 2, [], [], frozenset({0}), frozenset({0, 1}))
    fixed, unjudged, gone = classify_lost(lost, after)
    assert [r.code for r in fixed] == ["a"]  # episode 0 judged again: really fixed
    assert [r.code for r in unjudged] == ["b"]  # episode 1 there but not intact / unreadable
    assert [r.code for r in gone] == ["c"]  # episode 2 no longer in the file
    assert classify_lost(lost, ABSENT) == ([], [], lost)


def test_store_refuses_another_campaign_root_unless_asked(tmp_path: Path) -> None:
    campaign = _campaign(tmp_path)
    other = tmp_path / "other"
    shutil.copytree(campaign, other)
    link = tmp_path / "link"
    link.symlink_to(campaign)
    db = tmp_path / "c.duckdb"
    _audit(campaign, db)
    refused = run_cli("audit", str(other), "--db", str(db))
    assert refused.returncode == 2 and b"store.other_root" in refused.stderr
    assert refused.stdout == b"" and str(other).encode() not in refused.stderr
    assert len(json.loads(run_cli("db", "runs", str(db), "-f", "json").stdout)["runs"]) == 1
    assert _audit(link, db).returncode in (0, 1)  # the same folder through a symlink
    assert _audit(other, db, "--new-root").returncode in (0, 1)
    assert json.loads(run_cli("db", "diff", str(db), "-f", "json").stdout)["same_root"] is False
    assert b"different campaign folders" in run_cli("db", "diff", str(db)).stdout
    alone = run_cli("audit", str(other), "--new-root")
    assert alone.returncode == 2 and b"cli.option_needs" in alone.stderr


def _mixed_campaign(root: Path) -> Path:
    """One or more files of every format, with a scenario-bearing harness folder."""
    campaign = root / "mixed"
    for part in ("inspect", "otel", "agentdojo", "garak", "agentguard"):
        shutil.copytree(CORPUS / "third_party" / part, campaign / part)
    shutil.copytree(CORPUS / "harness" / "s6_recipient_lists_and_copies", campaign / "harness")
    return campaign


def _plain(campaign: Path, *extra: str) -> dict[str, dict[str, Any]]:
    result = run_cli("audit", str(campaign), "-f", "json", "-q", *extra)
    assert result.returncode in (0, 1, 2) and b"Traceback" not in result.stderr
    traces = json.loads(result.stdout)["traces"]
    return {os.path.relpath(t["path"], campaign): t for t in traces}


def _plain_codes(trace: dict[str, Any]) -> set[str]:
    codes = {f["code"] for f in trace["findings"]}
    return codes | {f["code"] for e in trace.get("episodes") or [] for f in e.get("findings", [])}


def _plain_checks(trace: dict[str, Any]) -> list[str]:
    harness = trace.get("harness")
    if not harness:
        return []
    if harness.get("episodes") is not None:
        return [e["result"] for e in harness["episodes"]]
    return [harness["result"]]


def _stored(db: Path) -> dict[str, dict[str, Any]]:
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        run = con.execute("SELECT max(run_id) FROM runs WHERE status = 'complete'").fetchone()[0]
        out: dict[str, dict[str, Any]] = {}
        for path, rid, exit_code in con.execute(
            "SELECT f.path, f.result_id, r.exit_code FROM files f JOIN results r USING (result_id) "
            "WHERE f.run_id = ? AND r.format <> 'not_a_trace'", [run]
        ).fetchall():
            codes = {c for (c,) in con.execute("SELECT code FROM findings WHERE result_id = ?", [rid]).fetchall()}
            checks = [v for (v,) in con.execute(
                "SELECT verdict FROM verdicts WHERE result_id = ? AND kind = 'check' ORDER BY episode", [rid]
            ).fetchall()]
            out[path] = {"exit_code": exit_code, "codes": codes, "checks": checks}
        return out
    finally:
        con.close()


def test_store_equals_plain_audit_for_every_format(tmp_path: Path) -> None:
    campaign = _mixed_campaign(tmp_path)
    scenario = campaign / "harness" / "scenario.yaml"
    db = tmp_path / "c.duckdb"
    for extra in ((), ("--scenario", str(scenario))):
        # The second run adds a scenario: nothing judged without it may be reused.
        _audit(campaign, db, *extra)
        plain, stored = _plain(campaign, *extra), _stored(db)
        assert set(stored) == set(plain)
        assert {t["format"] for t in plain.values()} >= {
            "inspect", "otel", "agentdojo", "garak", "agentguard", "harness"
        }
        for path, trace in plain.items():
            got = stored[path]
            assert got["exit_code"] == trace["exit_code"], path
            assert got["codes"] - {"audit.no_integrity"} == _plain_codes(trace) - {"audit.no_integrity"}, path
            assert got["checks"] == _plain_checks(trace), path
    judged = [p for p, t in plain.items() if t["format"] not in ("harness", "agentguard") and _plain_checks(t)]
    assert judged, "the scenario judged no imported file"
    runs = json.loads(run_cli("db", "runs", str(db), "-f", "json").stdout)["runs"]
    assert runs[1]["files_reused"] == 0  # every format re-judged under the scenario
    _audit(campaign, db, "--scenario", str(scenario))
    assert json.loads(run_cli("db", "runs", str(db), "-f", "json").stdout)["runs"][2]["files_audited"] == 0


def _blake3(path: Path) -> str:
    from blake3 import blake3

    return blake3(path.read_bytes()).hexdigest()


def test_edited_rows_cannot_turn_a_tampered_trace_into_a_pass(tmp_path: Path) -> None:
    import duckdb

    campaign = tmp_path / "campaign"
    shutil.copytree(CORPUS / "valid", campaign)
    db = tmp_path / "c.duckdb"
    _audit(campaign, db)
    trace = sorted(campaign.glob("v2__*.jsonl"))[0]
    data = bytearray(trace.read_bytes())
    data[data.index(b'"', len(data) // 2) + 1] ^= 1
    trace.write_bytes(bytes(data))
    plain = run_cli("audit", str(campaign), "-q")
    assert plain.returncode == 2
    # The attack: point the intact trace's stored result at the tampered bytes, exit 0.
    con = duckdb.connect(str(db))
    con.execute(
        "UPDATE results SET digest = ? WHERE result_id = (SELECT result_id FROM files WHERE path = ?)",
        [_blake3(trace), trace.name],
    )
    con.close()
    resumed = run_cli("audit", str(campaign), "--db", str(db), "-q")
    assert resumed.returncode == 2, resumed.stderr
    assert b"warning[store.seal_mismatch] 1 stored result(s)" in resumed.stderr
    runs = json.loads(run_cli("db", "runs", str(db), "-f", "json").stdout)["runs"]
    assert runs[-1]["exit_code"] == 2 and runs[-1]["files_audited"] == 1
    again = run_cli("audit", str(campaign), "--db", str(db), "-q")
    assert again.returncode == 2 and b"seal_mismatch" not in again.stderr  # fresh rows, sealed


def test_a_store_written_under_another_key_is_read_again(tmp_path: Path) -> None:
    campaign = _campaign(tmp_path)
    db = tmp_path / "c.duckdb"
    _audit(campaign, db)
    env = dict(os.environ, TRACEKIT_STORE_KEY=str(tmp_path / "other.key"))
    import subprocess

    from tests.helpers import _BIN

    result = subprocess.run(
        [str(_BIN), "audit", str(campaign), "--db", str(db), "-q"], env=env, capture_output=True,
        timeout=120, check=False,
    )
    assert b"warning[store.seal_mismatch] 3 stored result(s)" in result.stderr, result.stderr
    assert (tmp_path / "other.key").stat().st_mode & 0o077 == 0  # created owner-only


AGENTDOJO = CORPUS / "third_party" / "agentdojo" / "runs" / "scripted-model" / "workspace" / "user_task_1" / "none" / "none.json"
INSPECT = CORPUS / "third_party" / "inspect" / "tracekit_corpus.eval"
SCENARIO = CORPUS / "harness" / "s6_recipient_lists_and_copies" / "scenario.yaml"


@pytest.mark.parametrize("trace", [AGENTDOJO, INSPECT], ids=["agentdojo", "inspect"])
def test_episode_ids_are_equal_across_commands(trace: Path) -> None:
    shown = [e["id"] for e in json.loads(run_cli("show", str(trace), "-f", "json").stdout)["episodes"]]
    audited = [e["id"] for e in json.loads(run_cli("audit", str(trace), "-f", "json", "-q").stdout)["traces"][0]["episodes"]]
    checked = json.loads(run_cli("check", "-f", "json", str(SCENARIO), str(trace), "-f", "json", "-q").stdout)["episodes"]
    assert shown == audited == [e["episode"] for e in checked] and shown
    for episode_id in shown:
        assert len(episode_id) <= 64
        one = run_cli("check", "-f", "json", str(SCENARIO), str(trace), "-f", "json", "-q", "--episode", episode_id)
        assert one.returncode in (0, 1), one.stderr
        assert [e["episode"] for e in json.loads(one.stdout)["episodes"]] == [episode_id]
    table = run_cli("check", "-f", "json", str(SCENARIO), str(trace), "-q").stdout.decode()
    for episode_id in shown:
        assert episode_id in table  # whole on one line, never wrapped
    missing = run_cli("check", "-f", "json", str(SCENARIO), str(trace), "--episode", "sha256:0000000000000000")
    assert missing.returncode == 2 and b"tracekit show FILE" in missing.stderr


def _sealed_store(results: int, stage: Path) -> tuple[Any, bytes, dict[str, str | None]]:
    import duckdb

    from tracekit.store.ingest import Stored, rows_for
    from tracekit.store.schema import migrate
    from tracekit.store.writer import Writer

    con = duckdb.connect()
    migrate(con)
    key = bytes(range(32))
    seals: dict[str, str | None] = {}
    for i in range(results):
        report = {
            "format": "agentguard", "exit_code": 1, "readable": True, "intact": True,
            "rerunnable": False, "harness": {"result": "pass"},
            "findings": [{"code": "audit.field_missing", "severity": "warning", "line": i, "where": "x",
                          "message": "m"}],
            "completeness": [{"field": "f", "status": "missing", "where": "w", "needed_to_rerun": True}],
        }
        writer = Writer(con, 1, str(stage), batch_files=1)
        writer.add([], rows_for(f"r{i}", f"d{i}", "k", 10, 1, Stored(report, [])), key)
        writer.flush()
    seals.update(con.execute("SELECT result_id, seal FROM results").fetchall())
    return con, key, seals


EDITS = (
    "UPDATE results SET exit_code = 0 WHERE result_id = 'r1'",
    "UPDATE results SET digest = 'other' WHERE result_id = 'r1'",
    "UPDATE episode_rows SET exit_code = 0 WHERE result_id = 'r1'",
    # an edited finding, completeness row or verdict inside the episode's detail (version 5)
    "UPDATE episode_details SET findings = replace(findings, 'warning', 'error') WHERE result_id = 'r1'",
    "UPDATE episode_details SET findings = '[]' WHERE result_id = 'r1'",
    "UPDATE episode_details SET completeness = replace(completeness, 'missing', 'present') WHERE result_id = 'r1'",
    "UPDATE episode_details SET verdicts = replace(verdicts, 'pass', 'fail') WHERE result_id = 'r1'",
    # The per-episode tables hold no key: a row added twice, or one more row, must fail the
    # seal too (it counts each table's rows).
    "INSERT INTO episode_rows SELECT * FROM episode_rows WHERE result_id = 'r1'",
    "INSERT INTO episode_details SELECT * FROM episode_details WHERE result_id = 'r1'",
    "INSERT INTO episode_details SELECT result_id, 1, '[]', '[]', '[]' FROM episode_details WHERE result_id = 'r1'",
    "DELETE FROM episode_details WHERE result_id = 'r1'",
)


@pytest.mark.parametrize("edit", EDITS)
def test_seal_catches_an_edit_of_any_table(edit: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from tracekit.store import seal

    monkeypatch.setattr(seal, "CHECK_BATCH", 2)  # three results: two batches
    monkeypatch.setattr(seal, "FETCH_ROWS", 1)  # rows stream back one at a time
    con, key, seals = _sealed_store(3, tmp_path)
    assert seal.broken(con, key, seals) == set()
    assert seal.broken(con, None, seals) == set(seals)  # no key: nothing is trusted
    assert seal.broken(con, bytes(32), seals) == set(seals)  # another key
    con.execute(edit)
    assert seal.broken(con, key, seals) == {"r1"}
