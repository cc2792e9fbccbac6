"""``check`` reads scenarios and traces through the format layer's one bounded reader
(tracekit/formats/reading.py, ``read_capped``), with check's own codes as before: endless and
oversized inputs are refused after at most cap + 1 bytes, streams named by the user are read,
folders and sockets never are."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import CORPUS, run_cli
from tracekit.formats.reading import read_capped
from tracekit.kernel.errors import Code, TracekitError
from tracekit.kernel.limits import HARNESS_LIMITS

UPSTREAM = CORPUS / "third_party" / "owasp-harness"
BASIC = str(UPSTREAM / "scenarios/goal_hijack/basic.yaml")
DENIED = UPSTREAM / "examples/traces/denied_tool_call.json"
TRACEKIT = str(Path(sys.executable).parent / "tracekit")


def test_read_capped_reads_at_most_cap_plus_one(tmp_path: Path) -> None:
    exact = tmp_path / "exact"
    exact.write_bytes(b"x" * 10)
    assert read_capped(exact, 10) == b"x" * 10
    with pytest.raises(TracekitError) as over:
        read_capped(exact, 9)
    assert over.value.finding.code is Code.FORMAT_TOO_LARGE and "9" in over.value.finding.message
    with pytest.raises(TracekitError) as endless:
        read_capped("/dev/zero", 1000)  # a character device: read as a stream, never whole
    assert endless.value.finding.code is Code.FORMAT_TOO_LARGE
    for unreadable in (tmp_path, tmp_path / "missing"):
        with pytest.raises(TracekitError) as refused:
            read_capped(unreadable, 10)
        assert refused.value.finding.code is Code.FORMAT_UNREADABLE
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    with pytest.raises(TracekitError) as nothing:
        read_capped(empty, 10)
    assert nothing.value.finding.code is Code.FORMAT_EMPTY  # docs/cli.md, "One code per mistake"


def test_standard_input_is_capped_with_the_harness_code() -> None:
    ok = run_cli("check", "-f", "json", BASIC, "-", "-q", stdin=DENIED.read_bytes())
    assert ok.returncode == 0 and json.loads(ok.stdout)["result"] == "fail"
    huge = b'{"messages": [{"content": "' + b"a" * (HARNESS_LIMITS.total_bytes + 10) + b'"}]}'
    run = run_cli("check", "-f", "json", BASIC, "-", stdin=huge)
    assert run.returncode == 2 and b"[harness.trace_too_large]" in run.stderr
    assert json.loads(run.stdout)["scenarios"][0]["detail"]["code"] == "harness.trace_too_large"


def test_endless_device_and_named_pipe() -> None:
    run = run_cli("check", "-f", "json", BASIC, "/dev/zero")
    assert run.returncode == 2 and b"[harness.trace_too_large]" in run.stderr
    # Process substitution hands check a pipe: it is read like a file.
    piped = subprocess.run(
        ["bash", "-c", f'"{TRACEKIT}" check -f json "{BASIC}" <(cat "{DENIED}") -q --input-format harness'],
        capture_output=True, timeout=120, check=False,
    )
    assert piped.returncode == 0, piped.stderr.decode()
    assert json.loads(piped.stdout)["result"] == "fail"


def test_socket_and_folder_are_never_read(tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        run = run_cli("check", "-f", "json", BASIC, str(path), "--input-format", "harness")
        assert run.returncode == 2 and b"[format.unreadable]" in run.stderr
    finally:
        server.close()
    scenario = tmp_path / "folder.yaml"
    scenario.mkdir()
    run = run_cli("check", "-f", "json", str(scenario), str(DENIED))
    assert run.returncode == 2 and b"Traceback" not in run.stderr
    os.rmdir(scenario)
