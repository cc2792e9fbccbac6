"""Replay diagnostics never echo trace content: a canary planted in any policy input, command,
path or recorded check never reaches stderr, nor any replayability output.

Recomputed evidence *does* contain paths and commands (upstream's evidence formats): that is
result content on stdout, so replay's stdout is not checked here except for control characters.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from gen import base
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tracekit.cli.app import app
from tracekit.formats.agentguard.writer import DraftTrace, write_trace

CANARY = "zqxcanary7731qxz"


def _plant(where: str, form: str) -> DraftTrace:
    draft = base.clean_trace(2, "echo")
    snap: dict[str, Any] = draft.header["policy_snapshot"]
    if where == "enabled":
        snap["enabled_checks"].append(form)
    elif where == "severity_key":
        snap["severities"][form] = "error"
        snap["enabled_checks"].append(form)
    elif where == "weights_key":
        snap["score_weights"][form] = 1
    elif where == "redacted":
        snap["redacted_inputs"].append(form)
    elif where in ("unsafe_commands", "forbidden_paths", "secret_patterns", "allowed_paths"):
        snap[where].append(form)
    elif where == "command":
        draft.events[1] = base.command(["rm", "-rf", form])
    elif where == "role":
        draft.events[1].payload["working_directory_role"] = form
    elif where == "check_name":
        draft.events[6].payload["name"] = form
    elif where == "check_message":
        draft.events[12].payload["message"] = form + " content-based"
    elif where == "failed_checks":
        draft.events[-1].payload["failed_checks"] = [form]
    return draft


WHERE = [
    "enabled",
    "severity_key",
    "weights_key",
    "redacted",
    "unsafe_commands",
    "forbidden_paths",
    "secret_patterns",
    "allowed_paths",
    "command",
    "role",
    "check_name",
    "check_message",
    "failed_checks",
]


@given(
    where=st.sampled_from(WHERE), form=st.sampled_from([CANARY, CANARY + "\x1b[31m", CANARY * 50])
)
def test_no_canary_in_replay_diagnostics(where: str, form: str) -> None:
    data = write_trace(_plant(where, form))
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "trace.jsonl")
        Path(path).write_bytes(data)
        runner = CliRunner()
        for args in (["replayability", path], ["replayability", path, "--format", "json"]):
            result = runner.invoke(app, args)
            assert result.exit_code in (0, 1), result.exit_code
            assert CANARY not in result.stdout + result.stderr
        for fmt in ("table", "json"):
            result = runner.invoke(app, ["replay", path, "--format", fmt])
            assert result.exit_code in (0, 1, 2)
            assert CANARY not in result.stderr
            assert "Traceback" not in result.stdout + result.stderr
            assert "\x1b" not in result.stdout
