"""``tracekit verify`` on a campaign, rendered from a spool without holding it (docs/cli.md,
"Executors"; docs/performance.md, "Campaigns"): the JSON document and the table in chunks,
byte-identical to :func:`~tracekit.report.verify_render.render_json` and
:func:`~tracekit.report.verify_render.render_table` of the whole list.

The table's columns are as wide as their widest cell over the whole campaign. Up to
:data:`CHUNK_ROWS` rows it is one table as before; past that, a first pass over the spool takes
each chunk's column widths from its dashed rule, and the second renders each chunk with one
extra row of exactly those widths, which is then dropped, so every chunk is laid out as the
whole table would be.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from typing import TYPE_CHECKING

import msgspec

from tracekit import REPORT_VERSION
from tracekit.kernel.errors import worst
from tracekit.report.jsonout import dumps_chunks
from tracekit.report.text import table
from tracekit.report.verify_render import VerifySummary, VerifyTrace, detail_rows, trace_rows

if TYPE_CHECKING:
    from tracekit.report.skipped import SkippedFile

CHUNK_ROWS = 2000
"""Rows rendered at once; a campaign's table is held at most this many rows at a time."""
TRACE_HEADERS = ("trace", "format", "status", "exit", "trace id", "version", "events")
DETAIL_HEADERS = ("trace", "line", "severity", "code", "message")
Rows = Callable[[], Iterator[list[object]]]


class VerifyTally:
    """Counts by status and the worst exit code, one trace at a time."""

    def __init__(self) -> None:
        self.total = 0
        self.exit_code = 0
        self.details = 0
        """Findings above informational (rows of the table's second part)."""
        self._status: Counter[str] = Counter()

    def add(self, trace: VerifyTrace) -> None:
        self.total += 1
        self.exit_code = int(worst(self.exit_code, trace.exit_code))
        self._status[trace.status] += 1
        self.details += sum(1 for f in trace.findings if f.severity != "info")

    def merge(self, other: VerifyTally) -> None:
        """Add the counts of ``other``, a tally of the traces that came after this one's (a
        worker's batch, docs/cli.md "Executors"): the tally of both runs of traces, in order."""
        self.total += other.total
        self.exit_code = int(worst(self.exit_code, other.exit_code))
        self.details += other.details
        self._status.update(other._status)

    def summary(self) -> VerifySummary:
        s = self._status
        return VerifySummary(self.total, s["intact"], s["source_changed"], s["source_missing"], s["no_integrity"],
                             s["invalid"])


def json_chunks(traces: Iterable[VerifyTrace], tally: VerifyTally, skipped: Sequence[SkippedFile] = ()) -> Iterator[str]:
    """``render_json(traces, skipped)`` in chunks, streaming ``traces``."""
    head: dict[str, object] = {
        "report_version": REPORT_VERSION,
        "exit_code": tally.exit_code,
        "summary": msgspec.to_builtins(tally.summary()),
    }
    if skipped:
        head["skipped"] = [{"trace": s.trace, "code": s.code} for s in skipped]
    return dumps_chunks(head, {"traces": (msgspec.to_builtins(t) for t in traces)})


def table_chunks(read: Callable[[], Iterator[VerifyTrace]], tally: VerifyTally) -> Iterator[str]:
    """``render_table`` of the traces ``read()`` yields (it is called once per pass)."""
    yield from _table(lambda: trace_rows(read()), TRACE_HEADERS, tally.total)
    if tally.details:
        yield "\n\n"
        yield from _table(lambda: detail_rows(read()), DETAIL_HEADERS, tally.details)
    yield "\n"


def _table(rows: Rows, headers: Sequence[str], count: int) -> Iterator[str]:
    if count <= CHUNK_ROWS:
        yield table(list(rows()), headers)
        return
    widths: list[int] = []
    for chunk in _chunks(rows()):
        rule = table(chunk, headers).split("\n")[1]
        found = [len(dashes) for dashes in rule.split("  ")]
        widths = found if not widths else [max(a, b) for a, b in zip(widths, found, strict=True)]
    ruler = ["x" * width for width in widths]
    for number, chunk in enumerate(_chunks(rows())):
        lines = table([*chunk, ruler], headers).split("\n")[:-1]
        yield "\n".join(lines) if number == 0 else "\n" + "\n".join(lines[2:])


def _chunks(rows: Iterator[list[object]]) -> Iterator[list[list[object]]]:
    while chunk := list(islice(rows, CHUNK_ROWS)):
        yield chunk
