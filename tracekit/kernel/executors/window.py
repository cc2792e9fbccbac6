"""Ordered, bounded submission: keep at most ``window`` tasks in flight, yield in task order.

Used by the Dask executor (the local one keeps its own window: workers.py). Results come back in submission order, which is
what makes every executor's report identical; a slow task only holds back the ones behind it
until the window is full.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")
H = TypeVar("H")
R = TypeVar("R")


def ordered(
    submit: Callable[[T], H], collect: Callable[[H], R], tasks: Iterable[T], window: int
) -> Iterator[R]:
    """Submit ``tasks`` with ``submit`` and yield ``collect(handle)`` in task order."""
    pending: deque[H] = deque()
    for task in tasks:
        pending.append(submit(task))
        if len(pending) >= max(1, window):
            yield collect(pending.popleft())
    while pending:
        yield collect(pending.popleft())
