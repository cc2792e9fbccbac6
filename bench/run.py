#!/usr/bin/env python3
"""``make bench``: tracekit against the straightforward baseline, side by side in one run.

What it does, in order (docs/performance.md explains the method and the targets):

1. Generates, with the corpus builders (bench/tracegen.py), a realistic ~16 MiB / 10,000-event
   v2 trace and a 100-trace campaign under bench/data/ (kept between runs; ``--regenerate``).
2. Checks that the BASELINE (bench/reference.py: stdlib json, an iterative bounds walk,
   ``json.dumps`` canonical form, hashlib) and tracekit agree on every benchmark input: the
   trace, every campaign trace and tampered copies of the trace (verdict and root hash).
3. Measures, several repetitions each, interleaved so both sides see the same noise:
   (a) the baseline in-process and (b) tracekit's library API on the 16 MiB trace, one core;
   (a') the baseline and (c) ``tracekit verify`` as whole processes, one core;
   (d) the campaign with ``tracekit verify --jobs 1`` and ``--jobs 2``;
   (e) the peak RSS of every process (``os.wait4`` per child: the child and the workers it
   waited for); (f) ``tracekit --help`` start-up.
4. Prints a table of medians, min-max and the ratios measured in this run, and writes
   bench/results.json. Absolute times on a shared machine are noise; the ratios are the result.
5. Prints the "worst case per command" table (bench/worst_case.py: time and peak RSS of every
   command on the worst inputs within the loader's limits; ``--no-worst-case`` skips it), then
   what a unit of redaction's work budget costs over costly shapes of text (bench/redact_cost.py).

Exit status: 0 when the baseline and tracekit agree (whatever the targets), 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import reference
from inputs import CAMPAIGN, CAMPAIGN_TRACES, ROOT, TAMPERED, TRACE, describe, generate
from timing import TRACEKIT, busy_share, cpu_times, one_cpu, run_process, stats

from tracekit import __version__, verify_file

RESULTS = HERE / "results.json"
TARGETS = {
    "inprocess_speedup": 3.0,
    "process_speedup": 2.0,
    "jobs2_speedup": 1.7,
    "peak_rss_mib": 100.0,
    "help_seconds": 0.25,
}


# ---------------------------------------------------------------------------- agreement


def agreement() -> list[dict[str, Any]]:
    """Baseline and tracekit on every benchmark input: same verdict, same root hash."""
    inputs = [TRACE, *sorted(CAMPAIGN.glob("*.jsonl")), *sorted(TAMPERED.glob("*.jsonl"))]
    rows = []
    for path in inputs:
        ref = reference.verify_path(str(path))
        report = verify_file(path)
        intact = report.exit_code in (0, 1)
        same = ref.ok == intact and (not intact or ref.root == report.trace_id)
        rows.append({"input": str(path.relative_to(HERE)), "baseline_intact": ref.ok,
                     "tracekit_exit": report.exit_code, "agree": same})
    return rows


# ---------------------------------------------------------------------------- timing


def _processes(reps: int, cpu: int | None, rss: dict[str, float]) -> dict[str, Any]:
    """(a') and (c): whole processes, one core, interleaved; (e) the peak RSS of each."""
    py, trace = sys.executable, str(TRACE)
    ref_proc: list[float] = []
    tk_proc: list[float] = []
    for _ in range(reps):
        wall, peak, rc = run_process([py, str(HERE / "reference.py"), trace], cpu)
        assert rc == 0
        ref_proc.append(wall)
        rss["baseline_process"] = max(rss.get("baseline_process", 0.0), peak)
        wall, peak, rc = run_process([TRACEKIT, "verify", "--quiet", trace], cpu)
        assert rc == 0
        tk_proc.append(wall)
        rss["tracekit_verify_process"] = max(rss.get("tracekit_verify_process", 0.0), peak)
    library = f"from tracekit import verify_file; assert verify_file({trace!r}).intact"
    _, rss["tracekit_library_child"], _ = run_process([py, "-c", library], cpu)
    _, rss["python_import_tracekit"], _ = run_process([py, "-c", "import tracekit"], cpu)
    return {"baseline_process": stats(ref_proc), "tracekit_verify_process": stats(tk_proc)}


def _inprocess(reps: int, cpu: int | None) -> dict[str, Any]:
    """(a) and (b): in-process, one core, interleaved (after the child processes, so that they
    are spawned from a small parent)."""
    trace = str(TRACE)
    ref_in: list[float] = []
    tk_in: list[float] = []
    reference.verify_path(trace)
    verify_file(trace)
    previous = os.sched_getaffinity(0)
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})
    try:
        for _ in range(reps):
            started = time.perf_counter()
            assert reference.verify_path(trace).ok
            ref_in.append(time.perf_counter() - started)
            started = time.perf_counter()
            assert verify_file(trace).intact
            tk_in.append(time.perf_counter() - started)
    finally:
        os.sched_setaffinity(0, previous)
    return {"baseline_inprocess": stats(ref_in), "tracekit_inprocess": stats(tk_in)}


