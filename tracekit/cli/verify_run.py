"""``tracekit verify``'s pipeline: the inputs -> a typed request -> every trace verified on an
executor (cli/verify_job.py, in batches by bytes: docs/cli.md, "Executors") -> the typed
campaign -> the renderer of the chosen format."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import chain
from typing import TYPE_CHECKING, NoReturn

import msgspec

from tracekit.cli.common import (
    EXIT_ERROR,
    TRACE_SUFFIXES,
    ExecutorName,
    ExecutorOptions,
    FileJobs,
    FindingsFormat,
    Inputs,
    absolute,
    collect_inputs,
    diag,
    fail,
    leave,
)
from tracekit.cli.verify_job import VerifyBatch, VerifyJob, verify_batch
from tracekit.kernel.errors import Code, TracekitError

if TYPE_CHECKING:
    from tracekit.cli.spool import Spool
    from tracekit.report.skipped import SkippedFile
    from tracekit.report.verify_render import VerifyTrace
    from tracekit.report.verify_stream import VerifyTally

WORKER_MODULES = (
    "tracekit.cli.verify_job", "tracekit.cli.trace_input", "tracekit.formats.agentguard.verify",
    "tracekit.report.verify_render", "tracekit.report.verify_stream", "tracekit.cli.sniff",
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

    work: Sequence[VerifyJob]
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
            opts: VerifyOptions, sniff_walked: bool = False) -> VerifyRequest:
    """One job per trace file; with ``sniff_walked``, the workers leave out walked files that
    are sealed bundles (docs/performance.md, "Campaigns")."""
    run = opts.run
    one = len(files) == 1 and run.jobs > 1 and run.name is ExecutorName.local
    return VerifyRequest(Jobs(files, named, opts, run.jobs if one else 1, sniff_walked), left_out, inputs, one)


class Jobs(FileJobs[VerifyJob]):
    """Each file's :class:`VerifyJob`, made when it is read."""

    def __init__(self, files: list[str], named: set[str], opts: VerifyOptions, jobs: int, sniff: bool) -> None:
        super().__init__(files)
        self._named, self._opts, self._jobs, self._sniff = named, opts, jobs, sniff

    def job(self, path: str) -> VerifyJob:
        opts, named = self._opts, path in self._named
        return VerifyJob(path, absolute(path), opts.strict_sources, opts.canonical, opts.roots, opts.input_format,
                         named, self._jobs, self._sniff and not named)


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
    """Verify every job on the executor in batches (verify_job.verify_batch: the workers send
    back spool lines and a tally), spooling each trace's report (memory flat in the campaign's
    size); the campaign, whose spool is closed when the block ends. Exits 2 when the executor is
    unavailable or no file is a trace."""
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
    bundles: list[SkippedFile] = []
    skipped: list[SkippedFile] = []
    try:
        done = 0  # batches come back in input order: work[done] is the next batch's first file
        for batch in tracked(chosen.map_batches(verify_batch, work, _weight), len(work), "verify", opts.quiet, _files):
            tally.merge(batch.tally)
            spool.add_lines([line for line in batch.lines if isinstance(line, bytes)])
            for line in batch.lines:
                if isinstance(line, str):
                    kept = bundles if line == Code.CLI_BUNDLE_INPUT.value else skipped
                    kept.append(SkippedFile(work[done].path, line))
                done += 1
    except TracekitError as error:
        spool.close()
        diag(error.finding)
        leave(EXIT_ERROR)
    try:
        if not tally.total:
            _no_trace(req, bundles)
        yield VerifyCampaign(spool, tally, req.left_out + bundles + skipped)
    finally:
        spool.close()


def _files(batch: VerifyBatch) -> int:
    return len(batch.lines)


def _no_trace(req: VerifyRequest, bundles: list[SkippedFile]) -> NoReturn:
    """No file was a trace: a folder of sealed bundles alone, which the workers found, is
    verified as bundles (raises :class:`AllBundles`); anything else exits 2 (``cli.no_input``)."""
    if bundles and len(bundles) == len(req.work) and not req.left_out:
        raise AllBundles()
    req.inputs.note()
    fail(Code.CLI_NO_INPUT)


class AllBundles(Exception):  # noqa: N818 - a signal to the command, not an error
    """Every file of the request was a sealed bundle: the command verifies them as bundles."""


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
