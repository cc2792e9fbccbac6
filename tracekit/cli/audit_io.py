"""File access for ``tracekit audit``: detect a file's format and read it through the one
bounded reader every command shares (tracekit/cli/trace_input.py), and hand the data to the pure
audit engine (tracekit/judging/audit/engine.py, tracekit/judging/audit/imported.py).

Runs in worker processes with ``--jobs``, so a job is plain data and the result is the trace's
:class:`~tracekit.judging.audit.model.AuditReport` (a msgspec Struct: it pickles). Nothing here raises on
bad input: an unreadable file becomes a report that exits 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from tracekit.cli.common import FileJobs, absolute

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from tracekit.cli.audit_spool import EpisodeCount, EpisodeLines, SpillFolder
    from tracekit.cli.trace_input import Opened
    from tracekit.formats.base import EpisodeStream
    from tracekit.judging.audit.campaign import Tally
    from tracekit.judging.audit.model import AuditReport, EpisodeAudit, Format
    from tracekit.kernel.errors import Finding
    from tracekit.kernel.evidence import Episode

    EpisodeEach = Callable[[Any, Episode, EpisodeAudit], None]
    """What :func:`audit_each` hands each episode to: its key, the episode and its audit."""
    EpisodeSink = EpisodeLines | EpisodeCount
    """Where an imported file's episode audits go as they are made: encoded, or only counted."""

STDIN = "-"
Audited = tuple["AuditReport", list[int] | None]
"""A file's report and, when its episodes went to a sink, the order to put them in."""


@dataclass(frozen=True, slots=True)
class AuditOptions:
    """What every file of one audit run is audited with: plain data for any executor."""

    strict_sources: bool
    roots: tuple[tuple[str, str], ...]
    """``--trusted-root`` pairs (NAME, absolute folder)."""
    scenario: bytes | None
    """The ``--scenario`` YAML, validated once by the command."""
    input_format: str | None = None
    """``--input-format``: every file read as this format (no detection)."""
    strict: bool = False
    """``--strict``: harness traces judged in strict mode too (docs/cli.md, "Verdicts and modes")."""
    episode: str | None = None
    """``--episode``: audit only the episode of this id (docs/cli.md, "Episode ids")."""


class AuditJob(msgspec.Struct, frozen=True):
    """One file to audit: plain data for any executor (a Struct: pickled in C, by the parent,
    once per file of a campaign)."""

    path: str
    """As the user gave it: the report shows this."""
    source: str
    """Absolute, made so where the user ran tracekit (a worker may run in another folder, or on
    another machine with a shared filesystem); ``-`` for standard input."""
    named: bool
    """Named on the command line (audited whatever it is), not found by walking a folder."""
    opts: AuditOptions


def audit_file(job: AuditJob) -> AuditReport | None:
    """Audit one file; None when a file found by walking a folder is not a trace at all. The
    file is read from its absolute path (a worker may run in another folder); the report names
    it as the user gave it."""
    result = _audit(job.source, job.named, job.opts)
    return None if result is None else msgspec.structs.replace(result[0], path=job.path)


def audit_each(job: AuditJob, each: EpisodeEach) -> AuditReport | None:
    """:func:`audit_file`, with an imported file's episodes handed to ``each`` as they are read,
    each with its audit (the file's key for it, the episode, its audit), in the one read the
    audit makes; the report then holds no episodes (docs/formats.md, "Streaming episodes").
    An AgentGuard or harness trace is audited as :func:`audit_file` does, and ``each`` not called."""
    result = _audit(job.source, job.named, job.opts, each=each)
    return None if result is None else msgspec.structs.replace(result[0], path=job.path)


def jobs_for(paths: list[str], opts: AuditOptions) -> tuple[AuditJobs, int]:
    """One job per file (files named on the command line are ``named``), each file once
    (overlapping inputs, docs/cli.md "Inputs and folders"); and the folders too deep. The walk
    is verify's (``collect_inputs``): a campaign holds one string per file, and no file costs
    a ``realpath`` (docs/performance.md, "Campaigns")."""
    from tracekit.cli.common import TRACE_SUFFIXES, collect_inputs

    found = collect_inputs(paths, TRACE_SUFFIXES)
    return AuditJobs(found.files, set(paths), opts), found.too_deep  # a folder names no file: as verify


class AuditJobs(FileJobs[AuditJob]):
    """Each file's :class:`AuditJob`, made when it is read."""

    def __init__(self, files: list[str], named: set[str], opts: AuditOptions) -> None:
        super().__init__(files)
        self._named, self._opts = named, opts

    def job(self, path: str) -> AuditJob:
        return AuditJob(path, absolute(path), path in self._named, self._opts)


