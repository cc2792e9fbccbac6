"""One episode id everywhere (docs/cli.md, "Episode ids"): the same files, copied under two
different folder and file names, give the same ids in show, audit, check, the campaign store and
a sealed bundle; and ``--episode`` takes show's id in check, audit and report."""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest

from tests.helpers import CORPUS, run_cli

SCENARIO = CORPUS / "harness" / "s1_every_name_counts" / "scenario.yaml"
AGENTDOJO = (
    CORPUS / "third_party" / "agentdojo" / "runs" / "scripted-model" / "workspace" / "user_task_14"
)
INSPECT = CORPUS / "third_party" / "inspect" / "0.3.130" / "tracekit_corpus_epochs.json"
AGENTGUARD = CORPUS / "valid" / "v2__clean_run.jsonl"
HARNESS = CORPUS / "harness" / "s1_every_name_counts" / "pass.json"
CANARY = "CANARY-ep-4d1f"


def _inputs() -> dict[str, bytes]:
    """One file per kind, by a name of ours: real logs, plus two variants of them whose ids
    used to depend on the path (an AgentDojo log that leaves its attack out, which its folder
    names) or must not reach a terminal (an Inspect sample id with control characters)."""
    dojo = json.loads((AGENTDOJO / "injecagent" / "injection_task_0.json").read_bytes())
    dojo["attack_type"] = None
    inspect = json.loads(INSPECT.read_bytes())
    inspect["samples"][0]["id"] = f"{CANARY} \x1b[31m/../" + "x" * 80
    return {
        "dojo": (AGENTDOJO / "injecagent" / "injection_task_4.json").read_bytes(),
        "dojo_unnamed": json.dumps(dojo).encode(),
        "inspect": INSPECT.read_bytes(),
        "inspect_hostile": json.dumps(inspect).encode(),
        "agentguard": AGENTGUARD.read_bytes(),
        "harness": HARNESS.read_bytes(),
    }


_SUFFIX = {"agentguard": ".jsonl"}


def _lay_out(
    root: Path, inputs: dict[str, bytes], deep: tuple[str, ...], prefix: str
) -> dict[str, Path]:
    """Each input under ``root/<deep...>/<key>/`` with a file name of ``prefix``; AgentDojo logs
    are named as the path context expects (``attack/injection_task.json``), so the folder
    names are what a path-derived id would read."""
    out: dict[str, Path] = {}
    for key, data in inputs.items():
        folder = root.joinpath(*deep, key)
        name = f"{prefix}{_SUFFIX.get(key, '.json')}"
        if key.startswith("dojo"):
            folder, name = folder / f"{prefix}_attack", f"{prefix}_task.json"
        folder.mkdir(parents=True)
        (folder / name).write_bytes(data)
        out[key] = folder / name
    return out


def _json(*args: str) -> Any:
    result = run_cli(*args, "-f", "json", "-q")
    assert result.returncode in (0, 1), (args, result.stderr)
    return json.loads(result.stdout)


def _ids_everywhere(
    root: Path, files: dict[str, Path], tmp: Path
) -> dict[str, dict[str, list[str]]]:
    """key -> command -> the ids that command prints for the file."""
    by_digest = {hashlib.sha256(p.read_bytes()).hexdigest(): key for key, p in files.items()}
    by_path = {str(p): key for key, p in files.items()}
    out: dict[str, dict[str, list[str]]] = {key: {} for key in files}
    for key, path in files.items():
        out[key]["show"] = [e["id"] for e in _json("show", str(path))["episodes"]]
        if key != "harness":  # a harness trace's check output is upstream's document
            out[key]["check"] = [
                e["episode"] for e in _json("check", str(SCENARIO), str(path))["episodes"]
            ]
    for trace in _json("audit", str(root))["traces"]:
        out[by_path[trace["path"]]]["audit"] = [e["id"] for e in trace["episodes"]]
    db = tmp / f"{root.name}.duckdb"
    assert run_cli("audit", str(root), "--db", str(db), "-q").returncode in (0, 1)
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            "SELECT f.path, e.episode_id FROM files f JOIN episodes e USING (result_id) "
            "ORDER BY f.path, e.episode"
        ).fetchall()
    finally:
        con.close()
    for path, ident in rows:
        out[by_path[str(root / path)]].setdefault("store", []).append(ident)
    bundle = tmp / f"{root.name}.tkb"
    assert run_cli("seal", str(root), "-o", str(bundle), "-q").returncode == 0
    shown = _json("bundle", "show", str(bundle))
    statement = shown["statement"]
    originals = [  # each original's own subject statement (docs/bundle-format.md section 6)
        json.loads(base64.b64decode(e["payload"]))["subject"][0]["digest"]["sha256"] for e in shown["original_envelopes"]
    ]
    for digest, ids in zip(originals, statement["predicate"]["episodes"], strict=True):
        out[by_digest[digest]]["bundle"] = ids
    return out


