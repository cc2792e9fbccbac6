"""One file's row of ``audit DIR``'s campaign table (report/audit_render.py, ``table_chunks``):
what it shows, made from the file's report by the worker that audited it (cli/audit_io.py,
``audit_batch``), or by the renderer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

from tracekit.report.text import display_path


def yes(value: bool | None) -> str:
    if value is None:
        return "n/a"
    return "yes" if value else "no"


FILE_HEADERS = ("exit", "intact", "rerun", "episodes", "findings", "format", "file")
FILE_LINE = "{:<4}  {:<6}  {:<5}  {:>8}  {:>8}  {:<10}  {}"
"""One file per line, the path last so that long paths never push the columns apart."""
WORRYING = frozenset({"error", "warning"})
"""The severities a file's row counts."""


class FileRow(NamedTuple):
    """What a file's row of the campaign table shows."""

    exit_code: int
    intact: bool | None
    rerunnable: bool
    episodes: int
    worrying: int
    """Findings of severity warning or worse."""
    format: str
    path: str


class _Found(Protocol):
    @property
    def severity(self) -> str: ...


class Reported(Protocol):
    """What a row reads of a file's report (an ``AuditReport``: named by what it reads, so
    that this module imports no model)."""

    @property
    def exit_code(self) -> int: ...
    @property
    def intact(self) -> bool | None: ...
    @property
    def rerunnable(self) -> bool: ...
    @property
    def findings(self) -> Sequence[_Found]: ...
    @property
    def format(self) -> str: ...
    @property
    def path(self) -> str: ...


def file_row(report: Reported, episodes: int) -> FileRow:
    """The row of a file whose report is ``report``, with ``episodes`` episodes."""
    worrying = sum(1 for f in report.findings if f.severity in WORRYING)
    return FileRow(report.exit_code, report.intact, report.rerunnable, episodes, worrying, report.format, report.path)


def printed_row(report: Reported, episodes: int) -> str:
    """The row of a file as the campaign table prints it, after the newline that starts it
    (report/audit_render.py; a worker sends it so: cli/audit_io.py, ``audit_batch``)."""
    return "\n" + file_line(file_row(report, episodes))


def file_line(row: FileRow) -> str:
    """The row as the table prints it."""
    return FILE_LINE.format(
        row.exit_code, yes(row.intact), yes(row.rerunnable), row.episodes, row.worrying, row.format,
        display_path(row.path),
    )
