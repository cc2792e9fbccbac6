"""``tracekit verify``'s pipeline: the inputs -> a typed request -> every trace verified on an
executor (cli/verify_job.py, in batches by bytes: docs/cli.md, "Executors") -> the typed
campaign -> the renderer of the chosen format."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import chain
from typing import TYPE_CHECKING

import msgspec

from tracekit.cli.common import (
    EXIT_ERROR,
    TRACE_SUFFIXES,
    ExecutorName,
    ExecutorOptions,
    FindingsFormat,
    Inputs,
    absolute,
    collect_inputs,
    diag,
    fail,
    leave,
)
from tracekit.cli.verify_job import VerifyJob, verify_job
from tracekit.kernel.errors import Code, TracekitError

if TYPE_CHECKING:
    from tracekit.cli.spool import Spool
    from tracekit.report.skipped import SkippedFile
    from tracekit.report.verify_render import VerifyTrace
    from tracekit.report.verify_stream import VerifyTally

WORKER_MODULES = (
    "tracekit.cli.verify_job", "tracekit.cli.trace_input", "tracekit.formats.agentguard.verify",
    "tracekit.report.verify_render",
)
"""What every worker imports: imported once before the pool forks (kernel/executors/local.py)."""


class VerifyOptions(msgspec.Struct, frozen=True):
    """The options every trace of one run is verified with (the command line's)."""

    strict_sources: bool
    canonical: bool
    roots: tuple[tuple[str, str], ...]
    """``--trusted-root`` pairs (NAME, absolute folder)."""
    input_format: str | None
    run: ExecutorOptions
    quiet: bool


class VerifyRequest(msgspec.Struct, frozen=True):
    """The traces to verify, as jobs, with the walked bundles left out beside them."""

    work: list[VerifyJob]
    left_out: list[SkippedFile]
    inputs: Inputs
    one_trace_jobs: bool
    """Exactly one trace and local workers to spare: the trace itself is verified on several
    cores (docs/performance.md, "One trace on several cores"); the report is the serial one."""


class VerifyCampaign(msgspec.Struct, frozen=True):
    """Every trace's typed report spooled in input order, their counts, the files left out."""

    spool: Spool[VerifyTrace]
    tally: VerifyTally
    left_out: list[SkippedFile]


def request(files: list[str], named: set[str], left_out: list[SkippedFile], inputs: Inputs,
            opts: VerifyOptions) -> VerifyRequest:
    """One job per trace file."""
    run = opts.run
    one = len(files) == 1 and run.jobs > 1 and run.name is ExecutorName.local
    work = [
        VerifyJob(p, absolute(p), opts.strict_sources, opts.canonical, opts.roots, opts.input_format,
                  p in named, run.jobs if one else 1)
        for p in files
    ]
    return VerifyRequest(work, left_out, inputs, one)


def inputs_of(paths: list[str]) -> Inputs:
    """The files of ``paths`` (folders walked for traces and bundles); exits 2 when none."""
    inputs = collect_inputs(paths, (*TRACE_SUFFIXES, ".tkb"))
    if not inputs.files:
        inputs.note()
        fail(Code.CLI_NO_INPUT)
    return inputs


def _weight(job: VerifyJob) -> int:
    from tracekit.kernel.executors.batches import file_bytes

    return file_bytes(job.source)


@contextmanager
def verified(req: VerifyRequest, opts: VerifyOptions) -> Iterator[VerifyCampaign]:
    """Verify every job on the executor, spooling each trace's report (memory flat in the
    campaign's size); the campaign, whose spool is closed when the block ends. Exits 2 when the
    executor is unavailable or no file is a trace."""
    from tracekit.cli.progress import tracked
    from tracekit.cli.spool import Spool
    from tracekit.report.skipped import SkippedFile
    from tracekit.report.verify_render import VerifyTrace
    from tracekit.report.verify_stream import VerifyTally

    work = req.work
    chosen = opts.run.make(1 if req.one_trace_jobs else len(work), stdin="-" in req.inputs.files,
                           preload=WORKER_MODULES)
    spool: Spool[VerifyTrace] = Spool(VerifyTrace)
    tally = VerifyTally()
    skipped: list[SkippedFile] = []
    try:
        done = tracked(chosen.map_ordered(verify_job, work, _weight), len(work), "verify", opts.quiet)
        for job, trace in zip(work, done, strict=True):
            if trace is None:
                skipped.append(SkippedFile(job.path, Code.FORMAT_UNKNOWN.value))
            else:
                spool.add(trace)
                tally.add(trace)
    except TracekitError as error:
        spool.close()
        diag(error.finding)
        leave(EXIT_ERROR)
    try:
        if not tally.total:
            req.inputs.note()
            fail(Code.CLI_NO_INPUT)
        yield VerifyCampaign(spool, tally, req.left_out + skipped)
    finally:
        spool.close()


def render(campaign: VerifyCampaign, format: FindingsFormat) -> Iterable[str]:
    """The report of ``campaign`` in ``format``, as chunks for the sink: JSON and the table
    stream from the spool (tracekit/report/verify_stream.py); the other formats take the list."""
    from tracekit.report import findings
    from tracekit.report.events import render_events
    from tracekit.report.verify_render import (
        as_findings,
        render_markdown,
        skipped_markdown,
        skipped_table,
    )
    from tracekit.report.verify_stream import json_chunks, table_chunks

    spool, left_out = campaign.spool, campaign.left_out
    if format is FindingsFormat.json:
        return json_chunks(spool.read(), campaign.tally, left_out)
    if format is FindingsFormat.table:
        return chain(table_chunks(spool.read, campaign.tally), [skipped_table(left_out)])
    traces = list(spool.read())
    pairs = [(s.trace, s.code) for s in left_out]
    renderers: dict[FindingsFormat, Callable[[list[VerifyTrace]], str]] = {
        FindingsFormat.markdown: lambda t: render_markdown(t) + skipped_markdown(left_out),
        FindingsFormat.junit: lambda t: findings.render_junit("verify", as_findings(t), pairs),
        FindingsFormat.sarif: lambda t: findings.render_sarif("verify", as_findings(t), pairs),
        FindingsFormat.ocsf: lambda t: render_events("ocsf", "verify", as_findings(t)),
        FindingsFormat.otlp: lambda t: render_events("otlp", "verify", as_findings(t)),
    }
    return [renderers[format](traces)]


def summary(campaign: VerifyCampaign) -> str:
    """The one-line summary for stderr."""
    from tracekit.report.verify_render import summary_text

    left_out = campaign.left_out
    note = f"; {len(left_out)} non-trace file(s) skipped" if left_out else ""
    return summary_text(campaign.tally.summary()) + note
