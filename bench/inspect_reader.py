#!/usr/bin/env python3
"""tracekit's Inspect AI reader against Inspect's own ``read_eval_log`` (docs/performance.md,
"Faster than the tools' own readers").

inspect-ai is never a tracekit dependency: this script makes a throwaway virtual environment
under bench/data/inspect-venv (git-ignored) with ``inspect-ai==0.3.285``, the version the real
corpus logs were written with (corpus/third_party/inspect/make/pip-freeze.txt), and runs Inspect
only there. Steps:

1. the log: Inspect itself reads the real corpus log (corpus/third_party/inspect/
   tracekit_corpus.eval: tool calls, parallel calls, tool errors, attachments) and writes, with
   its own writer, a log of N samples (default 1,000) made by cycling through its 9 samples under
   new ids, once as ``.eval`` and once as ``.json`` (bench/data/inspect-N.{eval,json});
2. each reader in its own fresh process, interleaved (Inspect, tracekit, Inspect, ...), per file:
   the read time (imports excluded), the whole-process wall time, the peak RSS of the process and
   the RSS the imports alone took; both readers must find N samples;
3. the ratios of medians with their targets: Inspect's read time / tracekit's >= 3, tracekit's
   peak RSS / Inspect's <= 0.5.

Writes bench/data/results-inspect.json. Exit status 0 whatever the targets (they are reported).
Usage: python bench/inspect_reader.py [--samples N] [--reps R]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / "data"
VENV = DATA / "inspect-venv"
INSPECT_VERSION = "0.3.285"
REAL = ROOT / "corpus" / "third_party" / "inspect" / "tracekit_corpus.eval"
RESULTS = DATA / "results-inspect.json"
TARGETS = {"time_speedup": 3.0, "peak_rss_fraction": 0.5}

MAKE_LOG = """
import sys
from inspect_ai.log import read_eval_log, write_eval_log
real, count, out_eval, out_json = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
log = read_eval_log(real)
base = log.samples
samples = []
for i in range(count):
    sample = base[i % len(base)]
    samples.append(sample.model_copy(update={"id": f"{sample.id}_{i}"}, deep=True))
log = log.model_copy(update={"samples": samples})
log.eval.dataset.samples = count
write_eval_log(log, out_eval, format="eval")
write_eval_log(log, out_json, format="json")
print(sum(len(s.attachments) for s in samples), "attachments,",
      sum(len(m.tool_calls or []) for s in samples for m in s.messages if m.role == "assistant"),
      "tool calls")
