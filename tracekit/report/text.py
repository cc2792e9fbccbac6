"""Text helpers every renderer shares: terminal-safe paths, Markdown escaping and tables.

Renderers are pure and never import the command line (tests/test_architecture.py); the command
line imports these helpers from here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import cast

_MD_SPECIAL = re.compile(r"([\\`*\]|])")
"""Backslash, code, emphasis, the closing bracket of every link or image, and the cell border."""


def display_path(path: str | Path) -> str:
    """A path for humans: non-printable characters escaped so a file name cannot drive the
    terminal. Paths come from the user's own command line or folders, never from a trace."""
    text = str(path)
    if text.isprintable():
        return text
    return text.encode("unicode_escape", "backslashreplace").decode("ascii")


def md_escape(value: object) -> str:
    """``value`` as inert Markdown text for a table cell or a heading: non-printable characters
    escaped, the Markdown punctuation that starts code, emphasis, a link or an image (``]``
    closes every one) or ends a cell backslash-escaped, and ``<``, ``>`` and ``&``
    written as HTML entities, so text from a trace can start no markup, link, image or HTML."""
    text = display_path(str(value))
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def md_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> list[str]:
    """A Markdown table; every cell escaped with :func:`md_escape`."""
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(md_escape(c) for c in row) + " |" for row in rows]
    return out


def table(
    rows: Sequence[Sequence[object]],
    headers: Sequence[str] = (),
    tablefmt: str = "simple",
    widths: Sequence[int | None] | None = None,
) -> str:
    """A plain-text table. Number parsing is off: a column mixing ``False`` and ``1.5`` (or
    text that looks like a number) is shown as given, never re-parsed or re-formatted.
    ``widths`` wraps the columns given a width at word boundaries."""
    cells = [list(row) for row in rows]
    if not widths or _unwrapped(cells, widths):
        quick = _plain_table(cells, headers, tablefmt)
        if quick is not None:
            return quick
    from tabulate import tabulate  # type: ignore[import-untyped, unused-ignore]

    wrap = list(widths) if widths and cells else None
    return str(
        tabulate(
            cells,
            headers=list(headers) if headers else (),
            tablefmt=tablefmt,
            disable_numparse=True,
            maxcolwidths=wrap,
        )
    )


def _unwrapped(cells: list[list[object]], widths: Sequence[int | None]) -> bool:
    """Whether tabulate would leave every cell as it is when wrapping the columns ``widths``
    names: each is an int or a string that fits its width (tabulate turns the strings ``True``
    and ``False`` into a bool before wrapping, so those do not count as fitting). Only a
    :func:`_plain_cell` is laid out without tabulate, and that has no blanks to re-flow."""
    wrapped = [(i, width) for i, width in enumerate(widths) if width is not None]
    for row in cells:
        for i, width in wrapped:
            if i >= len(row):
                continue
            value = row[i]
            if type(value) is int:
                value = str(value)
            elif type(value) is not str or value in ("True", "False"):
                return False
            if len(value) > width:
                return False
    return True


def _plain_cell(value: object) -> str | None:
    """A cell :func:`_plain_table` lays out as tabulate would: text that is printable ASCII
    with no surrounding blanks (tabulate strips those), or an int; None for anything else."""
    if type(value) is int:
        return str(value)
    if type(value) is str and value.isascii() and value.isprintable() and value == value.strip():
        return value
    return None


def _plain_row(row: Sequence[object], numbers: dict[int, str] | None = None) -> list[str] | None:
    """:func:`_plain_cell` of every cell of ``row``, or None when one is not plain: the
    printable-ASCII test and the blanks test run once over the row's cells joined. ``numbers``
    holds one text per int a table repeats (a count in every row)."""
    known: dict[int, str] = {} if numbers is None else numbers
    text = [
        value if type(value) is str
        else known.get(value) or known.setdefault(value, str(value)) if type(value) is int
        else None
        for value in row
    ]
    if None in text:
        return None
    cells = cast(list[str], text)
    joined = "".join(cells)
    if not (joined.isascii() and joined.isprintable()):
        return None
    # Printable ASCII strips only blanks: a cell starts or ends with one when the row, its
    # cells cut apart by a character no cell holds, does.
    cut = "\n".join(cells)
    if cut[:1] == " " or cut[-1:] == " " or " \n" in cut or "\n " in cut:
        return None
    return cells


def _plain_table(cells: list[list[object]], headers: Sequence[str], tablefmt: str) -> str | None:
    """tabulate's ``simple`` and ``plain`` layouts, for the common table whose every cell and
    header is a :func:`_plain_cell` and whose rows all have one length; None otherwise (the
    caller asks tabulate). Importing tabulate costs about as much as a whole small verify
    (docs/performance.md, "Start-up"); tests/unit/test_report_text.py checks this against
    tabulate on generated tables. Each column is as wide as its widest cell, and at least two
    more than its header; cells are left-aligned, two blanks apart, rows right-stripped; the
    ``simple`` layout rules the header off with dashes (a table without headers is ruled
    above and below)."""
    if tablefmt not in ("simple", "plain") or not cells:
        return None
    count = len(headers) if headers else len(cells[0])
    texts: list[list[str]] = []
    table_rows: list[Sequence[object]] = [headers, *cells] if headers else list(cells)
    numbers: dict[int, str] = {}
    for row in table_rows:
        text = _plain_row(row, numbers)
        if text is None or len(text) != count:
            return None
        texts.append(text)
    widths = [max(map(len, column)) for column in zip(*texts, strict=True)] if count else []
    if headers:  # at least two more than the header
        widths = [max(width, len(header) + 2) for width, header in zip(widths, texts[0], strict=True)]
    layout = "  ".join(f"{{:<{width}}}" for width in widths)
    lines = [layout.format(*row).rstrip() for row in texts]
    if tablefmt == "simple":
        rule = "  ".join("-" * width for width in widths).rstrip()
        lines = [lines[0], rule, *lines[1:]] if headers else [rule, *lines, rule]
    return "\n".join(lines)


# One look for the reports of one trace (show, replayability, replay): a head of `label  value`
# rows with lower-case labels and no header line, then titled tables, blocks separated by one
# blank line; in Markdown, `# tracekit <command>`, a field/value table, then `## <section>`s.

FINDING_HEADERS = ("kind", "line", "code", "message")
"""The columns of a one-trace report's findings table (replay reasons, notices)."""
FINDING_WIDTHS = (None, None, None, 72)
"""The message column wraps at 72 characters, as audit's does."""


def fields(rows: Sequence[tuple[str, object]]) -> str:
    """The head of a one-trace report: one ``label  value`` row per field, no header line."""
    return table(rows, tablefmt="plain")


def blocks(*parts: str) -> str:
    """A table report: its non-empty blocks separated by one blank line, ending with a newline."""
    return "\n\n".join(part for part in parts if part) + "\n"


def md_report(command: str, head: Sequence[tuple[str, object]]) -> list[str]:
    """The first lines of a one-trace report in Markdown: its title and its head as a
    field/value table, every value escaped."""
    return [f"# tracekit {command}", "", *md_table(["field", "value"], head)]


def md_section(title: str, lines: Sequence[str]) -> list[str]:
    """A ``## title`` section (our own title) followed by ``lines``; ``- none`` when empty."""
    return ["", f"## {title}", "", *(lines or ["- none"])]
