"""The ``dask`` executor: the same per-trace tasks on a dask.distributed cluster.

``dask.distributed`` is an optional extra (``pip install tracekit[dask]``) and is imported only
when this executor runs; without it the study stops with ``metamorphic.dask_unavailable``. With a
scheduler address the executor connects to that cluster (``metamorphic.dask_connection_failed``
when it cannot); without one it starts a local cluster of ``jobs`` single-threaded worker
processes for the duration of the study.

Workers import tracekit and read each trace from its absolute path, so on a real cluster every
worker needs tracekit installed and the traces on a shared filesystem at the same paths.
Tasks travel in batches cut by bytes (batches.py), so the scheduler sees a few dozen tasks per
worker rather than one per file. Results come back in task order through a bounded window
(window.py), so a campaign of any size streams through the client with bounded memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from tracekit.kernel.errors import Code, TracekitError, finding
from tracekit.kernel.executors.batches import batches, run_each
from tracekit.kernel.executors.window import ordered

T = TypeVar("T")
R = TypeVar("R")

WINDOW_PER_THREAD = 3
BATCH_SCALE = 16
"""Dask batches hold up to 16 times the local executor's (4 MiB or 1,024 files): a task costs
the scheduler, the worker and the client a few milliseconds of CPU each way, so at the local
size (about 20 small files) that overhead rivalled the work (docs/performance.md, "Campaigns")."""
CONNECT_TIMEOUT_SECONDS = 20.0
CAMPAIGN_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.scheduler.work-stealing": False,
    "distributed.admin.tick.interval": "200ms",
    "distributed.admin.system-monitor.interval": "2s",
}
"""The cluster settings for campaigns (docs/cli.md, "Executors"), which the local cluster this
executor starts gets: each worker's statistical profiler samples the running task's stack every
10 ms, and with the other background timers took 3-6% of a worker's CPU beside a batch and
slowed the batch itself (0.67-0.79 ms a small file against 0.67-0.68 ms without them). Work
stealing has nothing to move: batches are sent a few at a time, in order. A user's own cluster
keeps its settings; the documentation gives these as environment variables."""


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise TracekitError(finding(Code.METAMORPHIC_DASK_UNAVAILABLE)) from None
    return distributed


@dataclass(frozen=True, slots=True)
class DaskExecutor:
    scheduler: str | None = None
    jobs: int = 1
    connect_timeout: float = CONNECT_TIMEOUT_SECONDS
    name: str = "dask"

    def _client(self, stack: ExitStack, distributed: Any) -> Any:
        if self.scheduler is None:
            import dask

            stack.enter_context(dask.config.set(CAMPAIGN_CONFIG))  # read as the cluster starts
            cluster = stack.enter_context(
                distributed.LocalCluster(
                    n_workers=max(1, self.jobs), threads_per_worker=1, processes=True,
                    dashboard_address=None,
                )
            )
            return stack.enter_context(distributed.Client(cluster))
        try:
            client = distributed.Client(self.scheduler, timeout=f"{self.connect_timeout}s")
        except (OSError, TimeoutError, ValueError):
            raise TracekitError(finding(Code.METAMORPHIC_DASK_CONNECTION_FAILED)) from None
        return stack.enter_context(client)

    def map_ordered(
        self, work: Callable[[T], R], tasks: Iterable[T], weigh: Callable[[T], int] | None = None
    ) -> Iterator[R]:
        """Run ``work`` over ``tasks`` on the cluster, in batches by ``weigh``, yielding each
        result in task order."""
        for results in self.map_batches(partial(run_each, work), tasks, weigh):
            yield from results

    def map_batches(
        self, work: Callable[[list[T]], R], tasks: Iterable[T], weigh: Callable[[T], int] | None = None
    ) -> Iterator[R]:
        """Run ``work`` over batches of ``tasks`` (batches.py) on the cluster, yielding each
        batch's result in order."""
        distributed = _distributed()
        with ExitStack() as stack:
            client = self._client(stack, distributed)
            threads = sum(client.nthreads().values()) or 1
            yield from ordered(
                lambda group: client.submit(work, group, pure=False),
                lambda future: future.result(),
                batches(tasks, weigh, threads, BATCH_SCALE),
                threads * WINDOW_PER_THREAD,
            )
