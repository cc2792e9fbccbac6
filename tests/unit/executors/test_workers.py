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


@pytest.mark.parametrize("method", CONTEXTS)
def test_closing_reaps_every_worker(method: str) -> None:
    workers = Workers(multiprocessing.get_context(method), 2)  # type: ignore[arg-type]
    procs = list(workers._procs)
    assert list(workers.map(len, _batches(3), 2)) == [2, 2, 2]
    workers.close()
    assert workers.exitcodes == [0, 0]
    for proc in procs:  # a forked worker's pid is reaped: it is no child of ours any more
        if isinstance(proc, int):
            with pytest.raises(ChildProcessError):
                os.waitpid(proc, os.WNOHANG)
        else:
            assert not proc.is_alive()


def test_forked_workers_need_no_multiprocessing() -> None:
    """Workers forked from the parent itself run without ``multiprocessing`` imported (the
    parent's serial start-up, docs/performance.md "Campaigns")."""
    from tests.helpers import run_python

    code = (
        "import sys\n"
        "from tracekit.kernel.executors.workers import Workers\n"
        "with Workers(None, 2) as workers:\n"
        "    assert list(workers.map(sum, ([n, n] for n in range(9)), 4)) == [2 * n for n in range(9)]\n"
        "print(sorted(m for m in sys.modules if m.startswith('multiprocessing')))\n"
    )
    assert run_python(code) == "[]"


def test_a_worker_killed_by_a_signal_reports_it() -> None:
    import signal

    workers = Workers(None, 1)
    os.kill(workers._procs[0], signal.SIGKILL)
    workers.close()
    assert workers.exitcodes == [-signal.SIGKILL]


def _big_answer(batch: list[int]) -> bytes:
    return bytes(1024 * 1024)  # far more than a pipe buffers: the worker blocks until it is read


@pytest.mark.parametrize("method", CONTEXTS)
def test_batches_sent_ahead_never_deadlock_against_large_answers(method: str) -> None:
    """Small batches are sent to workers still running one while those workers block writing
    answers larger than the pipe buffers; a large batch is held back. Both finish (an alarm
    fails the test instead of a hang)."""
    import signal

    def stuck(*_: object) -> None:
        raise TimeoutError("the parent and a worker wait on each other")

    previous = signal.signal(signal.SIGALRM, stuck)
    signal.alarm(60)
    try:
        with Workers(multiprocessing.get_context(method), 2) as workers:  # type: ignore[arg-type]
            small = list(workers.map(_big_answer, _batches(30), 6))
            large = list(workers.map(_big_answer, ([n] * 50_000 for n in range(12)), 6))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert small == [bytes(1024 * 1024)] * 30 and len(large) == 12


def test_only_a_small_batch_goes_to_a_busy_worker() -> None:
    from tracekit.kernel.executors.workers import AHEAD_BYTES, QUEUED

    with Workers(multiprocessing.get_context(CONTEXTS[0]), 1) as workers:  # type: ignore[arg-type]
        assert workers._ahead  # Linux socket pairs buffer far more than PIPE_BYTES
        assert workers._takes(0, 10**9)  # an idle worker takes any batch
        assert workers._takes(1, AHEAD_BYTES) and not workers._takes(1, AHEAD_BYTES + 1)
        assert not workers._takes(QUEUED, 1)
        workers._ahead = False  # a pipe that buffers too little: nothing is sent ahead
        assert workers._takes(0, 1) and not workers._takes(1, 1)
