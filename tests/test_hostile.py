"""The hostile corpus across every command: documented exit code, no traceback, no echo.

Each case in corpus/hostile/agentguard/ carries a canary; every command that reads AgentGuard
traces runs on it in every output format (and with --output-dir where the command writes files),
and neither stdout, stderr nor any written file may contain the canary.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.helpers import CORPUS
from tracekit.cli.app import app

FOLDER = CORPUS / "hostile" / "agentguard"
MANIFEST = json.loads((FOLDER / "expected.json").read_text())
REGISTERED = {command.name for command in app.registered_commands}


def _invocations(path: Path, out: Path) -> dict[str, list[list[str]]]:
    p = str(path)
    return {
        "verify": [["verify", p], ["verify", p, "-f", "json"], ["verify", p, "--canonical", "--strict-sources"]],
        "show": [["show", p], ["show", p, "-f", "json"]],
        "replayability": [["replayability", p], ["replayability", p, "-f", "json"]],
        "replay": [["replay", p], ["replay", p, "-f", "json", "--output-dir", str(out / "replay")]],
        "metamorphic": [["metamorphic", p, "--trials", "1", "-q", "-f", "json", "--output-dir", str(out / "meta")]],
        "audit": [["audit", p, "-q"], ["audit", p, "-q", "-f", "json"], ["audit", p, "-q", "-f", "markdown"]],
    }


CASES = [
    (name, command, expected)
    for name, entry in sorted(MANIFEST.items())
    for command, expected in entry.items()
    if isinstance(expected, dict) and command in REGISTERED
]


def test_every_reading_command_is_covered() -> None:
    commands = {command for _, command, _ in CASES}
    assert {"verify", "show", "replayability", "replay"} <= commands
    assert len(MANIFEST) >= 24


@pytest.mark.parametrize(("name", "command", "expected"), CASES, ids=[f"{n}:{c}" for n, c, _ in CASES])
def test_hostile_case(name: str, command: str, expected: dict[str, Any], tmp_path: Path) -> None:
    canary = MANIFEST[name]["canary"]
    allowed = expected["exit"] if isinstance(expected["exit"], list) else [expected["exit"]]
    for args in _invocations(FOLDER / name, tmp_path)[command]:
        result = CliRunner().invoke(app, args)
        text = result.stdout + result.stderr
        assert result.exit_code in allowed, (args, result.exit_code, text[-500:])
        assert "Traceback" not in text
        assert canary not in text.lower()
        if "code" in expected and "-f" in args:
            assert expected["code"] in text
    for written in tmp_path.rglob("*"):
        # Reports must never echo; transformed traces are copies of the input by design.
        if written.is_file() and "transformed" not in written.parts:
            assert canary.encode() not in written.read_bytes().lower(), written.name
