"""The ``local`` executor: in-process for ``--jobs 1``, worker processes otherwise (workers.py:
one pipe each, no helper threads in the parent).

Tasks travel in batches cut by bytes (batches.py): one round trip carries many small files.
A command that names the modules its workers need (``preload``: verify, audit, check) gets
workers forked from its own process when that process is single-threaded, with those modules
imported once before the fork (nothing is imported per worker); otherwise, and where fork does
not exist, workers come from a fork server (that imported ``preload`` once). A command without
``preload`` may hold native threads a fork would not carry (the store's database), so it always
gets the fork server (docs/performance.md, "Campaigns").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING, TypeVar

import msgspec

from tracekit.kernel.executors.batches import BATCH_TASKS, batched, batches, run_each

if TYPE_CHECKING:  # imported when a pool is started: --jobs 1 never needs it
    from tracekit.kernel.executors.workers import Context, Workers

T = TypeVar("T")
R = TypeVar("R")

WINDOW_PER_JOB = 3
"""Batches in flight per worker: one running, the next ones queued."""


def _workers(context: Context | None, jobs: int) -> Workers:
    """``jobs`` workers (workers.py). Forked workers start with the parent's objects frozen out
    of the collector (``gc.freeze``): a worker's collections never walk, and so never copy, the
    pages of the modules and inputs it inherited (docs/performance.md, "Campaigns")."""
    import gc

    from tracekit.kernel.executors.workers import Workers

    gc.freeze()
    try:
        return Workers(context, jobs)
    finally:
        gc.unfreeze()


class LocalExecutor(msgspec.Struct, frozen=True):
    jobs: int = 1
    name: str = "local"
    preload: tuple[str, ...] = ()
    """Modules the workers need, imported once before the workers start (in the parent, or in
    the fork server)."""

    def _context(self) -> Context | None:
        """None (fork workers from this process, workers.py) for a command that names its
        ``preload`` modules, once they are imported, when this process is single-threaded and
        can fork; else a fork server that imports them."""
        import os
        import sys

        threading = sys.modules.get("threading")  # never imported: no Python thread was started
        alone = threading is None or threading.active_count() == 1
        if self.preload and alone and hasattr(os, "fork"):
            for module in self.preload:
                __import__(module)
            return None
        import multiprocessing

        context = multiprocessing.get_context("forkserver")
        if self.preload:
            context.set_forkserver_preload(list(self.preload))
        return context

    def map_ordered(
        self, work: Callable[[T], R], tasks: Iterable[T], weigh: Callable[[T], int] | None = None
    ) -> Iterator[R]:
        """Run ``work`` over ``tasks`` here (jobs 1) or in ``jobs`` worker processes, in
        batches by ``weigh`` (one task per batch without it); yield each result in task
        order."""
        if self.jobs <= 1:
            yield from (work(task) for task in tasks)
            return
        for results in self.map_batches(partial(run_each, work), tasks, weigh):
            yield from results

    def map_batches(
        self, work: Callable[[list[T]], R], tasks: Iterable[T], weigh: Callable[[T], int] | None = None
    ) -> Iterator[R]:
        """Run ``work`` over batches of ``tasks`` (batches.py) and yield each batch's result in
        order: for a worker that sums its batch up (an audit's tally) so that only the summary
        travels back."""
        if self.jobs <= 1:  # in-process: batches bound memory only, nothing to weigh
            yield from (work(group) for group in batched(tasks, None, BATCH_TASKS, BATCH_TASKS))
            return
        groups = batches(tasks, weigh, self.jobs)
        with _workers(self._context(), self.jobs) as pool:
            yield from pool.map(work, groups, self.jobs * WINDOW_PER_JOB)
