"""The start-up and 16 MiB rows of the issue's table (docs/performance.md, "Start-up" and
"The 16 MiB trace"), for bench/goals.py: ``rows(quick) -> list[Row]``.

Both rows compare whole processes, pinned to one CPU and interleaved so that both sides share
the machine's noise: ``tracekit verify --quiet FILE`` against the stdlib baseline
``python bench/reference.py FILE`` (the straightforward verifier, docs/performance.md "The
benchmark"). A ratio is a ratio of the medians measured in this one call; the goal is judged on
wall time, and the ratio of median CPU seconds is shown beside it (on a busy machine a process
waits for a CPU much longer than it uses one).
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from inputs import SMALL, ensure_trace
from timing import TRACEKIT, compile_bytecode, one_cpu, run_timed

Row = tuple[str, str, str, bool]
"""(work, measured, goal, met)."""

TINY_GOAL = 1.5
"""tracekit's time on the tiny trace, at most this many times the baseline's."""
BIG_GOAL = 2.0
"""The baseline's time on the 16 MiB trace, at least this many times tracekit's."""


Medians = tuple[float, float, float, float]
"""tracekit's and the baseline's median wall seconds, then their median CPU seconds."""


def medians(path: Path, reps: int, cpu: int | None) -> Medians:
    """Median wall and CPU seconds of tracekit verify and the baseline on ``path``, interleaved;
    every run must exit 0 (both accept the trace), or the figures would compare different work."""
    runs: dict[str, list[tuple[float, float]]] = {"tracekit": [], "baseline": []}
    run_timed([TRACEKIT, "verify", "--quiet", str(path)], cpu)  # warm the page cache
    for rep in range(reps):
        sides = [("tracekit", [TRACEKIT, "verify", "--quiet", str(path)]),
                 ("baseline", [sys.executable, str(HERE / "reference.py"), str(path)])]
        for name, argv in sides if rep % 2 == 0 else reversed(sides):
            wall, used, status = run_timed(argv, cpu)
            if status != 0:
                raise SystemExit(f"goals: {name} exited {status} on {path.name}")
            runs[name].append((wall, used))
    ours, theirs = runs["tracekit"], runs["baseline"]
    return (statistics.median(w for w, _ in ours), statistics.median(w for w, _ in theirs),
            statistics.median(c for _, c in ours), statistics.median(c for _, c in theirs))


def tiny_row(reps: int, cpu: int | None) -> Row:
    ours, theirs, our_cpu, their_cpu = medians(SMALL, reps, cpu)
    ratio = ours / theirs
    return ("a tiny trace, whole process, vs a stdlib verifier",
            f"{ours * 1000:.0f} ms vs {theirs * 1000:.0f} ms ({ratio:.2f}x; CPU {our_cpu / their_cpu:.2f}x)",
            f"<= {TINY_GOAL:g}x", ratio <= TINY_GOAL)


def big_row(reps: int, cpu: int | None) -> Row:
    ours, theirs, our_cpu, their_cpu = medians(ensure_trace(), reps, cpu)
    ratio = theirs / ours
    return ("the 16 MiB trace, whole process, vs the stdlib verifier",
            f"{ratio:.2f}x faster ({ours:.3f} s vs {theirs:.3f} s; CPU {their_cpu / our_cpu:.2f}x)",
            f">= {BIG_GOAL:g}x", ratio >= BIG_GOAL)


def rows(quick: bool) -> list[Row]:
    """Both rows, measured now; ``quick`` takes fewer repetitions."""
    compile_bytecode()
    cpu = one_cpu()
    return [tiny_row(9 if quick else 31, cpu), big_row(3 if quick else 9, cpu)]


if __name__ == "__main__":
    for row in rows("--quick" in sys.argv):
        print(row)
