"""Every case in corpus/replay/expected.json, through the library and the CLI (in process)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.helpers import CORPUS
from tracekit.cli.app import app
from tracekit.formats.agentguard.verify import VerifyOptions, verify_file
from tracekit.judging.replay import replay

FOLDER = CORPUS / "replay"
EXPECTED: dict[str, dict[str, Any]] = json.loads((FOLDER / "expected.json").read_text())
CASES = [
    (name, command, outcome)
    for name, entry in sorted(EXPECTED.items())
    for command, outcome in entry.items()
    if command.startswith("replay")
]


def test_corpus_covers_every_equivalence_and_refusal() -> None:
    replays = [o for _, c, o in CASES if c == "replay"]
    assert {o["equivalence"] for o in replays} == {"exact", "semantic", "divergent", None}
    codes = {o["code"] for _, c, o in CASES if c.startswith("replayability") and o["code"]}
    assert {
        "replay.not_replayable_v1",
        "replay.redacted_inputs",
        "replay.command_patterns_differ",
        "replay.unknown_check",
        "replay.missing_severity",
        "replay.score_weights",
        "replay.truncated_evidence",
        "replay.truncated_modified_files",
        "replay.strict_sources",
        "replay.secret_scan_not_recomputable",
        "replay.inconsistent_file_changes",
    } <= codes
    assert len([n for n in EXPECTED if n.startswith("fail_alone__")]) >= 7


@pytest.mark.parametrize(
    ("name", "command", "outcome"), CASES, ids=[f"{n}:{c}" for n, c, _ in CASES]
)
def test_replay_corpus_case(name: str, command: str, outcome: dict[str, Any]) -> None:
    path = FOLDER / name
    args = command.split()
    strict = "--strict-sources" in args
    report = replay(
        verify_file(path, VerifyOptions(keep_events=True, strict_sources=strict)),
        strict_sources=strict,
    )
    if args[0] == "replayability":
        assert report.replayable is (outcome["exit"] == 0)
        assert (report.reasons[0].code.value if report.reasons else None) == outcome["code"]
    else:
        assert report.equivalence == outcome["equivalence"]
    result = CliRunner().invoke(app, [args[0], str(path), *args[1:], "--format", "json"])
    assert result.exit_code == outcome["exit"], result.stderr
    doc = json.loads(result.stdout)
    assert doc["trace_id"] == report.trace_id
    if args[0] == "replay":
        assert doc["equivalence"] == outcome["equivalence"]


def test_expected_names_match_files() -> None:
    assert {p.name for p in FOLDER.glob("*.jsonl")} == set(EXPECTED)
    assert all(Path(FOLDER / n).stat().st_size > 0 for n in EXPECTED)