def test_same_files_under_other_names_give_the_same_ids_in_every_output(tmp_path: Path) -> None:
    inputs = _inputs()
    first_root, second_root = tmp_path / "first", tmp_path / "campaign-two"
    first = _ids_everywhere(
        first_root, _lay_out(first_root, inputs, ("alpha", "beta"), "one"), tmp_path
    )
    second = _ids_everywhere(
        second_root, _lay_out(second_root, inputs, ("elsewhere",), "renamed"), tmp_path
    )
    assert first == second
    for key, seen in first.items():
        commands = {"show", "audit", "store", "bundle"} | ({"check"} if key != "harness" else set())
        assert set(seen) == commands, key
        ids = seen["show"]
        assert ids and all(sorted(v) == sorted(ids) for v in seen.values()), (key, seen)
        assert all(0 < len(i) <= 64 and CANARY not in i for i in ids)
    assert first["harness"]["show"] == ["trace"]
    assert first["dojo_unnamed"]["show"] != first["dojo"]["show"]
    assert sum(i.startswith("sha256:") for i in first["inspect_hostile"]["show"]) == 1


@pytest.mark.parametrize(
    ("source", "kind"),
    [
        (INSPECT, "inspect"),
        (AGENTDOJO / "injecagent" / "injection_task_4.json", "dojo"),
        (AGENTGUARD, "agentguard"),
        (HARNESS, "harness"),
    ],
)
def test_episode_takes_shows_id_in_check_audit_and_report(
    source: Path, kind: str, tmp_path: Path
) -> None:
    ids = [e["id"] for e in _json("show", str(source))["episodes"]]
    wanted = ids[-1]
    checked = _json("check", str(SCENARIO), str(source), "--episode", wanted)
    assert [e["episode"] for e in checked["episodes"]] == [wanted]
    audited = _json("audit", str(source), "--episode", wanted)
    assert [e["id"] for t in audited["traces"] for e in t["episodes"]] == [wanted]
    page = tmp_path / "r.html"
    result = run_cli("report", str(source), "--episode", wanted, "-o", str(page), "-q")
    assert result.returncode in (0, 1), result.stderr
    html = page.read_text()
    assert wanted in html and not any(other in html for other in ids if other != wanted)


def test_an_unknown_episode_says_how_to_list_ids_and_never_echoes_it(tmp_path: Path) -> None:
    for args in (
        ("check", str(SCENARIO), str(INSPECT)),
        ("audit", str(INSPECT)),
        ("audit", str(AGENTGUARD)),
        ("report", str(INSPECT), "-o", str(tmp_path / "r.html")),
    ):
        result = run_cli(*args, "--episode", CANARY)
        assert result.returncode == 2, (args, result.stderr)
        assert b"findings.no_episode" in result.stderr and b"tracekit show FILE" in result.stderr
        assert CANARY.encode() not in result.stdout + result.stderr
    assert not (tmp_path / "r.html").exists()
    folder = run_cli("audit", str(INSPECT.parent), "--episode", "x")
    assert folder.returncode == 2 and b"cli.option_needs" in folder.stderr


def test_a_folder_copy_keeps_ids(tmp_path: Path) -> None:
    """The whole AgentDojo run folder copied elsewhere: check's campaign names the same first
    episodes, whatever the folders are called."""
    copy = tmp_path / "x" / "y" / "z"
    shutil.copytree(AGENTDOJO, copy)
    before = _json("check", str(SCENARIO), str(AGENTDOJO))["distinct"]
    after = _json("check", str(SCENARIO), str(copy))["distinct"]
    assert [d["first_episode"] for d in before] == [d["first_episode"] for d in after]
    assert all(d["first_episode"].startswith("sha256:") for d in before)


