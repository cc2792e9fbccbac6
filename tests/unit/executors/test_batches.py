"""Tasks cut into batches by bytes (tracekit/kernel/executors/batches.py) and batches run on a
process pool: every task once, in order, whatever the cut (docs/cli.md, "Executors")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tracekit.kernel.executors.batches import (
    BATCH_BYTES,
    BATCH_TASKS,
    GUIDED_SHARE,
    TAIL_TASKS,
    batched,
    batches,
    file_bytes,
    limits,
    one,
    run_each,
)
from tracekit.kernel.executors.local import LocalExecutor


def _square(n: int) -> int:
    return n * n


def _total(batch: list[int]) -> tuple[int, int]:
    return len(batch), sum(batch)


@pytest.mark.parametrize("max_bytes", [1, 7, 100, 10_000])
@pytest.mark.parametrize("max_tasks", [1, 3, 64])
def test_batches_keep_every_task_once_in_order_within_their_bounds(max_bytes: int, max_tasks: int) -> None:
    weights = [0, 5, 1, 90, 3, 3, 3, 250, 0, 0, 7, 1] * 5
    got = list(batched(range(len(weights)), weights.__getitem__, max_bytes, max_tasks))
    assert [t for batch in got for t in batch] == list(range(len(weights)))
    for batch in got:
        assert 1 <= len(batch) <= max_tasks
        # a batch closes as soon as it reaches its bytes: only its last task may cross the bound
        assert sum(weights[t] for t in batch[:-1]) < max_bytes


def test_batching_is_lazy() -> None:
    pulled: list[int] = []

    def tasks() -> Iterator[int]:
        for n in range(1000):
            pulled.append(n)
            yield n

    first = next(batched(tasks(), one, 10**9, 4))
    assert first == [0, 1, 2, 3] and pulled == [0, 1, 2, 3]


def test_a_short_campaign_is_cut_finer_so_every_worker_gets_batches() -> None:
    assert limits([1, 2, 3], None, 2) == (1, 1)  # no weight: tasks of unknown cost, one per batch
    assert limits(iter([1, 2]), one, 2) == (BATCH_BYTES, BATCH_TASKS)  # not known in advance
    weighed: list[int] = []

    def weigh(task: int) -> int:
        weighed.append(task)
        return 1000

    max_bytes, max_tasks = limits(list(range(20)), weigh, 2)
    assert max_tasks == 3 and max_bytes == BATCH_BYTES  # 20 tasks, 8 parts
    assert weighed == []  # cut by count: nothing is weighed before the first batch leaves
    assert limits([7], lambda t: 10**9, 4) == (BATCH_BYTES, 1)


def test_file_bytes(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"x" * 123)
    assert file_bytes(str(tmp_path / "a")) == 123
    assert file_bytes(str(tmp_path / "missing")) == 0
    assert file_bytes("-") == 0


def test_run_each_is_the_per_task_work_in_order() -> None:
    assert run_each(_square, [3, 1, 2]) == [9, 1, 4]


@pytest.mark.parametrize("jobs", [1, 2])
def test_pool_results_are_the_serial_ones_in_task_order(jobs: int) -> None:
    tasks = list(range(300))
    weights = [(n * 37) % 5000 for n in tasks]
    executor = LocalExecutor(jobs)
    assert list(executor.map_ordered(_square, tasks, weights.__getitem__)) == [n * n for n in tasks]
    batches = list(executor.map_batches(_total, tasks, weights.__getitem__))
    assert sum(n for n, _ in batches) == len(tasks)
    assert sum(s for _, s in batches) == sum(tasks)
    assert len(batches) >= 2 * jobs


class _Counted(list[int]):
    """A campaign known in advance that counts the tasks read (FileJobs makes each when read)."""

    reads = 0

    def __getitem__(self, index):  # type: ignore[no-untyped-def,override]
        if isinstance(index, int):
            self.reads += 1
        return super().__getitem__(index)


@pytest.mark.parametrize(("count", "workers", "scale"), [(2000, 2, 1), (10_000, 2, 16), (300, 3, 1), (5, 2, 1)])
def test_a_known_campaign_ends_in_small_batches(count: int, workers: int, scale: int) -> None:
    tasks = _Counted(range(count))
    got = list(batches(tasks, lambda t: 10_000, workers, scale))
    assert [t for batch in got for t in batch] == list(range(count))
    assert tasks.reads == count  # each task read once: none made for a batch that did not take it
    sizes = [len(batch) for batch in got]
    max_bytes, max_tasks = limits(list(range(count)), one, workers, scale)
    assert all(1 <= size <= max_tasks and (size - 1) * 10_000 < max_bytes for size in sizes)
    tail = min(TAIL_TASKS * scale, count)
    assert sizes[-1] <= tail  # the campaign ends in a batch of at most the tail's size
    for before, after in zip(sizes, sizes[1:], strict=False):  # never growing (or the tail)
        assert after <= max(before, tail)
    remaining = count
    for size in sizes:  # each batch at most its share of what was left
        assert size <= max(tail, -(-remaining // (GUIDED_SHARE * workers)))
        remaining -= size


def test_a_campaign_not_known_in_advance_is_cut_as_it_comes() -> None:
    got = list(batches(iter(range(200)), one, 2))
    assert [len(batch) for batch in got] == [BATCH_TASKS] * 3 + [200 - 3 * BATCH_TASKS]
