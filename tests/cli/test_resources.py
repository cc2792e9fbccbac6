"""Resource bounds, measured on the real entry point (docs/threat-model.md): endless and huge hostile streams
end after at most the total limit plus one line with bounded memory; interrupted runs leave no
output file behind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

TRACEKIT = str(Path(sys.executable).parent / "tracekit")
MiB = 1024 * 1024


_LAUNCHER = (
    "import os, sys\n"
    "pid = os.fork()\n"
    "if pid == 0:\n"
    "    os.execv(sys.argv[1], sys.argv[1:])\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "os.write(2, b'\\nmaxrss=%d\\n' % usage.ru_maxrss)\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)
"""Runs tracekit as its own child: a process forked from the (large) test process starts with
the test process's resident pages, which Linux counts in its peak even after exec, so the peak
is measured on a grandchild forked from this small launcher."""


def _measured(feeder: list[str], args: list[str]) -> tuple[int, int, bytes]:
    """Same as above but reaping the child ourselves so its rusage is exact."""
    producer = subprocess.Popen(feeder, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert producer.stdout is not None
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: stdin from the producer, stderr to our pipe, exec tracekit
        os.dup2(producer.stdout.fileno(), 0)
        os.dup2(write_end, 2)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.execv(sys.executable, [sys.executable, "-c", _LAUNCHER, TRACEKIT, *args])
    os.close(write_end)
    producer.stdout.close()
    _, status, usage = os.wait4(pid, 0)
    stderr = b""
    while chunk := os.read(read_end, 65536):
        stderr += chunk
    os.close(read_end)
    producer.kill()
    producer.wait()
    stderr, _, peak = stderr.rpartition(b"\nmaxrss=")
    return os.waitstatus_to_exitcode(status), int(peak), stderr


@pytest.mark.parametrize(
    ("name", "feeder", "code"),
    [
        ("ten GB of zeros", ["head", "-c", "10G", "/dev/zero"], b"load.line_too_long"),
        ("one endless line", ["sh", "-c", "tr '\\000' a < /dev/zero"], b"load.line_too_long"),
        ("endless short lines", ["yes", "{}"], b"json"),
    ],
)
def test_endless_streams_end_with_bounded_memory(name: str, feeder: list[str], code: bytes) -> None:
    exit_code, peak_kib, stderr = _measured(feeder, ["verify", "-", "-q"])
    assert exit_code == 2, name
    assert peak_kib < 100 * 1024, (name, peak_kib)
    assert b"Traceback" not in stderr


def _wait_until_blocked_on_fifo(pid: int) -> None:
    """Wait until the process sits in open() of the FIFO, i.e. after start-up, mid-campaign."""
    deadline = time.monotonic() + 60
    wchan = Path(f"/proc/{pid}/wchan")
    while time.monotonic() < deadline:
        if wchan.exists() and "partner" in wchan.read_text():
            return
        time.sleep(0.05)
    pytest.fail("tracekit never reached the FIFO")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGKILL])
def test_interrupted_run_leaves_no_output(tmp_path: Path, signum: int) -> None:
    """Ctrl-C or a kill in the middle of a campaign leaves no output file, not even a partial
    or temporary one. The campaign ends on a FIFO that nobody writes, so the process is provably
    mid-run (blocked after verifying the real traces) when the signal arrives."""
    import shutil

    root = Path(__file__).resolve().parents[2] / "corpus"
    campaign = tmp_path / "campaign"
    campaign.mkdir()
    for i in range(3):
        shutil.copy(root / "valid" / "v2__clean_run.jsonl", campaign / f"t{i}.jsonl")
    fifo = tmp_path / "never-written.jsonl"
    os.mkfifo(fifo)
    out = tmp_path / "out"
    out.mkdir()
    process = subprocess.Popen(
        [TRACEKIT, "verify", str(campaign), str(fifo), "-o", str(out / "report.json"), "-q"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    _wait_until_blocked_on_fifo(process.pid)
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=60)
    if signum == signal.SIGINT:
        assert process.returncode == 130
        assert b"cli.interrupted" in stderr
        assert b"Traceback" not in stderr
    assert list(out.iterdir()) == []


def test_fifos_and_devices_in_a_campaign_folder_are_never_opened(tmp_path: Path) -> None:
    """A FIFO planted in a folder would block an open() forever; walked files must be regular."""
    import shutil

    root = Path(__file__).resolve().parents[2] / "corpus"
    campaign = tmp_path / "campaign"
    campaign.mkdir()
    shutil.copy(root / "valid" / "v2__clean_run.jsonl", campaign / "real.jsonl")
    os.mkfifo(campaign / "trap.jsonl")
    os.mkfifo(campaign / "trap.json")
    os.symlink("/dev/zero", campaign / "zero.jsonl")
    scenario = root / "third_party" / "owasp-harness" / "scenarios" / "goal_hijack" / "basic.yaml"
    scenarios = tmp_path / "scenarios"
    scenarios.mkdir()
    shutil.copy(scenario, scenarios / "basic.yaml")
    os.mkfifo(campaign / "goal_hijack.basic_001.json")  # the trace the suite would pair with it
    commands = [
        ["verify", str(campaign), "-q"],
        ["audit", str(campaign), "-q"],
        ["metamorphic", str(campaign), "-q", "-t", "timestamp_variation"],
        ["check", "--suite", str(scenarios), "--trace-dir", str(campaign)],
    ]
    for args in commands:
        result = subprocess.run([TRACEKIT, *args], capture_output=True, timeout=60, check=False)
        assert result.returncode in (0, 1, 2), args
        assert b"Traceback" not in result.stderr
    listed = subprocess.run([TRACEKIT, "verify", str(campaign), "-q", "-f", "json"], capture_output=True, timeout=60, check=False)
    assert listed.stdout.count(b'"path"') == 1
