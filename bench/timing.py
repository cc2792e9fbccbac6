"""Timing whole processes for the benchmarks (docs/performance.md): wall time and peak RSS of
one child, the whole machine's busy share, medians. Shared by bench/run.py, bench/bundle_bench.py,
bench/perf_round2.py and bench/goals_startup.py, so that no benchmark imports another one.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TASKSET = shutil.which("taskset")
TIME = "/usr/bin/time" if Path("/usr/bin/time").exists() else None
TRACEKIT = str(Path(sys.executable).parent / "tracekit")
"""The console script of the venv running the benchmark."""


def run_process(argv: list[str], cpu: int | None = None) -> tuple[float, float, int]:
    """Run ``argv``; return (wall seconds, peak RSS MiB, exit status).

    Peak RSS comes from ``/usr/bin/time -f %M``, a small process that forks the command: Linux
    charges a child the peak RSS of the process it was forked from, so a child forked from this
    (large) benchmark would report this benchmark's size. It is the peak of the command and of
    the children it waited for (the --jobs workers). Without /usr/bin/time, ``os.wait4`` is used
    and the figure is an upper bound. Pinning goes through ``taskset``, which execs in place.
    """
    if cpu is not None and TASKSET:
        argv = [TASKSET, "-c", str(cpu), *argv]
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss_file:
        if TIME:
            argv = [TIME, "-f", "%M", "-o", rss_file.name, *argv]
        started = time.perf_counter()
        child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 cwd=ROOT)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)
        peak_kib = float(usage.ru_maxrss)
        if TIME:
            text = rss_file.read().strip().splitlines()
            peak_kib = float(text[-1]) if text and text[-1].isdigit() else peak_kib
    return wall, peak_kib / 1024, child.returncode


def run_timed(argv: list[str], cpu: int | None = None) -> tuple[float, float, int]:
    """Run ``argv`` (pinned to ``cpu`` through ``taskset``); return (wall seconds, CPU seconds
    of the child and the children it waited for, exit status). On a machine other work keeps
    busy, CPU seconds move much less than wall time."""
    if cpu is not None and TASKSET:
        argv = [TASKSET, "-c", str(cpu), *argv]
    started = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    return wall, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def cpu_times() -> tuple[int, int] | None:
    """(busy, total) jiffies of the whole machine, from /proc/stat (Linux only)."""
    try:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def busy_share(before: tuple[int, int], after: tuple[int, int] | None) -> float:
    """Share of all CPUs busy between two readings (a --jobs 2 run alone would be near 1.0;
    anything another process used is included)."""
    if after is None or after[1] == before[1]:
        return 0.0
    return round((after[0] - before[0]) / (after[1] - before[1]), 3)


def stats(samples: list[float]) -> dict[str, Any]:
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples),
            "samples": samples}


def one_cpu() -> int | None:
    """The CPU single-core runs are pinned to (the last one this process may use)."""
    return max(os.sched_getaffinity(0))


def compile_bytecode() -> None:
    """Compile tracekit/ to bytecode once: with PYTHONDONTWRITEBYTECODE set (as on the machine
    these benchmarks run on) every process would otherwise compile every module it imports,
    which an installed copy never does."""
    import compileall

    compileall.compile_dir(str(ROOT / "tracekit"), quiet=1)
