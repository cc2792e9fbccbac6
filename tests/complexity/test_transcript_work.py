"""The Claude Code thread check is linear in the records (docs/formats.md, "Claude Code",
step 5): every ``parentUuid`` walk stops at a record an earlier walk finished, so no input
shape (one long chain, a comb of branches off it, records named in reverse order) makes it
revisit records. Work counted as lookups into the parent map, never seconds."""

from __future__ import annotations

from typing import Any

import pytest

from tracekit.formats.base import FormatError
from tracekit.formats.claude_code_episode import check_threads


class _Counted(dict[str, tuple[str | None, int]]):
    """A parent map that counts membership tests and reads."""

    lookups = 0

    def __contains__(self, key: object) -> bool:
        type(self).lookups += 1
        return super().__contains__(key)

    def __getitem__(self, key: str) -> tuple[str | None, int]:
        type(self).lookups += 1
        return super().__getitem__(key)


def _work(parents: dict[str, tuple[str | None, int]]) -> int:
    _Counted.lookups = 0
    check_threads(_Counted(parents))
    return _Counted.lookups


def _chain(n: int, reverse: bool) -> dict[str, tuple[str | None, int]]:
    items: list[tuple[str, Any]] = [(f"n{i}", (f"n{i - 1}" if i else None, i + 1)) for i in range(n)]
    return dict(reversed(items) if reverse else items)


@pytest.mark.parametrize("reverse", [False, True])
def test_a_chain_costs_a_few_lookups_per_record(reverse: bool) -> None:
    for n in (1_000, 10_000, 50_000):
        assert _work(_chain(n, reverse)) <= 3 * n


def test_a_comb_of_branches_costs_a_few_lookups_per_record() -> None:
    spine = _chain(10_000, reverse=True)
    teeth = {f"t{i}": (f"n{i}", 10_001 + i) for i in range(10_000)}
    assert _work(spine | teeth) <= 3 * 20_000


def test_a_long_cycle_is_found_in_one_walk() -> None:
    ring = {f"n{i}": (f"n{(i + 1) % 10_000}", i + 1) for i in range(10_000)}
    _Counted.lookups = 0
    with pytest.raises(FormatError):
        check_threads(_Counted(ring))
    assert _Counted.lookups <= 3 * 10_000
