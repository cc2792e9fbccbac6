#!/usr/bin/env python3
"""Sealed-bundle speed and size (docs/bundle-format.md), run by ``make bench`` after the verify
benchmark or alone: ``python bench/bundle_bench.py [--reps N]``.

1. On the 16 MiB benchmark trace (bench/data, made by bench/inputs.py): ``tracekit verify`` of the
   trace, ``tracekit seal`` of it and ``tracekit verify`` of the bundle, as whole processes, each
   several times; the medians, their ratios to verifying the trace, and each process's peak RSS.
2. Agent loops of 10, 50 and 200 turns (harness-format traces: every turn adds an assistant
   message, a tool call and its result, over a shared system prompt): the bundle's size, the
   original's, and both per turn. A bundle that grows linearly shows a flat size per turn.

Targets (the issue's): seal and verify each at most 2x ``tracekit verify`` of the trace, peak RSS
under 100 MiB. The printed numbers are the result; nothing here asserts them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from inputs import TRACE, ensure_trace
from timing import TRACEKIT as TK
from timing import run_process

MIB = 1024 * 1024


def _median(samples: list[tuple[float, float, int]], argv: list[str]) -> tuple[float, float]:
    bad = [s for s in samples if s[2] not in (0,)]
    if bad:
        raise SystemExit(f"bundle bench: {' '.join(argv[:2])} exited {bad[0][2]}")
    return statistics.median(s[0] for s in samples), max(s[1] for s in samples)


def speed(reps: int, work: Path) -> dict[str, tuple[float, float]]:
    """Medians (seconds) and peak RSS (MiB) of verify-trace, seal and verify-bundle."""
    key = work / "bench"
    subprocess.run([TK, "keygen", "-o", str(key)], check=True, capture_output=True)
    trace = str(TRACE)
    runs: dict[str, list[tuple[float, float, int]]] = {"verify trace": [], "seal": [], "verify bundle": []}
    bundle = work / "trace.tkb"
    for rep in range(reps):
        out = work / f"seal-{rep}.tkb"
        runs["verify trace"].append(run_process([TK, "verify", trace, "-q"]))
        runs["seal"].append(run_process([TK, "seal", trace, "-o", str(out), "--key", f"{key}.key"]))
        if not bundle.exists():
            out.rename(bundle)
        else:
            out.unlink()
        runs["verify bundle"].append(
            run_process([TK, "verify", str(bundle), "-q", "--trusted-key", f"{key}.pub"])
        )
    return {name: _median(samples, [name]) for name, samples in runs.items()}


def loop_trace(turns: int) -> bytes:
    """A harness-format agent loop of ``turns`` turns."""
    messages = [
        {"role": "system", "content": "You are a careful coding agent. " * 20},
        {"role": "user", "content": "Fix the failing test in the repository."},
    ]
    calls = []
    for turn in range(turns):
        messages.append({"role": "assistant", "content": f"Turn {turn}: I will inspect the next file. " * 4})
        calls.append({"name": "bash", "arguments": {"cmd": f"sed -n 1,80p src/module_{turn}.py"}})
        messages.append({"role": "tool", "content": f"# module {turn}\n" + "def f(x):\n    return x\n" * 20})
    return json.dumps({"messages": messages, "tool_calls": calls, "events": []}, indent=1).encode()


def growth(work: Path) -> list[tuple[int, int, int]]:
    """(turns, original bytes, bundle bytes) for loops of 10, 50 and 200 turns."""
    rows = []
    for turns in (10, 50, 200):
        source, bundle = work / f"loop-{turns}.json", work / f"loop-{turns}.tkb"
        source.write_bytes(loop_trace(turns))
        subprocess.run([TK, "seal", str(source), "-o", str(bundle)], check=True, capture_output=True)
        rows.append((turns, source.stat().st_size, bundle.stat().st_size))
    return rows


def report(reps: int) -> str:
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        timed = speed(reps, work)
        rows = growth(work)
    base = timed["verify trace"][0]
    lines = [f"sealed bundles: 16 MiB trace, medians of {reps} runs, one process each"]
    lines.append(f"  {'step':16s} {'seconds':>8s} {'x verify':>9s} {'peak RSS MiB':>13s}")
    for name, (seconds, rss) in timed.items():
        lines.append(f"  {name:16s} {seconds:8.3f} {seconds / base:9.2f} {rss:13.1f}")
    lines.append("  targets: seal and verify bundle <= 2.00 x verify trace; peak RSS < 100 MiB")
    lines.append("agent loops: bundle size per turn (linear growth = flat per-turn figures)")
    lines.append(f"  {'turns':>5s} {'original B':>11s} {'bundle B':>9s} {'bundle/turn':>12s} {'(bundle-original)/turn':>23s}")
    for turns, original, bundle in rows:
        lines.append(
            f"  {turns:5d} {original:11d} {bundle:9d} {bundle / turns:12.0f} {(bundle - original) / turns:23.0f}"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    ensure_trace()  # alone: only the 16 MiB trace (make bench makes all)
    print(report(args.reps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