"""

HWM = """
def hwm():  # this process's peak RSS in MiB (VmHWM starts afresh at exec; ru_maxrss does not)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0
"""
"""Source of ``hwm()`` for the measured child processes (also bench/scaling.py's)."""

READ = """
import json, sys, time
{hwm}
started = time.perf_counter()
{imports}
imported = time.perf_counter()
base = hwm()
before = time.perf_counter()
{read}
elapsed = time.perf_counter() - before
peak = hwm()
print(json.dumps({{"read_s": elapsed, "import_s": imported - started, "count": count,
                  "peak_rss_mib": peak, "import_rss_mib": base}}))
"""
READERS = {
    "inspect": READ.format(
        hwm=HWM,
        imports="from inspect_ai.log import read_eval_log",
        read="count = len(read_eval_log(sys.argv[1]).samples or [])",
    ),
    "tracekit": READ.format(
        hwm=HWM,
        imports="from tracekit.formats.base import FormatLimits\n"
        "from tracekit.formats.reading import load_file",
        # The .json log of 1,000 samples is one 55 MB document: past the default 16 MiB bound
        # of one JSON document (docs/formats.md, "Bounds"), so the bound is raised for it.
        read="count = len(load_file(sys.argv[1], limits=FormatLimits(member_bytes=64 << 20)).episodes)",
    ),
}


def _python(reader: str) -> str:
    return str(VENV / "bin" / "python") if reader == "inspect" else sys.executable


def ensure_venv() -> None:
    """The throwaway environment with inspect-ai (made once; delete bench/data to redo it)."""
    if (VENV / "bin" / "python").exists():
        return
    print(f"making {VENV.relative_to(ROOT)} with inspect-ai=={INSPECT_VERSION} ...", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    subprocess.run(
        [str(VENV / "bin" / "pip"), "install", "-q", f"inspect-ai=={INSPECT_VERSION}"], check=True
    )


def ensure_logs(count: int) -> tuple[Path, Path]:
    out_eval, out_json = DATA / f"inspect-{count}.eval", DATA / f"inspect-{count}.json"
    if not (out_eval.exists() and out_json.exists()):
        env = {**os.environ, "INSPECT_DISPLAY": "plain", "NO_COLOR": "1"}
        made = subprocess.run(
            [_python("inspect"), "-c", MAKE_LOG, str(REAL), str(count), str(out_eval), str(out_json)],
            check=True, capture_output=True, text=True, env=env,
        )
        print(f"wrote {out_eval.name} and {out_json.name}: {made.stdout.strip()}", file=sys.stderr)
    return out_eval, out_json


def run_reader(reader: str, path: Path) -> dict[str, Any]:
    started = time.perf_counter()
    done = subprocess.run(
        [_python(reader), "-c", READERS[reader], str(path)],
        check=True, capture_output=True, text=True, cwd=str(DATA),
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["wall_s"] = time.perf_counter() - started
    return result


Runs = dict[str, dict[str, list[dict[str, Any]]]]
"""Per file suffix, per reader, the result of every run."""


def measure(files: tuple[Path, Path], samples: int, reps: int) -> Runs:
    """Every reader on every file, ``reps`` times, each a fresh process, the order alternating."""
    runs: Runs = {p.suffix: {r: [] for r in READERS} for p in files}
    for rep in range(reps):
        for path in files:
            order = list(READERS) if rep % 2 == 0 else list(reversed(READERS))
            for reader in order:
                result = run_reader(reader, path)
                if result["count"] != samples:
                    raise SystemExit(f"{reader} read {result['count']} samples from {path.name}")
                runs[path.suffix][reader].append(result)
    return runs


def _med(runs: Runs, suffix: str, reader: str, key: str) -> float:
    return float(statistics.median(r[key] for r in runs[suffix][reader]))


def _peak(runs: Runs, suffix: str, reader: str) -> float:
    return float(max(r["peak_rss_mib"] for r in runs[suffix][reader]))


def print_runs(files: tuple[Path, Path], runs: Runs) -> dict[str, float]:
    """The table of medians per file and reader; returns the ratios."""
    print(f"{'file':6s} {'reader':9s} {'size MB':>8s} {'read s':>8s} {'min s':>7s} {'process s':>10s} "
          f"{'peak RSS MiB':>13s} {'imports MiB':>12s}")
    ratios: dict[str, float] = {}
    for path in files:
        s = path.suffix
        for reader in READERS:
            print(f"{s:6s} {reader:9s} {path.stat().st_size / 1e6:8.1f} {_med(runs, s, reader, 'read_s'):8.3f} "
                  f"{min(r['read_s'] for r in runs[s][reader]):7.3f} {_med(runs, s, reader, 'wall_s'):10.3f} "
                  f"{_peak(runs, s, reader):13.1f} {_med(runs, s, reader, 'import_rss_mib'):12.1f}")
        ratios[f"{s[1:]}_time_speedup"] = _med(runs, s, "inspect", "read_s") / _med(runs, s, "tracekit", "read_s")
        ratios[f"{s[1:]}_process_speedup"] = _med(runs, s, "inspect", "wall_s") / _med(runs, s, "tracekit", "wall_s")
        ratios[f"{s[1:]}_peak_rss_fraction"] = _peak(runs, s, "tracekit") / _peak(runs, s, "inspect")
    return ratios


def print_targets(files: tuple[Path, Path], ratios: dict[str, float]) -> None:
    print()
    print(f"{'target (ratios of medians from this run)':58s} {'measured':>9s}   target  met")
    for path in files:
        s = path.suffix[1:]
        rows = (
            (f".{s}: read time, read_eval_log / tracekit", ratios[f"{s}_time_speedup"], 3.0, False),
            (f".{s}: whole process, inspect / tracekit (no target)", ratios[f"{s}_process_speedup"],
             None, False),
            (f".{s}: peak RSS, tracekit / read_eval_log", ratios[f"{s}_peak_rss_fraction"], 0.5, True),
        )
        for label, value, target, lower in rows:
            if target is None:
                print(f"{label:58s} {value:8.2f}x")
                continue
            met = value <= target if lower else value >= target
            print(f"{label:58s} {value:8.2f}x {'<=' if lower else '>='} {target:g}x  "
                  f"{'yes' if met else 'NO'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1000, help="samples in the generated log")
    parser.add_argument("--reps", type=int, default=5, help="runs per reader and file")
    args = parser.parse_args()
    DATA.mkdir(exist_ok=True)
    ensure_venv()
    files = ensure_logs(args.samples)
    runs = measure(files, args.samples, args.reps)
    print(f"Inspect AI log of {args.samples} samples, inspect-ai {INSPECT_VERSION}, {args.reps} "
          f"runs per reader and file, each a fresh process, interleaved")
    ratios = print_runs(files, runs)
    print_targets(files, ratios)
    RESULTS.write_text(json.dumps(
        {"samples": args.samples, "inspect_ai": INSPECT_VERSION, "runs": runs,
         "ratios": {k: round(v, 3) for k, v in ratios.items()}, "targets": TARGETS},
        indent=2, sort_keys=True) + "\n")
    print(f"\nwrote {RESULTS.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