@dataclass(frozen=True, slots=True)
class AuditBatch:
    """What a worker sends back for a batch of files: only what the parent keeps (docs/cli.md,
    "Executors"). Each file's report travels as its spool block (cli/audit_spool.py: the report
    without its episodes, then its episode lines or the name of the file holding them), or,
    when the parent asked only for the campaign table's ``rows``, as its row of that table
    (``"\\n"`` then the row, UTF-8); None for a walked file that is not a trace. The campaign
    counts travel as one tally to merge."""

    lines: list[bytes | None]
    tally: Tally
    first: bytes | None = None
    """With ``rows``: the spool block of the batch's first trace, the one report a campaign
    that turns out to hold a single trace prints (its block, not a table)."""


def audit_batch(jobs: list[AuditJob], spill: SpillFolder | None = None, rows: bool = False) -> AuditBatch:
    """Audit a batch of files in order: each report with its episodes
    (:func:`~tracekit.judging.audit.model.with_episodes`) as a spool block, and counted. An
    imported file's episodes are encoded one at a time as they are audited, never all held;
    past what is left of :data:`~tracekit.cli.audit_spool.INLINE` they stay in a file of
    ``spill``, the run's folder, which the block names. With ``rows`` (the campaign table is
    all the parent prints), each file's row instead, episodes only counted, and the block of
    the first trace alone."""
    from tracekit.cli.audit_spool import (
        INLINE,
        EpisodeCount,
        EpisodeLines,
        SpillFolder,
        SpooledAudit,
        block,
    )
    from tracekit.judging.audit.campaign import Tally
    from tracekit.judging.audit.model import with_episodes
    from tracekit.kernel.errors import Code, TracekitError, finding
    from tracekit.report.audit_rows import printed_row

    folder = spill if spill is not None else SpillFolder(owner=-1)  # a folder never made
    tally = Tally()
    lines: list[bytes | None] = []
    first: bytes | None = None
    inline = INLINE
    for job in jobs:
        sink: Callable[[], EpisodeLines | EpisodeCount] = partial(EpisodeLines, folder) if not rows or first is None else EpisodeCount
        episodes = sink()
        try:
            audited = _audit(job.source, job.named, job.opts, episodes)
            if audited is None:
                lines.append(None)
                continue
            report, order = audited
            report = msgspec.structs.replace(report, path=job.path)
            if order is None:  # not an imported file's whole stream: one episode at most
                if len(episodes):  # an imported stream that failed half-way: not the report's
                    episodes.discard()
                    episodes = sink()
                for episode in with_episodes(report).episodes:
                    episodes.add(episode)
                order = list(range(len(episodes)))
            count = len(order)
            if job.opts.episode is not None and not only_episode(report, job.opts.episode, count):
                raise TracekitError(finding(Code.FINDINGS_NO_EPISODE))
            tally.add(report, count)
            made = None
            if isinstance(episodes, EpisodeLines):
                pairs = episodes.pairs
                body, name = episodes.finish(order, inline)
                inline -= len(body) + sum(len(p) for p in pairs)
                made = block(SpooledAudit(report, count, len(body), name, pairs), body)
        finally:
            episodes.discard()
        if rows:
            first = made if first is None else first
            made = printed_row(report, count).encode("utf-8", "surrogatepass")
        lines.append(made)
    return AuditBatch(lines, tally, first)


def audit_job(job: AuditJob) -> dict[str, Any] | None:
    """:func:`audit_file` as its JSON value (lists, not tuples): the document `audit -f json`
    prints for the trace, which the campaign store keeps as rows and JSON columns
    (tracekit/store/ingest.py)."""
    import msgspec

    result = audit_file(job)
    return None if result is None else msgspec.json.decode(msgspec.json.encode(result))


def _audit(
    path: str, named: bool, opts: AuditOptions, sink: EpisodeSink | None = None, each: EpisodeEach | None = None
) -> Audited | None:
    """docs/formats.md, "Using it from the command line": one detection for every command. With
    ``sink``, an imported file's episode audits go there as they are made, and the report comes
    without them, with the order to put them in; else that order is None (the report holds
    its episodes, or is not an imported file's whole stream)."""
    from tracekit.cli.trace_input import opened, skipped, unknown
    from tracekit.judging.audit import unreadable
    from tracekit.kernel.errors import TracekitError

    try:
        with opened(path, opts.input_format) as source:
            if source.format is None:
                if skipped(path, named):
                    return None
                return unreadable(path, "unknown", unknown().finding), None
            order = None
            if source.format == "agentguard":
                report = _agentguard(path, source, opts)
            elif source.format == "harness":
                report = _harness(path, source, opts)
            else:
                report, order = _imported(path, source, source.format, opts, sink, each)
            return _with_loss(report, source.forced_loss()), order
    except TracekitError as error:
        return unreadable(path, "unknown", error.finding), None


def _with_loss(report: AuditReport, loss: Finding | None) -> AuditReport:
    """``report`` with the ``format.forced_other`` warning, when ``--input-format`` read the file
    as another format than its own (exit at least 1: docs/cli.md, "Inputs and folders")."""
    import msgspec

    from tracekit.judging.audit.model import located
    from tracekit.kernel.errors import worst

    if loss is None:
        return report
    return msgspec.structs.replace(
        report, findings=(*report.findings, located(loss)), exit_code=int(worst(report.exit_code, 1))
    )


