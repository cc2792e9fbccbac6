"""The ``local`` executor: in-process for ``--jobs 1``, a process pool otherwise.

The pool uses the ``forkserver`` start method (as ``tracekit verify --jobs`` does), so workers
import tracekit fresh and share nothing with the parent but the pickled task.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from tracekit.kernel.executors.window import ordered

if TYPE_CHECKING:  # imported when a pool is started: --jobs 1 never needs it
    import multiprocessing.context

T = TypeVar("T")
R = TypeVar("R")

WINDOW_PER_JOB = 4


def ignore_sigint() -> None:
    """Pool worker initializer: the parent handles Ctrl-C and stops the pool."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


@dataclass(frozen=True, slots=True)
class LocalExecutor:
    jobs: int = 1
    name: str = "local"
    preload: tuple[str, ...] = ()
    """Modules the workers need. When given, a single-threaded parent forks its workers with
    them already imported (no import per worker, docs/performance.md); otherwise, and always
    without it, workers come from a fork server that imported them once."""

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

    def map_ordered(self, work: Callable[[T], R], tasks: Iterable[T]) -> Iterator[R]:
        """Run ``work`` over ``tasks`` here (jobs 1) or in ``jobs`` worker processes."""
        if self.jobs <= 1:
            yield from (work(task) for task in tasks)
            return
        context = self._context()
        with context.Pool(self.jobs, initializer=ignore_sigint) as pool:
            yield from ordered(
                lambda task: pool.apply_async(work, (task,)),
                lambda handle: handle.get(),
                tasks,
                self.jobs * WINDOW_PER_JOB,
            )
