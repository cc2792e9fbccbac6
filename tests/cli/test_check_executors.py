"""``check --suite`` and check campaigns on the one executor layer (docs/cli.md, "Executors"):
the same bytes in-process, with ``--jobs 2`` and on a real dask.distributed LocalCluster; Ctrl-C
in the middle of a parallel campaign exits 130 and writes nothing."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import CORPUS, run_cli

UPSTREAM = CORPUS / "third_party" / "owasp-harness"
THIRD = CORPUS / "third_party"
SCENARIO = CORPUS / "findings" / "exfil-email.yaml"
TRACEKIT = str(Path(sys.executable).parent / "tracekit")


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A suite with every kind of entry: evaluated harness pairs, a missing trace, a duplicate
    id, an invalid trace and scenario, and a scenario paired with a folder of third-party logs
    (one of them unreadable)."""
    root = tmp_path_factory.mktemp("suite")
    scenarios, traces = root / "scenarios", root / "traces"
    scenarios.mkdir()
    (traces / "exfil-email").mkdir(parents=True)
    shutil.copy(UPSTREAM / "scenarios/goal_hijack/basic.yaml", scenarios / "a_basic.yaml")
    shutil.copy(UPSTREAM / "examples/traces/denied_tool_call.json", traces / "goal_hijack.basic_001.json")
    shutil.copy(UPSTREAM / "scenarios/goal_hijack/outbound_email_exfiltration_001.yaml", scenarios / "b_outbound.yaml")
    shutil.copy(UPSTREAM / "scenarios/goal_hijack/basic.yaml", scenarios / "c_duplicate.yml")
    shutil.copy(UPSTREAM / "scenarios/memory_isolation/cross_session_leak_001.yaml", scenarios / "d_memory.yaml")
    (traces / "memory_isolation.cross_session_leak_001.json").write_text('{"a": 1, "a": 2}')
    (scenarios / "e_invalid.yaml").write_text("id: x\n")
    shutil.copy(SCENARIO, scenarios / "f_exfil.yaml")
    shutil.copy(THIRD / "otel" / "genai_content.otlp.jsonl", traces / "exfil-email" / "otel.jsonl")
    shutil.copytree(THIRD / "agentdojo", traces / "exfil-email" / "agentdojo")
    (traces / "exfil-email" / "broken.jsonl").write_text("{not json\n")
    return root


def _suite_args(root: Path, fmt: str, out: str) -> tuple[str, ...]:
    return ("check", "--suite", "scenarios", "--trace-dir", "traces", "--strict", "-f", fmt, "--output-dir", out)


def _campaign_args(fmt: str) -> tuple[str, ...]:
    return ("check", str(SCENARIO), str(THIRD), "--strict", "-f", fmt)


def _same(runs: list[subprocess.CompletedProcess[bytes]]) -> None:
    first = runs[0]
    assert first.stdout, first.stderr.decode()
    assert b"Traceback" not in first.stderr
    for other in runs[1:]:
        assert (other.returncode, other.stdout, other.stderr) == (first.returncode, first.stdout, first.stderr)


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.mark.parametrize("fmt", ["json", "table", "sarif"])
def test_suite_is_byte_identical_with_jobs(suite: Path, fmt: str) -> None:
    runs = [
        run_cli(*_suite_args(suite, fmt, f"out-{fmt}-{n}"), *extra, cwd=suite)
        for n, extra in enumerate([(), ("--jobs", "1"), ("--jobs", "2"), ("--jobs", "3")])
    ]
    _same(runs)
    assert runs[0].returncode == 2  # the invalid scenario and trace, and the unreadable log
    outputs = [_files(suite / f"out-{fmt}-{n}") for n in range(4)]
    assert sorted(outputs[0]) == ["goal_hijack.basic_001.json", "summary.json"]
    assert all(found == outputs[0] for found in outputs)


@pytest.mark.parametrize("fmt", ["json", "markdown", "junit"])
def test_campaign_is_byte_identical_with_jobs(fmt: str) -> None:
    runs = [run_cli(*_campaign_args(fmt)), run_cli(*_campaign_args(fmt), "--jobs", "2")]
    _same(runs)
    assert runs[0].returncode == 0


def test_executor_options_are_checked() -> None:
    run = run_cli("check", "-f", "json", str(SCENARIO), str(THIRD / "otel"), "--scheduler", "tcp://127.0.0.1:9")
    assert run.returncode == 2 and b"error[cli.option_needs]" in run.stderr and b"--executor dask" in run.stderr
    run = run_cli("check", "-f", "json", str(SCENARIO), str(THIRD / "otel"), "--jobs", "0")
    assert run.returncode == 2 and b"cli.usage" in run.stderr


