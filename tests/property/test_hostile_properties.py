"""Hostile-input invariants (docs/threat-model.md, "Fuzzing and resource bounds"): same verdict
from file, stdin and pipe; depth never reaches a decoder;
no command writes through a symlinked output."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tests.helpers import CORPUS, FIXTURE, run_cli
from tracekit.cli.app import app
from tracekit.formats.agentguard.verify import verify_file, verify_stream

TRACES = sorted(p for p in CORPUS.rglob("*.jsonl") if "regressions" not in p.parts)


def _findings(report: object) -> list[tuple[str, str, int | None]]:
    return [(f.code.value, f.severity.value, f.line) for f in report.findings if f.code.value != "source.none_recorded" and not f.code.value.startswith("source.")]  # type: ignore[attr-defined]


@pytest.mark.parametrize("path", TRACES, ids=[p.name for p in TRACES])
def test_file_and_stream_give_the_same_verdict(path: Path) -> None:
    from_file = verify_file(path)
    from_stream = verify_stream(io.BufferedReader(io.BytesIO(path.read_bytes())))  # type: ignore[arg-type]
    if from_file.header is not None and from_file.header.source_artifacts:
        return  # sources resolve against the file's folder; a stream has none
    assert from_file.exit_code == from_stream.exit_code
    assert _findings(from_file) == _findings(from_stream)


def test_stdin_matches_file_through_the_cli() -> None:
    for path in TRACES[:: max(1, len(TRACES) // 12)]:
        by_file = run_cli("verify", str(path), "-f", "json", "-q")
        by_stdin = run_cli("verify", "-", "-f", "json", "-q", stdin=path.read_bytes())
        a, b = json.loads(by_file.stdout)["traces"][0], json.loads(by_stdin.stdout)["traces"][0]
        if a["sources"]:
            continue
        assert by_file.returncode == by_stdin.returncode
        assert a["findings"] == b["findings"]


@given(depth=st.integers(min_value=66, max_value=20_000), where=st.integers(min_value=0, max_value=12), kind=st.sampled_from("[{"))
def test_depth_is_refused_by_our_check_not_by_a_decoder(depth: int, where: int, kind: str) -> None:
    lines = FIXTURE.read_bytes().split(b"\n")[:-1]
    index = where % len(lines)
    nest = (b'{"a":' * depth + b"1" + b"}" * depth) if kind == "{" else (b"[" * depth + b"]" * depth)
    lines[index] = lines[index][:-1] + b',"deep":' + nest + b"}"
    report = verify_stream(io.BufferedReader(io.BytesIO(b"\n".join(lines) + b"\n")))  # type: ignore[arg-type]
    assert [f.code.value for f in report.findings if f.severity.value == "error"] == ["json.too_deep"]


def _writers(out: Path) -> dict[str, list[str]]:
    trace = str(CORPUS / "valid" / "v2__clean_run.jsonl")
    scenario = str(CORPUS / "third_party" / "owasp-harness" / "scenarios" / "goal_hijack" / "basic.yaml")
    harness = str(CORPUS / "third_party" / "owasp-harness" / "examples" / "traces" / "denied_tool_call.json")
    return {
        "verify": ["verify", trace, "-o", str(out), "--force", "-q"],
        "replay": ["replay", trace, "--output-dir", str(out), "--force"],
        "metamorphic": ["metamorphic", trace, "--trials", "1", "-q", "--output-dir", str(out), "--force"],
        "check": ["check", scenario, harness, "--output", str(out), "--force"],
        "audit": ["audit", trace, "-q", "--output", str(out), "--force"],
    }


REGISTERED = {c.name for c in app.registered_commands}


@pytest.mark.parametrize("command", sorted(set(_writers(Path("x"))) & REGISTERED))
def test_no_command_writes_through_a_symlink(command: str, tmp_path: Path) -> None:
    victim_dir = tmp_path / "victim"
    victim_dir.mkdir()
    victim = victim_dir / "precious.txt"
    victim.write_text("keep me")
    link = tmp_path / "out"
    os.symlink(victim if command in ("verify", "check", "audit") else victim_dir, link)
    result = CliRunner().invoke(app, _writers(link)[command])
    assert result.exit_code == 2, (command, result.stdout, result.stderr)
    assert victim.read_text() == "keep me"
    assert sorted(p.name for p in victim_dir.iterdir()) == ["precious.txt"]
