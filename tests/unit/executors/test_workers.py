"""The local executor's own worker processes (tracekit/kernel/executors/workers.py): results in
batch order whatever the workers' speed, a bounded window, the work's exception raised in the
parent, and a worker that dies is an ``internal.error``, never a hang."""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Iterator

import pytest

from tracekit.kernel.errors import Code, TracekitError
from tracekit.kernel.executors.workers import Workers

CONTEXTS = [m for m in ("fork", "forkserver") if m in multiprocessing.get_all_start_methods()]


def _slow_sum(batch: list[int]) -> int:
    time.sleep(0.002 * (batch[0] % 7))  # uneven batches: answers arrive out of order
    return sum(batch)


def _fails_on_13(batch: list[int]) -> int:
    if 13 in batch:
        raise ValueError("thirteen")
    return len(batch)


def _dies_on_13(batch: list[int]) -> int:
    if 13 in batch:
        os._exit(3)
    return len(batch)


def _batches(count: int, pulled: list[int] | None = None) -> Iterator[list[int]]:
    for n in range(count):
        if pulled is not None:
            pulled.append(n)
        yield [n, n + 1000]


@pytest.mark.parametrize("method", CONTEXTS)
@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_results_come_back_in_batch_order(method: str, jobs: int) -> None:
    with Workers(multiprocessing.get_context(method), jobs) as workers:  # type: ignore[arg-type]
        got = list(workers.map(_slow_sum, _batches(60), 4))
    assert got == [2 * n + 1000 for n in range(60)]


def test_the_window_bounds_the_batches_pulled_ahead() -> None:
    pulled: list[int] = []
    with Workers(multiprocessing.get_context(CONTEXTS[0]), 2) as workers:  # type: ignore[arg-type]
        results = workers.map(_slow_sum, _batches(100, pulled), 5)
        for seen, _ in enumerate(results, start=1):
            assert len(pulled) <= seen + 5


@pytest.mark.parametrize("method", CONTEXTS)
def test_the_work_s_exception_is_raised_in_the_parent(method: str) -> None:
    with Workers(multiprocessing.get_context(method), 2) as workers, pytest.raises(ValueError, match="thirteen"):  # type: ignore[arg-type]
        list(workers.map(_fails_on_13, _batches(40), 4))


@pytest.mark.parametrize("method", CONTEXTS)
def test_a_dead_worker_is_an_internal_error_not_a_hang(method: str) -> None:
    start = time.monotonic()
    with Workers(multiprocessing.get_context(method), 2) as workers, pytest.raises(TracekitError) as caught:  # type: ignore[arg-type]
        list(workers.map(_dies_on_13, _batches(40), 4))
    assert caught.value.finding.code is Code.INTERNAL_ERROR
    assert time.monotonic() - start < 60


def test_closing_reaps_every_worker() -> None:
    workers = Workers(multiprocessing.get_context(CONTEXTS[0]), 2)  # type: ignore[arg-type]
    procs = list(workers._procs)
    assert list(workers.map(len, _batches(3), 2)) == [2, 2, 2]
    workers.close()
    assert all(not proc.is_alive() and proc.exitcode == 0 for proc in procs)
