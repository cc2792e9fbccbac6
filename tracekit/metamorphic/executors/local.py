"""The ``local`` executor: in-process for ``--jobs 1``, a process pool otherwise.

The pool uses the ``forkserver`` start method (as ``tracekit verify --jobs`` does), so workers
import tracekit fresh and share nothing with the parent but the pickled task.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from tracekit.metamorphic.cases import TraceResult, TraceTask
from tracekit.metamorphic.executors import Work
from tracekit.metamorphic.executors.window import ordered

WINDOW_PER_JOB = 4


@dataclass(frozen=True, slots=True)
class LocalExecutor:
    jobs: int = 1
    name: str = "local"

    def map_ordered(self, work: Work, tasks: Iterable[TraceTask]) -> Iterator[TraceResult]:
        """Run ``work`` over ``tasks`` here (jobs 1) or in ``jobs`` worker processes."""
        if self.jobs <= 1:
            yield from (work(task) for task in tasks)
            return
        context = multiprocessing.get_context("forkserver")
        with context.Pool(self.jobs) as pool:
            yield from ordered(
                lambda task: pool.apply_async(work, (task,)),
                lambda handle: handle.get(),
                tasks,
                self.jobs * WINDOW_PER_JOB,
            )