def _campaign(reps: int, rss: dict[str, float]) -> dict[str, Any]:
    """(d): the campaign, all cores available, interleaved; how busy the machine was meanwhile."""
    jobs: dict[int, list[float]] = {1: [], 2: []}
    busy: list[float] = []
    for _ in range(max(3, reps // 2)):
        for n in (1, 2):
            before = cpu_times()
            wall, peak, rc = run_process([TRACEKIT, "verify", "--quiet", "--jobs", str(n), str(CAMPAIGN)])
            assert rc == 0
            jobs[n].append(wall)
            rss[f"campaign_jobs{n}"] = max(rss.get(f"campaign_jobs{n}", 0.0), peak)
            if n == 2 and before is not None:
                busy.append(busy_share(before, cpu_times()))
    return {"campaign_jobs1": stats(jobs[1]), "campaign_jobs2": stats(jobs[2]),
            "campaign_jobs2_machine_busy_share": busy}


def _startup(reps: int) -> dict[str, Any]:
    """(f): ``tracekit --help`` against ``python -c pass``."""
    help_times = []
    python_times = []
    for _ in range(max(5, reps)):
        help_times.append(run_process([TRACEKIT, "--help"])[0])
        python_times.append(run_process([sys.executable, "-c", "pass"])[0])
    return {"tracekit_help": stats(help_times), "python_startup": stats(python_times)}


def measure(reps: int, cpu: int | None) -> dict[str, Any]:
    rss: dict[str, float] = {}
    out = _processes(reps, cpu, rss)
    out |= _inprocess(reps, cpu)
    out |= _campaign(reps, rss)
    out |= _startup(reps)
    out["peak_rss_mib"] = {k: round(v, 1) for k, v in rss.items()}
    return out


# ---------------------------------------------------------------------------- report


def ratios(m: dict[str, Any]) -> dict[str, float]:
    def med(key: str) -> float:
        return float(m[key]["median"])

    return {
        "inprocess_speedup": med("baseline_inprocess") / med("tracekit_inprocess"),
        "process_speedup": med("baseline_process") / med("tracekit_verify_process"),
        "jobs2_speedup": med("campaign_jobs1") / med("campaign_jobs2"),
    }


def verdicts(m: dict[str, Any], r: dict[str, float]) -> dict[str, dict[str, Any]]:
    single = max(m["peak_rss_mib"]["tracekit_verify_process"],
                 m["peak_rss_mib"]["tracekit_library_child"])
    measured = {**r, "peak_rss_mib": single, "help_seconds": m["tracekit_help"]["median"]}
    out = {}
    for name, target in TARGETS.items():
        value = measured[name]
        met = value < target if name in ("peak_rss_mib", "help_seconds") else value >= target
        out[name] = {"measured": round(value, 3), "target": target, "met": met}
    return out


def table(m: dict[str, Any], r: dict[str, float], v: dict[str, Any], info: dict[str, Any]) -> str:
    rows = [
        ("(a)  baseline, in-process, 1 core", "baseline_inprocess", "-"),
        ("(b)  tracekit verify_file(), in-process, 1 core", "tracekit_inprocess", "-"),
        ("(a') baseline, whole process, 1 core", "baseline_process", "baseline_process"),
        ("(c)  tracekit verify, whole process, 1 core", "tracekit_verify_process",
         "tracekit_verify_process"),
        (f"(d)  campaign, {CAMPAIGN_TRACES} traces, --jobs 1", "campaign_jobs1", "campaign_jobs1"),
        (f"(d)  campaign, {CAMPAIGN_TRACES} traces, --jobs 2", "campaign_jobs2", "campaign_jobs2"),
        ("(f)  tracekit --help", "tracekit_help", "-"),
        ("     python -c pass (for scale)", "python_startup", "-"),
    ]
    rss = m["peak_rss_mib"]
    busy = m["campaign_jobs2_machine_busy_share"]
    lines = [
        (f"trace: {info['trace']['mib']} MiB, {info['trace']['events']} events; campaign: "
         f"{CAMPAIGN_TRACES} traces, {info['campaign']['mib_each']} MiB each"),
        (f"machine busy during --jobs 2 runs (both CPUs, all processes): "
         f"{', '.join(f'{b:.0%}' for b in busy) or 'n/a'}"),
        "",
        f"{'measurement':52s} {'median s':>9s} {'min s':>8s} {'max s':>8s} {'peak RSS MiB':>13s}",
        "-" * 94,
    ]
    for label, key, rss_key in rows:
        s = m[key]
        peak = f"{rss[rss_key]:.1f}" if rss_key in rss else "-"
        lines.append(f"{label:52s} {s['median']:9.3f} {s['min']:8.3f} {s['max']:8.3f} {peak:>13s}")
    lines.append(f"{'(e)  tracekit library in a child process (16 MiB trace)':52s} "
                 f"{'':9s} {'':8s} {'':8s} {rss['tracekit_library_child']:13.1f}")
    lines.append(f"{'     python -c import tracekit (for scale)':52s} "
                 f"{'':9s} {'':8s} {'':8s} {rss['python_import_tracekit']:13.1f}")
    lines += ["", (f"{'target (ratios of medians from this run)':52s} {'measured':>9s} "
                   f"{'target':>8s}  met"), "-" * 76]
    names = {
        "inprocess_speedup": "in-process speed-up, baseline / tracekit",
        "process_speedup": "whole-process speed-up, baseline / tracekit",
        "jobs2_speedup": "campaign speed-up, --jobs 1 / --jobs 2",
        "peak_rss_mib": "peak RSS of one 16 MiB verification, MiB",
        "help_seconds": "tracekit --help, seconds",
    }
    for name, verdict in v.items():
        op = "<" if name in ("peak_rss_mib", "help_seconds") else ">="
        lines.append(f"{names[name]:52s} {verdict['measured']:9.3f} {op:>3s}{verdict['target']:5g}"
                     f"  {'yes' if verdict['met'] else 'NO'}")
    return "\n".join(lines)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="repetitions per measurement")
    parser.add_argument("--campaign-mib", type=float, default=2.0, help="size of a campaign trace")
    parser.add_argument("--regenerate", action="store_true", help="rebuild bench/data")
    parser.add_argument("--no-pin", action="store_true", help="do not pin 1-core runs to a CPU")
    parser.add_argument("--no-store", action="store_true", help="skip bench/store_bench.py")
    parser.add_argument("--no-worst-case", action="store_true",
                        help="skip the worst-case table (bench/worst_case.py)")
    parser.add_argument("--no-round2", action="store_true", help="skip bench/perf_round2.py")
    parser.add_argument("--no-inspect", action="store_true",
                        help="skip bench/inspect_reader.py (it makes a venv with inspect-ai once)")
    parser.add_argument("--no-scaling", action="store_true", help="skip bench/scaling.py")
    return parser.parse_args()


def _others(args: argparse.Namespace) -> None:
    """The benchmarks that run after the table, each in its own process."""
    import bundle_bench

    print("\n" + bundle_bench.report(args.reps))  # sealed bundles: seal/verify speed, growth
    if not args.no_round2:  # verify against the baseline again, one trace on two cores, commands
        print("\n== performance, round 2 (bench/perf_round2.py)", flush=True)
        subprocess.run([sys.executable, str(HERE / "perf_round2.py"), "--reps", str(args.reps),
                        *(["--no-pin"] if args.no_pin else [])], check=False)
    if not args.no_inspect:  # reading an Inspect AI log: tracekit against read_eval_log
        print("\n== Inspect AI reader against inspect_ai's own (bench/inspect_reader.py)", flush=True)
        subprocess.run([sys.executable, str(HERE / "inspect_reader.py"), "--reps", str(args.reps)],
                       check=False)
    if not args.no_scaling:  # time and memory per MiB, 1 MiB to the bounds, every format
        print("\n== importers and bundles, per MiB (bench/scaling.py)", flush=True)
        subprocess.run([sys.executable, str(HERE / "scaling.py")], check=False)


def _machine(cpu: int | None, load_before: tuple[float, float, float]) -> dict[str, Any]:
    machine: dict[str, Any] = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "pinned_cpu": cpu,
        "loadavg_before": load_before,
        "loadavg_after": os.getloadavg(),
    }
    try:
        import msgspec

        machine["msgspec"] = msgspec.__version__
    except ImportError:  # pragma: no cover
        pass
    return machine