def _as_version_4(db: Path, target: Path) -> Path:
    """The store ``db`` as version 4 kept it: its views' rows in the tables they were then."""
    from tracekit.store.schema import MIGRATIONS, TABLES, migrate

    con = duckdb.connect(str(target))
    migrate(con, MIGRATIONS[:4])
    con.execute(f"ATTACH '{db}' AS current (READ_ONLY)")
    for table in TABLES:
        con.execute(f"INSERT INTO {table} SELECT * FROM current.{table}")
    con.close()
    return target


def test_store_lists_ids_and_an_older_store_is_named_then_upgraded(tmp_path: Path) -> None:
    root = tmp_path / "campaign"
    root.mkdir()
    shutil.copy(INSPECT, root / "log.json")
    db = tmp_path / "c.duckdb"
    assert run_cli("audit", str(root), "--db", str(db), "-q").returncode in (0, 1)
    shown = [e["id"] for e in _json("show", str(INSPECT))["episodes"]]
    rows = _json("db", "findings", str(db))["rows"]
    assert rows and {r["episode_id"] for r in rows} <= set(shown)
    assert {r["episode_id"] for r in rows if r["episode"] == 0} == {shown[0]}
    db = _as_version_4(db, tmp_path / "v4.duckdb")
    older = run_cli("db", "findings", str(db))
    assert older.returncode == 2 and b"store.older_schema" in older.stderr
    assert b"tracekit audit DIR --db FILE" in older.stderr
    upgraded = run_cli("audit", str(root), "--db", str(db))
    assert upgraded.returncode in (0, 1) and b"store.seal_mismatch" in upgraded.stderr
    assert {r["episode_id"] for r in _json("db", "findings", str(db))["rows"]} <= set(shown)


def test_tables_print_a_64_character_id_whole() -> None:
    """An AgentGuard trace id is the longest plain id (64 hex digits): every table prints it on
    one line, never wrapped."""
    ident = _json("show", str(AGENTGUARD))["episodes"][0]["id"]
    assert len(ident) == 64
    for args in (
        ("show", str(AGENTGUARD)),
        ("replay", str(AGENTGUARD)),
        ("check", str(SCENARIO), str(AGENTGUARD)),
    ):
        table = run_cli(*args, "-q").stdout.decode()
        assert any(ident in line for line in table.splitlines()), args


def test_db_diff_names_each_findings_episode_by_its_id(tmp_path: Path) -> None:
    root = tmp_path / "campaign"
    root.mkdir()
    log = json.loads(INSPECT.read_bytes())
    (root / "log.json").write_text(json.dumps(log))
    db = tmp_path / "c.duckdb"
    assert run_cli("audit", str(root), "--db", str(db), "-q").returncode in (0, 1)
    log["samples"][1]["scores"] = {}  # that episode now misses its outcome and scorer
    (root / "log.json").write_text(json.dumps(log))
    assert run_cli("audit", str(root), "--db", str(db), "-q").returncode in (0, 1)
    shown = [e["id"] for e in _json("show", str(root / "log.json"))["episodes"]]
    new = _json("db", "diff", str(db))["files"][0]["new"]
    assert new and {(r["episode"], r["episode_id"]) for r in new} == {
        (r["episode"], shown[r["episode"]]) for r in new
    }
    table = run_cli("db", "diff", str(db), "-q").stdout.decode()
    assert f"({new[0]['episode_id']})" in table


def test_audit_tables_name_each_episode_by_shows_id() -> None:
    """A location such as ``episodes[2]`` in audit's table and Markdown maps to show's id."""
    shown = [e["id"] for e in _json("show", str(INSPECT))["episodes"]]
    for fmt in ("table", "markdown"):
        text = run_cli("audit", str(INSPECT), "-f", fmt).stdout.decode()
        line = next(x for x in text.splitlines() if x.startswith("episodes: ")).replace("\\", "")
        named = line.removeprefix("episodes: ").split(", and ")[0].split(", ")
        assert named == [f"[{i}] {e}" for i, e in enumerate(shown[:10])]
