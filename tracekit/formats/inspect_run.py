"""What an Inspect log says about its run as a whole (docs/formats.md, "Run status").

The log's ``status`` (``success``, ``error``, ``cancelled``, ``started``) and its
``results.total_samples`` are the tool's own account of the run. A run that did not finish, or
whose results count samples the file does not hold, is recorded as a :class:`RunProblem`, so
that a failed run is never read as a clean file with nothing in it.
"""

from __future__ import annotations

from typing import Any

from tracekit.kernel.evidence import RunProblem

_NOT_FINISHED = frozenset({"error", "cancelled", "started"})


def run_problems(log: dict[str, Any], held: int) -> tuple[RunProblem, ...]:
    """The run-level problems of one log whose file holds ``held`` samples."""
    problems: list[RunProblem] = []
    status = log.get("status")
    if status is not None and status != "success":
        word = status if isinstance(status, str) and status in _NOT_FINISHED else "unknown"
        problems.append(RunProblem("not_finished", "status", status=word))
    results = log.get("results")
    claimed = results.get("total_samples") if isinstance(results, dict) else None
    if type(claimed) is int and claimed != held:
        kind = "samples_missing" if claimed > held else "totals_contradict"
        problems.append(RunProblem(kind, "results", claimed=claimed, held=held))
    return tuple(problems)
