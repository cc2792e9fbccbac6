"""``tracekit audit``'s pipeline: a typed request -> the files audited on an executor -> a typed
campaign (the spooled reports, the tally's summary, the files left out) -> the renderer.

The per-file work runs in batches (docs/cli.md, "Executors"): a worker audits a batch of files
and sends back only each report's spool block and the batch's tally (audit_io.audit_batch), so
the parent merges counters and appends blocks; it never decodes a report until it renders. When
the campaign table is all that is printed, a worker sends each file's row as printed instead. A
file's episodes are never all held: the worker encodes each as it is made, and a file's lines
past a bound wait in a file of the run's private folder, which the block names
(cli/audit_spool.py); the renderer reads them back one at a time.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING

from tracekit.cli.audit_io import AuditBatch, AuditJob, AuditJobs, AuditOptions, audit_batch
from tracekit.cli.common import ExecutorOptions, FindingsFormat, Inputs, fail
from tracekit.kernel.errors import Code, ExitCode

if TYPE_CHECKING:
    from tracekit.cli.audit_spool import AuditSpool
    from tracekit.cli.spool import Lines
    from tracekit.judging.audit.campaign import CampaignSummary
    from tracekit.report.skipped import SkippedFile

WORKER_MODULES = (
    "tracekit.cli.audit_io",
    "tracekit.cli.audit_spool",
    "tracekit.cli.trace_input",
    "tracekit.judging.audit",
    "tracekit.judging.audit.engine",
    "tracekit.judging.audit.campaign",
    "tracekit.formats.agentguard.verify",
)
"""What every worker imports: imported once before the pool forks (kernel/executors/local.py)."""


@dataclass(frozen=True, slots=True)
class AuditRequest:
    """An audit run as the command line asked for it."""

    work: AuditJobs
    walked: Inputs
    """Only its count of folders too deep to search."""
    run: ExecutorOptions
    format: FindingsFormat
    verbose: bool
    quiet: bool


@dataclass(frozen=True, slots=True)
class AuditCampaign:
    """The audited campaign: every report spooled in input order, the summary, the walked files
    that are not traces."""

    spool: AuditSpool
    summary: CampaignSummary
    exit_code: ExitCode
    left_out: list[SkippedFile]
    rows: Lines | None = None
    """The campaign table's rows as printed, when they are all it prints (the reports were
    then not sent: the spool holds none)."""


def weight(job: AuditJob) -> int:
    """A job's bytes, for cutting batches (kernel/executors/batches.py)."""
    from tracekit.kernel.executors.batches import file_bytes

    return file_bytes(job.source)


@contextmanager
def audited(request: AuditRequest) -> Iterator[AuditCampaign]:
    """Audit every file of ``request`` on its executor; the campaign, whose spool (and the
    run's folder of spilled episode lines) is removed when the block ends. Exits 2
    (``cli.no_input``) when no file is a trace."""
    from functools import partial

    from tracekit.cli.audit_spool import AuditSpool, SpillFolder
    from tracekit.cli.progress import tracked
    from tracekit.cli.spool import PIECE, Lines
    from tracekit.judging.audit.campaign import Tally
    from tracekit.report.skipped import SkippedFile

    work = request.work
    chosen = request.run.make(len(work), stdin="-" in work.files, preload=WORKER_MODULES)
    folder = SpillFolder.for_run(chosen)
    spool = AuditSpool(folder)
    # The campaign table without --verbose prints each file's row alone: workers send those
    # rows, not the reports, and they are held in memory up to PIECE bytes (then in a temporary
    # file), so that memory stays flat in the campaign's size (docs/performance.md, "Round 9").
    table = Lines(PIECE) if request.format is FindingsFormat.table and not request.verbose and len(work) > 1 else None
    tally = Tally()
    left_out: list[SkippedFile] = []
    first: bytes | None = None  # with the table: the first trace's block, should it be the only one
    try:
        done = 0  # batches come back in input order: work[done] is the next batch's first file
        batches = chosen.map_batches(partial(audit_batch, spill=folder, rows=table is not None), work, weight)
        for batch in tracked(batches, len(work), "audit", request.quiet, _files):
            tally.merge(batch.tally)
            first = batch.first if first is None else first
            rows: list[bytes] = []
            for line in batch.lines:
                if line is None:  # a walked .json no format accepts (docs/cli.md, "Inputs and folders")
                    left_out.append(SkippedFile(work[done].path, Code.FORMAT_UNKNOWN.value))
                elif table is None:
                    spool.add(line)
                else:
                    rows.append(line)
                done += 1
            if table is not None:
                table.add_bytes(b"".join(rows))
            batch.lines.clear()  # spooled: not held while the campaign is rendered
            line = None
        if not tally.total:
            fail(Code.CLI_NO_INPUT)
        shown = table
        if tally.total == 1 and first is not None:  # one trace after all: its block, not a table
            spool.add(first)
            shown = None
        yield AuditCampaign(spool, tally.summary(len(left_out)), tally.exit, left_out, shown)
    finally:
        spool.close()
        if table is not None:
            table.close()
        folder.remove()


def _files(batch: AuditBatch) -> int:
    return len(batch.lines)


def render(campaign: AuditCampaign, format: FindingsFormat, verbose: bool) -> Iterable[str]:
    """The report of ``campaign`` in ``format``, as chunks for the sink."""
    from tracekit.report import audit_render
    from tracekit.report.verify_render import skipped_markdown, skipped_table

    spool, summary, left_out = campaign.spool, campaign.summary, campaign.left_out
    if format is FindingsFormat.json:
        return audit_render.json_chunks(spool.read(), summary, campaign.exit_code, left_out)
    from tracekit.report.events import EVENT_FORMATS, render_events

    if format in EVENT_FORMATS:
        wheres = [[f.where for f in t.findings] for t in spool.read()]
        return [render_events(format, "audit", audit_render.as_findings(spool.read()), wheres)]
    if format in (FindingsFormat.junit, FindingsFormat.sarif):
        from tracekit.report import findings

        render_findings = findings.render_junit if format is FindingsFormat.junit else findings.render_sarif
        pairs = [(s.trace, s.code) for s in left_out]
        return [render_findings("audit", audit_render.as_findings(spool.read()), pairs)]
    if format is FindingsFormat.markdown:
        return chain(audit_render.markdown_chunks(spool.read(), summary), [skipped_markdown(left_out)])
    rows = None if campaign.rows is None else campaign.rows.text()
    return chain(audit_render.table_chunks(spool.read(), summary, verbose, rows), [skipped_table(left_out)])


def options_request(
    opts: AuditOptions, run: ExecutorOptions, paths: list[str], format: FindingsFormat, verbose: bool, quiet: bool
) -> AuditRequest:
    """The request for ``paths``: one job per file, each file once; exits 2 when there is none."""
    from tracekit.cli.audit_io import jobs_for

    work, too_deep = jobs_for(paths, opts)
    walked = Inputs([], too_deep)
    if not work:
        walked.note()
        fail(Code.CLI_NO_INPUT)
    return AuditRequest(work, walked, run, format, verbose, quiet)
