"""report.text.table lays out plain tables itself (start-up, docs/performance.md); it must
equal tabulate's output exactly, and hand everything else to tabulate."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from tabulate import tabulate

from tracekit.report import text

CELL = st.one_of(
    st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=12),
    st.text(alphabet=" \t\u00e9\u4e2d\x1b", max_size=3),
    st.integers(-10**6, 10**6),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False),
)


def _tabulate(rows: list[list[object]], headers: list[str], fmt: str) -> str:
    return str(tabulate(rows, headers=headers or (), tablefmt=fmt, disable_numparse=True))


@settings(max_examples=400, deadline=None)
@given(
    width=st.integers(1, 5),
    data=st.data(),
    fmt=st.sampled_from(["simple", "plain"]),
    with_headers=st.booleans(),
)
def test_same_as_tabulate(width: int, data: st.DataObject, fmt: str, with_headers: bool) -> None:
    rows = data.draw(st.lists(st.lists(CELL, min_size=width, max_size=width + 1), max_size=6))
    headers = data.draw(st.lists(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=8),
                                 min_size=width, max_size=width)) if with_headers else []
    assert text.table(rows, headers, tablefmt=fmt) == _tabulate(rows, headers, fmt)


def test_plain_tables_skip_tabulate() -> None:
    rows = [["trace.jsonl", "agentguard", "intact", 0, "3934fd3121ac9ac8"], ["b", "", "invalid", 2, "-"]]
    headers = ["trace", "format", "status", "exit", "trace id"]
    assert text._plain_table([list(r) for r in rows], headers, "simple") == _tabulate(rows, headers, "simple")
    assert text._plain_table([list(r) for r in rows], (), "plain") == _tabulate(rows, [], "plain")


def test_other_tables_go_to_tabulate() -> None:
    assert text._plain_table([["a", True]], ["x", "y"], "simple") is None  # a bool
    assert text._plain_table([["caf\u00e9"]], ["x"], "simple") is None  # not ASCII
    assert text._plain_table([["a "]], ["x"], "simple") is None  # tabulate strips it
    assert text._plain_table([["a"], ["b", "c"]], (), "plain") is None  # ragged
    assert text._plain_table([["a"]], ["x"], "github") is None
    assert text._plain_table([], ["x"], "simple") is None
