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


WRAP_CELL = st.one_of(
    st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=14).filter(
        lambda s: s not in ("True", "False")  # tabulate's wrap turns these into a bool and fails
    ),
    st.text(alphabet="ab -", max_size=14),
    st.integers(-10**6, 10**6),
)


@settings(max_examples=400, deadline=None)
@given(
    width=st.integers(1, 4),
    data=st.data(),
    fmt=st.sampled_from(["simple", "plain"]),
    with_headers=st.booleans(),
)
def test_wrapped_same_as_tabulate(width: int, data: st.DataObject, fmt: str, with_headers: bool) -> None:
    """With column widths, a table whose cells all fit is laid out without tabulate; it must
    equal tabulate's wrapped layout, and every other table is tabulate's."""
    rows = data.draw(st.lists(st.lists(WRAP_CELL, min_size=width, max_size=width), max_size=6))
    headers = data.draw(st.lists(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=8),
                                 min_size=width, max_size=width)) if with_headers else []
    widths = data.draw(st.lists(st.one_of(st.none(), st.integers(1, 16)), min_size=width, max_size=width))
    expected = str(tabulate(rows, headers=headers or (), tablefmt=fmt, disable_numparse=True,
                            maxcolwidths=widths if rows else None))
    assert text.table(rows, headers, tablefmt=fmt, widths=widths) == expected


def test_wrapping_goes_to_tabulate() -> None:
    assert text._unwrapped([["abc", "de"]], [3, None])
    assert text._unwrapped([["abc", 12345]], [None, 5])
    assert not text._unwrapped([["abcd"]], [3])  # would wrap
    assert not text._unwrapped([[123456]], [5])
    assert not text._unwrapped([["True"]], [8])  # tabulate makes it a bool first
    assert not text._unwrapped([[True]], [8])
    assert not text._unwrapped([[None]], [8])


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.one_of(CELL, st.text(alphabet=" ab\n", max_size=4)), max_size=5))
def test_plain_row_is_plain_cell_per_cell(row: list[object]) -> None:
    """The row test (one pass over the joined cells) says what the cell test says of each."""
    cells = [text._plain_cell(value) for value in row]
    expected = None if None in cells else cells
    assert text._plain_row(row) == expected
