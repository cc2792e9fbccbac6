"""One file's row of ``audit DIR``'s campaign table (report/audit_render.py, ``table_chunks``):
what it shows, made from a whole report or read from the spool for those fields alone
(cli/audit_spool.py, ``AuditSpool.rows``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from tracekit.report.text import display_path

if TYPE_CHECKING:
    from tracekit.judging.audit.model import AuditReport


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


def file_row(trace: AuditReport) -> FileRow:
    worrying = sum(1 for f in trace.findings if f.severity in WORRYING)
    return FileRow(trace.exit_code, trace.intact, trace.rerunnable, len(trace.episodes), worrying, trace.format,
                   trace.path)


def file_line(row: FileRow) -> str:
    """The row as the table prints it."""
    return FILE_LINE.format(
        row.exit_code, yes(row.intact), yes(row.rerunnable), row.episodes, row.worrying, row.format,
        display_path(row.path),
    )
