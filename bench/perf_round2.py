#!/usr/bin/env python3
"""Performance, round 2 (docs/performance.md): verify against the baseline, one trace on two cores,
and every other command at verify's pace, each as a ratio measured in this run with its target.

Run by ``make bench`` after bench/run.py (or alone: ``python bench/perf_round2.py``). On the
16 MiB benchmark trace (bench/data, made by bench/run.py), interleaved so that both sides of a
ratio share the machine's noise:

1. the baseline (bench/reference.py) against ``tracekit.verify_file``, in-process, one CPU, and
   against ``tracekit verify`` as whole processes, one CPU (targets 3x and 2x);
2. one trace with 2 processes against 1: ``tracekit.formats.agentguard.verify_parallel.verify_file(jobs=2)``
   against the serial verifier, in-process and as a whole ``python -c`` process, with how busy
   the machine was meanwhile (target 1.6x); as whole processes, ``tracekit verify --jobs 1``
   against ``--jobs 2`` on the one trace (the CLI hands a single file's ``--jobs`` to it);
3. ``show``, ``replay``, ``replayability`` and ``audit`` as whole processes: time as a ratio to
   ``verify``'s and peak RSS (targets 1.5x and 100 MiB);
4. start-up: ``tracekit verify`` of a 14-event trace and ``python -c pass``.

Writes bench/data/results-round2.json (git-ignored). Exit status 0 whatever the targets (they are reported).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import reference
import timing
from inputs import ROOT, SMALL, TRACE, generate

from tracekit import verify_file
from tracekit.formats.agentguard.verify_parallel import verify_file as verify_parallel

RESULTS = HERE / "data" / "results-round2.json"
COMMANDS = {
    "verify": ["verify", "--quiet"],
    "show": ["show"],
    "replay": ["replay", "--quiet"],
    "replayability": ["replayability"],
    "audit": ["audit", "--quiet"],
}
TARGETS = {
    "inprocess_speedup": 3.0,
    "process_speedup": 2.0,
    "single_trace_jobs2_speedup": 1.6,
    "command_time_ratio": 1.5,
    "command_peak_rss_mib": 100.0,
}


def _median(samples: list[float]) -> float:
    return statistics.median(samples)


def _pinned(cpu: int | None) -> Any:
    class Pin:
        def __enter__(self) -> None:
            self.previous = os.sched_getaffinity(0)
            if cpu is not None:
                os.sched_setaffinity(0, {cpu})

        def __exit__(self, *_: object) -> None:
            os.sched_setaffinity(0, self.previous)

    return Pin()


def against_baseline(reps: int, cpu: int | None) -> dict[str, Any]:
    trace = str(TRACE)
    exe = str(Path(sys.executable).parent / "tracekit")
    out: dict[str, list[float]] = {k: [] for k in ("base_in", "tk_in", "base_proc", "tk_proc")}
    for _ in range(reps):
        out["base_proc"].append(timing.run_process([sys.executable, str(HERE / "reference.py"), trace], cpu)[0])
        out["tk_proc"].append(timing.run_process([exe, "verify", "--quiet", trace], cpu)[0])
    reference.verify_path(trace)
    verify_file(trace)
    with _pinned(cpu):
        for _ in range(reps):
            started = time.perf_counter()
            assert reference.verify_path(trace).ok
            out["base_in"].append(time.perf_counter() - started)
            started = time.perf_counter()
            assert verify_file(trace).intact
            out["tk_in"].append(time.perf_counter() - started)
    return out


def single_trace_jobs(reps: int) -> dict[str, Any]:
    trace = str(TRACE)
    out: dict[str, list[float]] = {k: [] for k in (
        "in_j1", "in_j2", "proc_j1", "proc_j2", "busy_in", "busy_proc", "cpu_j1", "cpu_j2_parent",
        "cpu_j2_workers")}
    exe = str(Path(sys.executable).parent / "tracekit")
    verify_parallel(trace, jobs=2)
    out["busy_idle"] = []
    for _ in range(3):  # the machine without us: how much of a second CPU is there to take?
        before = timing.cpu_times()
        time.sleep(0.5)
        if before is not None:
            out["busy_idle"].append(timing.busy_share(before, timing.cpu_times()))
    for _ in range(reps):
        before = timing.cpu_times()
        started, cpu = time.perf_counter(), time.process_time()
        assert verify_file(trace).intact
        out["in_j1"].append(time.perf_counter() - started)
        out["cpu_j1"].append(time.process_time() - cpu)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        started, cpu = time.perf_counter(), time.process_time()
        assert verify_parallel(trace, jobs=2).intact
        out["in_j2"].append(time.perf_counter() - started)
        out["cpu_j2_parent"].append(time.process_time() - cpu)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        out["cpu_j2_workers"].append(after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime)
        if before is not None:
            out["busy_in"].append(timing.busy_share(before, timing.cpu_times()))
        before = timing.cpu_times()
        for jobs in (1, 2):
            wall, _, rc = timing.run_process([exe, "verify", "--quiet", "--jobs", str(jobs), trace])
            assert rc == 0
            out[f"proc_j{jobs}"].append(wall)
        if before is not None:
            out["busy_proc"].append(timing.busy_share(before, timing.cpu_times()))
    return out


def commands(reps: int) -> dict[str, Any]:
    exe = str(Path(sys.executable).parent / "tracekit")
    trace = str(TRACE)
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    rss: dict[str, float] = {}
    status: dict[str, int] = {}
    for _ in range(reps):
        for name, argv in COMMANDS.items():
            wall, peak, rc = timing.run_process([exe, *argv, trace])
            times[name].append(wall)
            rss[name] = max(rss.get(name, 0.0), peak)
            status[name] = rc
    return {"times": times, "peak_rss_mib": rss, "exit": status}


def startup(reps: int) -> dict[str, list[float]]:
    exe = str(Path(sys.executable).parent / "tracekit")
    out: dict[str, list[float]] = {"verify_small": [], "python": []}
    for _ in range(reps):
        out["verify_small"].append(timing.run_process([exe, "verify", "--quiet", str(SMALL)])[0])
        out["python"].append(timing.run_process([sys.executable, "-c", "pass"])[0])
    return out


def _row(label: str, value: float, target: float, lower_is_better: bool = False, unit: str = "x") -> str:
    met = value <= target if lower_is_better else value >= target
    op = "<=" if lower_is_better else ">="
    return f"{label:58s} {value:8.2f}{unit:1s} {op} {target:g}{unit:1s}  {'yes' if met else 'NO'}"


def report(base: dict[str, Any], jobs: dict[str, Any], cmds: dict[str, Any], start: dict[str, Any],
           load: tuple[float, float]) -> tuple[str, dict[str, Any]]:
    med = {k: _median(v) for k, v in base.items()}
    ratios = {
        "inprocess_speedup": med["base_in"] / med["tk_in"],
        "process_speedup": med["base_proc"] / med["tk_proc"],
        "single_trace_jobs2_inprocess": _median(jobs["in_j1"]) / _median(jobs["in_j2"]),
        "single_trace_jobs2_process": _median(jobs["proc_j1"]) / _median(jobs["proc_j2"]),
    }
    verify_time = _median(cmds["times"]["verify"])
    lines = [
        f"machine load average (1 min) before / after: {load[0]:.2f} / {load[1]:.2f} on "
        f"{os.cpu_count()} CPUs",
        "",
        f"{'measurement (16 MiB trace)':58s} {'median s':>9s} {'min s':>8s} {'max s':>8s}",
        "-" * 86,
    ]

    def timed(label: str, samples: list[float]) -> None:
        lines.append(f"{label:58s} {_median(samples):9.3f} {min(samples):8.3f} {max(samples):8.3f}")

    timed("baseline, in-process, 1 CPU", base["base_in"])
    timed("tracekit verify_file(), in-process, 1 CPU", base["tk_in"])
    timed("baseline, whole process, 1 CPU", base["base_proc"])
    timed("tracekit verify, whole process, 1 CPU", base["tk_proc"])
    timed("one trace, serial verify_file() (jobs 1), in-process", jobs["in_j1"])
    timed("one trace, verify_parallel.verify_file(jobs=2), in-process", jobs["in_j2"])
    timed("one trace, tracekit verify --jobs 1, whole process", jobs["proc_j1"])
    timed("one trace, tracekit verify --jobs 2, whole process", jobs["proc_j2"])
    for name in COMMANDS:
        timed(f"tracekit {name}, whole process (exit {cmds['exit'][name]})", cmds["times"][name])
    timed("start-up: tracekit verify of a 14-event trace", start["verify_small"])
    timed("start-up: python -c pass", start["python"])
    lines.append(
        f"CPU seconds (medians), one trace: serial {_median(jobs['cpu_j1']):.3f}; jobs 2: parent "
        f"{_median(jobs['cpu_j2_parent']):.3f} + worker {_median(jobs['cpu_j2_workers']):.3f} "
        f"(wall with two free CPUs >= the larger of the two)")
    lines.append("machine busy while this benchmark slept (other processes only; 50% = one CPU "
                 "taken): " + ", ".join(f"{b:.0%}" for b in jobs["busy_idle"]))
    lines.append("machine busy during the jobs runs (both CPUs, all processes): in-process "
                 + ", ".join(f"{b:.0%}" for b in jobs["busy_in"]) + "; whole process "
                 + ", ".join(f"{b:.0%}" for b in jobs["busy_proc"]))
    lines += ["", f"{'target (ratios of medians from this run)':58s} {'measured':>9s}   target  met",
              "-" * 86]
    lines.append(_row("in-process verify speed-up, baseline / tracekit", ratios["inprocess_speedup"], 3.0))
    lines.append(_row("whole-process verify speed-up, baseline / tracekit", ratios["process_speedup"], 2.0))
    lines.append(_row("one trace --jobs 2 vs 1, in-process (verify_parallel)",
                      ratios["single_trace_jobs2_inprocess"], 1.6))
    lines.append(_row("one trace --jobs 2 vs 1, whole process (tracekit verify)",
                      ratios["single_trace_jobs2_process"], 1.6))
    for name in COMMANDS:
        if name == "verify":
            continue
        ratio = _median(cmds["times"][name]) / verify_time
        ratios[f"{name}_time_ratio"] = ratio
        lines.append(_row(f"tracekit {name} time / tracekit verify time", ratio, 1.5, lower_is_better=True))
    for name in COMMANDS:
        peak = cmds["peak_rss_mib"][name]
        lines.append(_row(f"tracekit {name} peak RSS, MiB", peak, 100.0, lower_is_better=True, unit=" "))
    return "\n".join(lines), {k: round(v, 3) for k, v in ratios.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="repetitions per measurement")
    parser.add_argument("--no-pin", action="store_true", help="do not pin 1-CPU runs")
    args = parser.parse_args()
    generate(2.0, False)
    # Measure the tool as installed: with bytecode. Without it (a fresh clone run with
    # PYTHONDONTWRITEBYTECODE) every process compiles the modules it imports, which charges the
    # commands that import more (audit, replay) 0.1-0.2 s that an installed copy never pays.
    import compileall

    compileall.compile_dir(str(ROOT / "tracekit"), quiet=1)
    cpu = None if args.no_pin else max(os.sched_getaffinity(0))
    load_before = os.getloadavg()[0]
    base = against_baseline(args.reps, cpu)
    jobs = single_trace_jobs(args.reps)
    cmds = commands(args.reps)
    start = startup(args.reps)
    load_after = os.getloadavg()[0]
    text, ratios = report(base, jobs, cmds, start, (load_before, load_after))
    print(text)
    RESULTS.write_text(json.dumps({
        "reps": args.reps, "pinned_cpu": cpu, "loadavg": [load_before, load_after],
        "baseline": base, "single_trace_jobs": jobs, "commands": cmds, "startup": start,
        "ratios": ratios, "targets": TARGETS,
    }, indent=2, sort_keys=True) + "\n")
    print(f"\nwrote {RESULTS.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
