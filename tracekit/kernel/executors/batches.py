"""Tasks cut into batches by bytes: many small files per worker round trip (docs/performance.md,
"Campaigns").

A campaign of small traces spends about a millisecond per file; sent one by one, each file also
pays a pickled task, a pickled result and a wake-up of the parent's pool threads, which on two
cores cost as much as the work itself. A batch holds consecutive tasks up to
:data:`BATCH_BYTES` of input (by the weight the caller gives each task, a file's size) or
:data:`BATCH_TASKS` tasks, and never fewer than one task; a campaign known in advance is cut
finer (by count) so that every worker gets several batches, and its last batches shrink (guided
self-scheduling) so that no worker finishes a large batch alone while the others have nothing left.

Batches keep task order, so results flattened batch by batch are in task order too.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

BATCH_BYTES = 256 * 1024
"""At most this much input per batch (a task heavier than this is a batch of its own)."""
BATCH_TASKS = 64
"""At most this many tasks per batch, however small their files."""
BATCHES_PER_WORKER = 4
"""A campaign known in advance is cut into at least this many batches per worker."""
GUIDED_SHARE = 2
"""In a campaign known in advance, a batch holds at most 1 / (GUIDED_SHARE x workers) of the tasks
not yet cut: the batches shrink as the campaign ends, so the workers finish together."""
TAIL_TASKS = 4
"""...but at least this many tasks (times the executor's scale) while that many remain: a batch's
round trip stays small beside its work."""


def file_bytes(path: str) -> int:
    """A task's weight: the size of the file it reads (0 when it cannot be stat'ed or is
    standard input: the task itself reports that)."""
    if path == "-":
        return 0
    try:
        return os.stat(path).st_size
    except (OSError, ValueError):
        return 0


def limits(
    tasks: Iterable[T], weigh: Callable[[T], int] | None, workers: int, scale: int = 1
) -> tuple[int, int]:
    """The (bytes, tasks) bounds of a batch for ``tasks`` on ``workers`` workers: one task per
    batch without ``weigh`` (tasks of unknown cost, a metamorphic study's traces); else the
    defaults times ``scale`` (an executor whose round trip costs more, Dask's), with fewer
    tasks per batch when ``tasks`` is a sequence too short to give each worker
    :data:`BATCHES_PER_WORKER` batches. Counted, not weighed: no task is weighed before the
    first batch leaves, so the parent's ``stat`` of each file overlaps the workers' work
    instead of delaying it (docs/performance.md, "Campaigns")."""
    if weigh is None:
        return 1, 1
    most_bytes, most_tasks = BATCH_BYTES * scale, BATCH_TASKS * scale
    if not isinstance(tasks, Sequence) or not tasks:
        return most_bytes, most_tasks
    parts = max(1, workers) * BATCHES_PER_WORKER
    return most_bytes, max(1, min(most_tasks, -(-len(tasks) // parts)))


def batched(
    tasks: Iterable[T], weigh: Callable[[T], int] | None, max_bytes: int, max_tasks: int
) -> Iterator[list[T]]:
    """Consecutive runs of ``tasks``, each closed once it holds ``max_bytes`` (by ``weigh``) or
    ``max_tasks`` tasks; lazy, so a generator of tasks is never held whole, and each task is
    weighed as its batch is cut."""
    batch: list[T] = []
    held = 0
    for task in tasks:
        batch.append(task)
        held += 1 if weigh is None else weigh(task)
        if held >= max_bytes or len(batch) >= max_tasks:
            yield batch
            batch, held = [], 0
    if batch:
        yield batch


def guided(
    tasks: Sequence[T], weigh: Callable[[T], int], max_bytes: int, max_tasks: int, share: int, tail: int
) -> Iterator[list[T]]:
    """Consecutive runs of ``tasks`` as :func:`batched` cuts them, each also holding at most
    ``1 / share`` of the tasks not yet cut (at least ``tail``): the last batches shrink."""
    start, total = 0, len(tasks)
    while start < total:
        most = min(max_tasks, max(tail, -(-(total - start) // share)))
        # lazily, so that only the tasks the batch takes are made (FileJobs makes each when read)
        batch = next(batched(map(tasks.__getitem__, range(start, min(total, start + most))), weigh, max_bytes, most))
        start += len(batch)
        yield batch


def batches(
    tasks: Iterable[T], weigh: Callable[[T], int] | None, workers: int, scale: int = 1
) -> Iterator[list[T]]:
    """``tasks`` cut for ``workers`` workers: :func:`limits`, then :func:`batched`, or
    :func:`guided` for a campaign known in advance."""
    max_bytes, max_tasks = limits(tasks, weigh, workers, scale)
    if weigh is None or not isinstance(tasks, Sequence) or workers <= 1:
        return batched(tasks, weigh, max_bytes, max_tasks)
    return guided(tasks, weigh, max_bytes, max_tasks, GUIDED_SHARE * workers, TAIL_TASKS * scale)


def run_each(work: Callable[[T], R], batch: list[T]) -> list[R]:
    """A worker's batch of per-task work: each result, in task order (module-level: it pickles
    by name)."""
    return [work(task) for task in batch]


def one(task: object) -> int:
    """A weight for many light tasks without a file: each counts as one byte, so only
    :data:`BATCH_TASKS` (or the campaign's share) bounds their batches."""
    return 1