@pytest.mark.slow
@pytest.mark.integration
def test_suite_and_campaign_are_byte_identical_on_a_dask_cluster(suite: Path, scheduler: str) -> None:
    dask = ("--executor", "dask", "--scheduler", scheduler)
    one = run_cli(*_suite_args(suite, "json", "dask-one"), cwd=suite)
    cluster = run_cli(*_suite_args(suite, "json", "dask-two"), *dask, cwd=suite)
    _same([one, cluster])
    assert _files(suite / "dask-one") == _files(suite / "dask-two")
    _same([run_cli(*_campaign_args("json")), run_cli(*_campaign_args("json"), *dask)])


def _descendants(pid: int) -> list[int]:
    found: list[int] = []
    todo = [pid]
    while todo:
        parent = todo.pop()
        for task in Path(f"/proc/{parent}/task").glob("*/children"):
            children = [int(c) for c in task.read_text().split()]
            found += children
            todo += children
    return found


def _wait_until_a_worker_blocks_on_fifo(pid: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for child in _descendants(pid):
            wchan = Path(f"/proc/{child}/wchan")
            try:
                if "partner" in wchan.read_text():  # open() of a FIFO with no writer
                    return
            except OSError:
                continue
        time.sleep(0.05)
    pytest.fail("no worker reached the FIFO")


def test_interrupted_parallel_campaign_exits_130_and_writes_nothing(tmp_path: Path) -> None:
    """The campaign ends on a FIFO nobody writes, named on the command line: a worker blocks
    opening it, so the run is provably mid-campaign when Ctrl-C arrives."""
    fifo = tmp_path / "never-written.jsonl"
    os.mkfifo(fifo)
    out = tmp_path / "out"
    out.mkdir()
    process = subprocess.Popen(
        [TRACEKIT, "check", str(SCENARIO), str(THIRD / "otel"), str(fifo), "--jobs", "2",
         "-o", str(out / "report.json"), "-q"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        _wait_until_a_worker_blocks_on_fifo(process.pid)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130
    assert b"cli.interrupted" in stderr and b"Traceback" not in stderr
    assert list(out.iterdir()) == []


def test_suite_memory_does_not_grow_with_the_suite(tmp_path: Path) -> None:
    """Entries are spooled as they arrive, and JSON and --output-dir are written from the spool:
    200 scenarios whose results quote 40 KB each (8 MB of output) are judged while Python holds
    a small fraction of that (bytes allocated and held, counted by tracemalloc, not seconds).
    Each trace is read in chunks, never into a buffer of the 16 MiB cap. Before: 35 MB."""
    import json
    import tracemalloc

    from typer.testing import CliRunner

    from tracekit.cli.app import app

    scenarios, traces, out = tmp_path / "s", tmp_path / "t", tmp_path / "o"
    scenarios.mkdir()
    traces.mkdir()
    basic = (UPSTREAM / "scenarios/goal_hijack/basic.yaml").read_text()
    trace = json.dumps({"tool_calls": [{"name": "mcp/" + "a" * 40_000}]})
    count = 200
    for n in range(count):
        ident = f"goal_hijack.basic_{n:03d}"
        (scenarios / f"{n:03d}.yaml").write_text(basic.replace("id: goal_hijack.basic_001", f"id: {ident}"))
        (traces / f"{ident}.json").write_text(trace)
    args = ["check", "--suite", str(scenarios), "--trace-dir", str(traces), "--output-dir", str(out),
            "-o", str(tmp_path / "suite.json"), "--strict", "-q", "-f", "json"]
    warm = CliRunner().invoke(app, ["check", "--suite", str(scenarios / "000.yaml"), "--trace-dir", str(traces), "-q"])
    assert warm.exit_code == 0, warm.stderr  # imports and caches are not the suite's memory
    tracemalloc.start()
    try:
        result = CliRunner().invoke(app, args, catch_exceptions=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.exit_code == 0, result.stderr
    written = (tmp_path / "suite.json").stat().st_size
    document = json.loads((tmp_path / "suite.json").read_text())
    assert document["counts"]["total"] == count and len(list(out.iterdir())) == count + 1
    assert written > count * 40_000
    assert peak < written / 2, (peak, written)
