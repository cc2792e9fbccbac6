"""Progress on long work (docs/cli.md, "Progress"): on stderr, only when stderr is a terminal
and without ``--quiet``, with counts and rate (tqdm, imported only then). Nothing otherwise, so
pipes, files and CI logs see the summary line alone."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")


def wanted(quiet: bool) -> bool:
    """True when progress may be drawn: stderr is a terminal and ``--quiet`` was not given."""
    return not quiet and sys.stderr.isatty()


def bar(total: int, label: str, unit: str = "file") -> Any:
    """A tqdm bar on stderr, cleared when closed (the summary line follows)."""
    from tqdm import tqdm  # type: ignore[import-untyped, unused-ignore]

    return tqdm(
        total=total, desc=f"tracekit {label}", unit=unit, file=sys.stderr, leave=False,
        dynamic_ncols=True, mininterval=0.2, ascii=True,
    )


def tracked(
    items: Iterable[T], total: int, label: str, quiet: bool, files: Callable[[T], int] | None = None
) -> Iterator[T]:
    """``items`` unchanged, counting them on a progress bar when :func:`wanted` and there is
    more than one file; ``files`` gives the files an item stands for (a batch's), else 1."""
    if total < 2 or not wanted(quiet):
        yield from items
        return
    with bar(total, label) as shown:
        for item in items:
            yield item
            shown.update(1 if files is None else files(item))
