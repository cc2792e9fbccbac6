#!/usr/bin/env python3
"""Every import on the path of ``tracekit verify FILE`` (docs/performance.md, "Start-up").

Runs ``tracekit verify --quiet FILE`` under ``python -X importtime`` (as the console script
does: ``from tracekit.cli.app import entry``, the fast path) several times (bytecode compiled
first) and prints, per group of modules (a tracekit module by its first three name parts, any
other by its top-level package), the sum of their own import times, the best of the runs for
each module: what start-up is made of. ``-X importtime`` adds its own overhead, so read the
shares, not the absolute figures. Usage: ``python bench/startup_imports.py [FILE] [--runs N]
[--modules]`` (``--modules`` lists every module instead of the groups).
"""

from __future__ import annotations

import argparse
import collections
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from inputs import SMALL
from timing import compile_bytecode

CONSOLE_SCRIPT = "import sys; sys.argv[0] = 'tracekit'; from tracekit.cli.app import entry; entry()"


def self_times(path: Path, runs: int) -> dict[str, int]:
    """Each imported module's own import time in microseconds, the best of ``runs``."""
    best: dict[str, int] = {}
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", CONSOLE_SCRIPT, "verify", "--quiet", str(path)],
            capture_output=True, text=True, check=False,
        )
        for line in done.stderr.splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            own, _, name = line.split("|", 2)
            micros = int(own.split(":")[1])
            best[name.strip()] = min(best.get(name.strip(), micros), micros)
    return best


def group(name: str) -> str:
    parts = name.split(".")
    return ".".join(parts[:3]) if parts[0] == "tracekit" else parts[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", default=str(SMALL), help="the trace (default: a 14-event one)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--modules", action="store_true", help="every module, not the groups")
    args = parser.parse_args()
    compile_bytecode()
    best = self_times(Path(args.file), args.runs)
    totals: collections.Counter[str] = collections.Counter()
    for name, micros in best.items():
        totals[name if args.modules else group(name)] += micros
    everything = sum(best.values())
    ours = sum(v for k, v in best.items() if k.startswith("tracekit"))
    print(f"{len(best)} modules, {everything / 1000:.1f} ms of own import time "
          f"(tracekit {ours / 1000:.1f} ms), best of {args.runs} runs")
    for name, micros in totals.most_common():
        print(f"{micros / 1000:8.2f} ms  {micros / everything:6.1%}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
