"""Executors: where a campaign command's per-trace tasks run (docs/cli.md, "Executors").

verify, audit, metamorphic and ``check`` hand an executor one module-level function of one
picklable task and get the results back in task order, so a report is byte-identical whichever
executor ran it. Tasks travel in batches cut by the bytes they read (batches.py); a command whose
parent needs only a summary of each batch (audit's tally and its spooled lines) hands over a
function of a whole batch instead (``map_batches``). At most a bounded window of batches is in
flight (window.py), so memory does not grow with a campaign's size. Registered executors: ``local`` (in-process, or worker processes
with ``--jobs``: workers.py) and ``dask`` (a dask.distributed cluster; imported lazily).

SIGINT policy, the same for every executor: workers ignore SIGINT; the parent's handler
(cli/app.py) raises, the pool or cluster is shut down by its context manager, nothing partial
is written, and the command exits 130.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Protocol, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class Executor(Protocol):
    """Runs a study's tasks somewhere and yields their results in task order."""

    @property
    def name(self) -> str:
        """The ``--executor`` value."""
        ...

    def map_ordered(
        self, work: Callable[[T], R], tasks: Iterable[T], weigh: Callable[[T], int] | None = None
    ) -> Iterator[R]:
        """Yield ``work(task)`` for each task, in task order; ``weigh`` gives a task's bytes
        (batches.file_bytes of its file) for cutting batches, one task per batch without it
        (tasks of unknown cost). Raises TracekitError when the execution backend is
        unavailable."""
        ...

    def map_batches(
        self, work: Callable[[list[T]], R], tasks: Iterable[T], weigh: Callable[[T], int] | None = None
    ) -> Iterator[R]:
        """Yield ``work(batch)`` for consecutive batches of ``tasks``, in order."""
        ...


EXECUTORS: tuple[str, ...] = ("local", "dask")


def make_executor(
    name: str, jobs: int = 1, scheduler: str | None = None, connect_timeout: float = 20.0
) -> Executor:
    """The executor registered as ``name``; ``scheduler`` is a Dask scheduler address (a local
    cluster with ``jobs`` workers is started when it is None), reached within
    ``connect_timeout`` seconds. Raises KeyError for an unknown name."""
    if name == "local":
        from tracekit.kernel.executors.local import LocalExecutor

        return LocalExecutor(jobs)
    if name == "dask":
        from tracekit.kernel.executors.dask_exec import DaskExecutor

        return DaskExecutor(scheduler, jobs, connect_timeout)
    raise KeyError(name)
