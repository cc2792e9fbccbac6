"""The agent-session transcript formats (claude_code, codex, atif) through every command that
reads a trace, unchanged: verify, show, audit (and its store), check and seal (docs/formats.md,
"Using it from the command line")."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import CORPUS, run_cli

THIRD = CORPUS / "third_party"
SAMPLES = {
    "claude_code": THIRD / "claude_code" / "public" / "todowrite_examples.jsonl",
    "codex": THIRD / "codex" / "public" / "rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl",
    "atif": THIRD / "atif" / "public" / "openhands_hello-world.trajectory.json",
}
SCENARIO = THIRD / "owasp-harness" / "scenarios" / "goal_hijack" / "basic.yaml"


def _json(*args: str) -> tuple[int, Any]:
    result = run_cli(*args, "-f", "json", "-q")
    assert b"Traceback" not in result.stderr
    return result.returncode, json.loads(result.stdout)


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_verify_show_and_audit(fmt: str) -> None:
    path = str(SAMPLES[fmt])
    code, doc = _json("verify", path)
    assert code == 1 and doc["traces"][0]["format"] == fmt and doc["traces"][0]["status"] == "no_integrity"
    code, doc = _json("show", path)
    assert code == 0 and doc["format"] == fmt and doc["episode_count"] == 1
    assert doc["episodes"][0]["tool_calls"] >= 1
    code, doc = _json("audit", path)
    (trace,) = doc["traces"]
    assert code == 1 and trace["format"] == fmt and len(trace["episodes"]) == 1
    rows = {row["field"]: row["status"] for row in trace["completeness"]}
    assert rows["tool_name"] == "present" and rows["raw_model_response"] == "not_carried"
    assert rows["integrity"] == "not_carried"


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_forced_format_reports_its_own_code(fmt: str) -> None:
    other = SAMPLES["atif" if fmt != "atif" else "codex"]
    result = run_cli("verify", str(other), "--input-format", fmt, "-q")
    assert result.returncode == 2 and f"{fmt}.".encode() in result.stdout + result.stderr


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_check_judges_the_calls(fmt: str) -> None:
    code, doc = _json("check", str(SCENARIO), str(SAMPLES[fmt]))
    assert code == 0
    denied = next(a for e in doc["episodes"] for a in e["assertions"] if a["id"] == "no_denied_tool_call")
    assert denied["result"] == "fail"  # the scenario allows no tool and every sample calls one


def test_seal_and_the_store(tmp_path: Path) -> None:
    assert run_cli("keygen", "-o", str(tmp_path / "k")).returncode == 0
    for fmt, path in SAMPLES.items():
        bundle = tmp_path / f"{fmt}.bundle"
        assert run_cli("seal", str(path), "-o", str(bundle), "--key", str(tmp_path / "k.key"), "-q").returncode == 0
        checked = run_cli("verify", str(bundle), "--trusted-key", str(tmp_path / "k.pub"), "-q")
        assert checked.returncode == 0, checked.stderr
    campaign = tmp_path / "campaign"
    campaign.mkdir()
    for path in SAMPLES.values():
        shutil.copy(path, campaign / path.name)
    stored = run_cli("audit", str(campaign), "--db", str(tmp_path / "store.duckdb"), "-q")
    assert stored.returncode == 1, stored.stderr
    code, summary = _json("db", "summary", str(tmp_path / "store.duckdb"))
    assert code == 0
    assert set(summary["by_format"]) >= set(SAMPLES)
