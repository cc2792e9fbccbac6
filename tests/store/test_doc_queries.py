"""Every ``sql`` block of docs/campaign-store.md runs against a real store and answers."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from tests.helpers import ROOT, run_cli

DOC = ROOT / "docs" / "campaign-store.md"


def test_documented_queries_run(campaign: Path, tmp_path: Path) -> None:
    blocks = re.findall(r"```sql\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 3
    db = tmp_path / "c.duckdb"
    assert run_cli("audit", str(campaign), "--db", str(db), "-q").returncode == 2
    clean = campaign / "audit" / "agentguard" / "consistent__clean_run.jsonl"
    clean.write_bytes((campaign / "audit" / "agentguard" / "forgery__score_mismatch.jsonl").read_bytes())
    assert run_cli("audit", str(campaign), "--db", str(db), "-q").returncode == 2
    con = duckdb.connect(str(db), read_only=True)
    try:
        missing, changed, rules = (con.execute(sql).fetchall() for sql in blocks)
    finally:
        con.close()
    assert missing and all(row[2] > 0 for row in missing)
    assert changed == [("audit/agentguard/consistent__clean_run.jsonl", 0, 1)]
    by_code = {row[0]: row for row in rules}
    # The copied forgery is one more file but not one more distinct content.
    assert by_code["audit.score_mismatch"][2] == by_code["audit.score_mismatch"][3] + 1
