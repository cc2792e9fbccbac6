"""The ``local`` executor: in-process for ``--jobs 1``, a process pool otherwise.

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

from tracekit.kernel.executors.batches import batches, run_each
from tracekit.kernel.executors.window import ordered

if TYPE_CHECKING:  # imported when a pool is started: --jobs 1 never needs it
    import multiprocessing.context

T = TypeVar("T")
R = TypeVar("R")

WINDOW_PER_JOB = 3
"""Batches in flight per worker: one running, the next ones queued."""


def ignore_sigint() -> None:
    """Pool worker initializer: the parent handles Ctrl-C and stops the pool."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


class LocalExecutor(msgspec.Struct, frozen=True):
    jobs: int = 1
    name: str = "local"
    preload: tuple[str, ...] = ()
    """Modules the workers need, imported once before the workers start (in the parent, or in
    the fork server)."""

    def _context(self) -> multiprocessing.context.BaseContext:
        import multiprocessing
        import threading

        if self.preload and threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods():
            for module in self.preload:
                __import__(module)
            return multiprocessing.get_context("fork")
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
        groups = batches(tasks, weigh, self.jobs)
        if self.jobs <= 1:
            yield from (work(group) for group in groups)
            return
        context = self._context()
        with context.Pool(self.jobs, initializer=ignore_sigint) as pool:
            yield from ordered(
                lambda group: pool.apply_async(work, (group,)),
                lambda handle: handle.get(),
                groups,
                self.jobs * WINDOW_PER_JOB,
            )
