"""Pattern lists are shaped once per process (matching._shape), yet every trace is charged as if
it compiled them itself (docs/threat-model.md, "Work budget"; docs/performance.md, "Campaigns")."""

from __future__ import annotations

import pytest

from tracekit.judging.replay import matching
from tracekit.judging.replay.matching import CommandPatterns, PathPatterns, compile_cost, normalise
from tracekit.kernel.limits import BudgetExceeded, Meter

PATTERNS = ["src/**", "/tests/*.py/", "src/**", "docs\\*.md", "*.env"]


def _charged(patterns: list[str], limit: int = 10**12) -> tuple[int, bool]:
    meter = Meter(limit)
    try:
        PathPatterns(patterns, meter)
    except BudgetExceeded:
        return meter.used, True
    return meter.used, False


def test_a_shaped_list_is_charged_its_compile_cost_every_time() -> None:
    matching._kept_shape.cache_clear()
    keys = dict.fromkeys(normalise(p) for p in PATTERNS)
    expected = sum(compile_cost(k) for k in keys)
    assert _charged(PATTERNS) == (expected, False)  # compiled here
    assert _charged(list(PATTERNS)) == (expected, False)  # shaped and compiled already
    assert matching._kept_shape.cache_info().hits >= 1


@pytest.mark.parametrize("short", [1, 100_000, 250_000])
def test_a_shaped_list_stops_where_a_fresh_one_would(short: int) -> None:
    keys = list(dict.fromkeys(normalise(p) for p in PATTERNS))
    limit = sum(compile_cost(k) for k in keys) - short
    matching._kept_shape.cache_clear()
    fresh = _charged(PATTERNS, limit)
    _charged(PATTERNS)  # now shaped and compiled
    assert _charged(PATTERNS, limit) == fresh
    assert fresh[1]


def test_a_long_list_is_not_kept() -> None:
    matching._kept_shape.cache_clear()
    long = [f"dir{i}/" + "x" * 64 for i in range(matching.SHAPE_CHARS // 64)]
    PathPatterns(long, Meter(10**15))
    CommandPatterns(long)
    assert matching._kept_shape.cache_info().currsize == 0


def test_shaped_lists_answer_as_fresh_ones() -> None:
    paths = ["src/a.py", "tests/x.py", "docs/readme.md", ".env", "a/.env"]
    first = [PathPatterns(PATTERNS, Meter(10**12)).matching(p, Meter(10**12)) for p in paths]
    again = [PathPatterns(PATTERNS, Meter(10**12)).matching(p, Meter(10**12)) for p in paths]
    assert first == again == [matching.matching_patterns(p, PATTERNS) for p in paths]
    commands = CommandPatterns(["rm -rf", "curl", "rm -rf"])
    assert commands.matching("curl x | rm -rf /", Meter(10**12)) == ["rm -rf", "curl", "rm -rf"]
    assert CommandPatterns(["rm -rf", "curl", "rm -rf"]).keys == commands.keys == ("rm -rf", "curl")
