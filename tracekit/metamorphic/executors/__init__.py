"""Executors: where a study's per-trace tasks run. Each yields results in task order.

Every executor runs the same pure per-trace function (``cases.run_trace``) over the same tasks
and returns results in task order, so a study's report is byte-identical whichever executor ran
it. At most a bounded window of tasks is in flight (window.py), so memory does not grow with a
campaign's size. Registered executors: ``local`` (in-process, or a process pool with ``--jobs``)
and ``dask`` (a dask.distributed cluster; imported lazily).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Protocol

from tracekit.metamorphic.cases import TraceResult, TraceTask

Work = Callable[[TraceTask], TraceResult]


class Executor(Protocol):
    """Runs a study's tasks somewhere and yields their results in task order."""

    @property
    def name(self) -> str:
        """The ``--executor`` value."""
        ...

    def map_ordered(self, work: Work, tasks: Iterable[TraceTask]) -> Iterator[TraceResult]:
        """Yield ``work(task)`` for each task, in task order. Raises TracekitError when the
        execution backend is unavailable."""
        ...


EXECUTORS: tuple[str, ...] = ("local", "dask")


def make_executor(
    name: str, jobs: int = 1, scheduler: str | None = None, connect_timeout: float = 20.0
) -> Executor:
    """The executor registered as ``name``; ``scheduler`` is a Dask scheduler address (a local
    cluster with ``jobs`` workers is started when it is None), reached within
    ``connect_timeout`` seconds. Raises KeyError for an unknown name."""
    if name == "local":
        from tracekit.metamorphic.executors.local import LocalExecutor

        return LocalExecutor(jobs)
    if name == "dask":
        from tracekit.metamorphic.executors.dask_exec import DaskExecutor

        return DaskExecutor(scheduler, jobs, connect_timeout)
    raise KeyError(name)
