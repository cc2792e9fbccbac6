"""Nothing read from inside a trace reaches the store but the episode ids every report prints
(docs/cli.md, "Episode ids": plain and short, else a digest): a canary planted in trace values,
non-plain ids and outcomes is absent from every table (the store is exported and shared as is)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import msgspec

from tests.helpers import CORPUS, run_cli
from tracekit.formats.base import EpisodeStream
from tracekit.judging.audit.imported import audit_stream
from tracekit.judging.audit.model import EpisodeAudit
from tracekit.kernel.episode_id import episode_label
from tracekit.kernel.evidence import Episode, EvidenceFile, RunFacts
from tracekit.store.episodes import stream_result
from tracekit.store.schema import TABLES

CANARY = "CANARY-b5c1d2"


def test_imported_episode_ids_are_kept_as_reports_print_them_and_outcomes_are_not_kept() -> None:
    hostile = f"{CANARY} \x1b[2J/../{CANARY}"
    evidence = EvidenceFile(
        format="inspect", format_version=None,
        episodes=(Episode(id=hostile, facts=RunFacts(tool="inspect_ai", outcome=CANARY)),
                  Episode(id="sample-2", facts=RunFacts(tool="inspect_ai", outcome="fail"))),
    )
    kept: list[EpisodeAudit] = []
    made = stream_result(
        EpisodeStream.whole(evidence), lambda s, sink: audit_stream("x", s, None, True, sink), kept.append
    )
    result = {**made.result, "episodes": list(made.episodes(kept[i] for i in made.order))}
    assert CANARY not in msgspec.json.encode(result).decode()
    assert [e["outcome"] for e in result["episodes"]] == [None, "fail"]
    assert [e["episode_id"] for e in result["episodes"]] == [episode_label(hostile), "sample-2"]
    assert episode_label(hostile).startswith("sha256:")


def test_no_table_holds_trace_content(tmp_path: Path) -> None:
    root = tmp_path / "campaign"
    shutil.copytree(CORPUS / "audit", root / "audit")
    shutil.copytree(CORPUS / "third_party" / "inspect", root / "inspect")
    harness = json.loads((CORPUS / "audit" / "harness" / "complete.json").read_bytes())
    harness["tool_calls"][0]["arguments"] = {CANARY: CANARY}
    harness["tool_calls"][0]["id"] = CANARY
    harness["events"].append({"type": "outcome", "result": CANARY, "scorer": CANARY})
    (root / "planted.json").write_text(json.dumps(harness))
    db = tmp_path / "c.duckdb"
    assert run_cli("audit", str(root), "--db", str(db), "-q").returncode in (1, 2)
    con = duckdb.connect(str(db), read_only=True)
    try:
        for table in TABLES:
            columns = [r[0] for r in con.execute(f"DESCRIBE {table}").fetchall()]
            text = json.dumps(con.execute(f"SELECT * FROM {table}").fetchall(), default=str)
            assert CANARY not in text, (table, columns)
    finally:
        con.close()
