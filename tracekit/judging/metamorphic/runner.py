"""Run a study: paths -> tasks -> an executor -> trace results, streamed in path order.

The runner holds no results: it yields each source trace's :class:`TraceResult` as soon as the
executor returns it (in path order), and callers fold them into a :class:`~study.Tally` and
spool the cases. Which executor ran a study never changes its results (executors/__init__.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence

from tracekit.judging.metamorphic.cases import StudyConfig, TraceResult, TraceTask, run_trace
from tracekit.judging.metamorphic.study import study_path
from tracekit.kernel.executors import Executor
from tracekit.kernel.executors.local import LocalExecutor


def tasks(paths: Sequence[str], config: StudyConfig) -> Iterator[TraceTask]:
    """One task per path, numbered from 1, reported under its study spelling."""
    for index, path in enumerate(paths, start=1):
        yield TraceTask(index, study_path(path), os.path.abspath(path), config)


def run_study(
    paths: Sequence[str], config: StudyConfig, executor: Executor | None = None
) -> Iterator[TraceResult]:
    """Yield the result of every source trace in ``paths``, in order.

    ``executor`` defaults to the in-process local executor. Raises TracekitError when the
    executor's backend is unavailable (dask not installed, scheduler unreachable).
    """
    chosen: Executor = executor if executor is not None else LocalExecutor(1)
    return chosen.map_ordered(run_trace, tasks(paths, config))