def _agentguard(path: str, source: Opened, opts: AuditOptions) -> AuditReport:
    from tracekit.cli.trace_input import verify_opened
    from tracekit.formats.agentguard.verify import VerifyOptions
    from tracekit.judging.audit import audit_agentguard
    from tracekit.judging.audit.engine import AgentGuardFold
    from tracekit.kernel import collector

    # One pass: the verifier hands each event, once it passed its checks, to the audit's fold,
    # which keeps only what the audit's steps read (docs/audit.md, "One pass").
    events = AgentGuardFold()
    options = VerifyOptions(
        observe=events.add,
        strict_sources=opts.strict_sources,
        trusted_roots={k: Path(v) for k, v in opts.roots},
    )
    with collector.paused():  # one pause over the walk and the audit (tracekit/kernel/collector.py)
        verified = verify_opened(path, source, options)
        return audit_agentguard(
            verified,
            strict_sources=opts.strict_sources,
            scenario_given=opts.scenario is not None,
            events=events,
        )


def _harness(path: str, source: Opened, opts: AuditOptions) -> AuditReport:
    from tracekit.cli.trace_input import read_whole
    from tracekit.judging.audit import audit_harness, unreadable
    from tracekit.judging.harness.scenario import parse_scenario
    from tracekit.kernel.errors import Code, TracekitError
    from tracekit.kernel.limits import HARNESS_LIMITS

    try:
        body = read_whole(source, HARNESS_LIMITS.total_bytes, Code.HARNESS_TRACE_TOO_LARGE)
    except TracekitError as error:
        return unreadable(path, "harness", error.finding)
    scenario = parse_scenario(opts.scenario) if opts.scenario is not None else None
    return audit_harness(path, body, scenario, strict=opts.strict)


def _imported(
    path: str, source: Opened, fmt: str, opts: AuditOptions, sink: EpisodeSink | None, each: EpisodeEach | None = None
) -> tuple[AuditReport, list[int] | None]:
    from tracekit.cli.trace_input import consume_evidence
    from tracekit.judging.audit import unreadable
    from tracekit.judging.audit.imported import audit_evidence, audit_stream
    from tracekit.judging.harness.model import judging_strict
    from tracekit.judging.harness.scenario import parse_scenario
    from tracekit.kernel.episode_id import names
    from tracekit.kernel.errors import TracekitError

    scenario = parse_scenario(opts.scenario) if opts.scenario is not None else None

    def audited(stream: EpisodeStream) -> tuple[AuditReport, list[int] | None]:
        add: Callable[[EpisodeAudit], None] | None = None if sink is None else sink.add
        if each is not None:
            stream, add = _teed(stream, each)
        if opts.episode is not None:
            wanted = opts.episode
            stream = stream.only(lambda e: names(wanted, e.id))
        strict = judging_strict(opts.strict, stream.format)
        if add is None:
            return audit_evidence(path, stream, scenario, strict=strict), None
        return audit_stream(path, stream, scenario, strict, add)

    try:
        return consume_evidence(path, source, audited)
    except TracekitError as error:
        return unreadable(path, _FORMATS.get(fmt, "unknown"), error.finding), None


def _teed(stream: EpisodeStream, each: EpisodeEach) -> tuple[EpisodeStream, Callable[[EpisodeAudit], None]]:
    """``stream`` as it was, and an audit sink that hands each episode's audit to ``each`` with
    the pair it was made of (the last the stream handed over: the audit takes them one at a
    time, after any ``--episode`` choice, which comes after this)."""
    last: list[tuple[Any, Episode]] = []

    def pairs() -> Iterator[tuple[Any, Episode]]:
        for pair in stream.pairs:
            last[:] = [pair]
            yield pair
        last.clear()

    def add(audit: EpisodeAudit) -> None:
        key, episode = last.pop()
        each(key, episode, audit)

    return msgspec.structs.replace(stream, pairs=pairs()), add


def only_episode(report: AuditReport, wanted: str, episodes: int | None = None) -> bool:
    """Whether ``report`` (with its episodes: ``with_episodes``) holds the episode ``--episode
    wanted`` names (docs/cli.md, "Episode ids"). An imported file's episodes were chosen as it
    was read (:func:`_imported`); an unreadable or not intact trace is reported as it is, since
    its exit code says why it shows no episode. ``episodes``: their count, when the report
    was spooled without them."""
    from tracekit.kernel.episode_id import UNNAMED, names

    if not report.readable or report.intact is False:
        return True
    if report.format in ("agentguard", "harness"):
        return names(wanted, report.trace_id or UNNAMED)
    return bool(report.episodes if episodes is None else episodes)


_FORMATS: dict[str, Format] = {"inspect": "inspect", "otel": "otel", "agentdojo": "agentdojo", "garak": "garak",
    "claude_code": "claude_code",
    "codex": "codex",
    "atif": "atif",
}