def main() -> int:
    args = _arguments()
    generate(args.campaign_mib, args.regenerate)
    rows = agreement()
    disagreements = [row for row in rows if not row["agree"]]
    print(f"agreement: baseline and tracekit agree on {len(rows) - len(disagreements)} of "
          f"{len(rows)} inputs", file=sys.stderr)
    cpu = None if args.no_pin else one_cpu()
    load_before = os.getloadavg()
    m = measure(args.reps, cpu)
    r = ratios(m)
    v = verdicts(m, r)
    info = {
        "trace": describe(TRACE),
        "campaign": {"traces": CAMPAIGN_TRACES, "mib_each": args.campaign_mib,
                     "bytes": sum(p.stat().st_size for p in CAMPAIGN.glob("*.jsonl"))},
    }
    print(table(m, r, v, info))
    _others(args)
    result = {"tracekit_version": __version__, "machine": _machine(cpu, load_before),
              "reps": args.reps, "inputs": info, "agreement": rows, "measurements": m,
              "ratios": {k: round(x, 3) for k, x in r.items()}, "targets": v}
    if not args.no_worst_case:
        import worst_case

        result["worst_case"] = worst_case.main(TRACE)
        print("\n== what a unit of redaction's work budget costs (bench/redact_cost.py)", flush=True)
        import redact_cost

        result["redact_ns_per_unit"] = round(redact_cost.main(), 1)
    RESULTS.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    print(f"\nwrote {RESULTS.relative_to(ROOT)}", file=sys.stderr)
    if not args.no_store:  # the campaign store: first run, unchanged re-run, exact diff
        print("\n== campaign store (bench/store_bench.py)", flush=True)
        if subprocess.run([sys.executable, str(HERE / "store_bench.py")], check=False).returncode:
            return 1
    for row in disagreements:
        print(f"DISAGREEMENT: {row}", file=sys.stderr)
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
