"""``tracekit check`` on every format (docs/findings.md, "Command line"): one file's episodes,
campaigns over files and folders, and suite mode's pairing of scenarios with folders of
third-party logs. The harness path stays in :mod:`tracekit.cli.check_cmd`."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import msgspec
import typer

from tracekit.cli.check_parts import (
    CheckOptions,
    counts_line,
    mismatch,
    or_exit,
    refusal,
    strict_hint,
)
from tracekit.cli.common import EXIT_ERROR, EXIT_FAIL, EXIT_OK, diag, fail, refuse_folder, worst
from tracekit.cli.sink import emit
from tracekit.kernel.episode_id import episode_label
from tracekit.kernel.errors import Code, Finding, TracekitError, finding
from tracekit.report.jsonout import set_head

if TYPE_CHECKING:
    from tracekit.cli.findings_io import CheckJob, CheckPart
    from tracekit.formats.base import EpisodeStream
    from tracekit.judging.findings.judge import EpisodeVerdict
    from tracekit.judging.harness.scenario import Scenario
    from tracekit.kernel.evidence import Episode, EvidenceFile
    from tracekit.report.findings_render import CampaignReport, EpisodeEntry, FindingsReport

T = TypeVar("T")
R = TypeVar("R")

WORKER_MODULES = (
    "tracekit.cli.check_io", "tracekit.cli.findings_io", "tracekit.formats.registry", "tracekit.judging.findings.judge",
    "tracekit.judging.findings.campaign", "tracekit.judging.harness",
)
"""What a worker judging check's files imports (forked with them loaded: executors/local.py)."""


def entry(episode: Episode, judged: EpisodeVerdict | Code) -> EpisodeEntry:
    """One episode's row, under the id ``show`` and ``audit`` print for it
    (:func:`tracekit.kernel.episode_id.episode_label`)."""
    from tracekit.report.findings_render import EpisodeEntry

    label = episode_label(episode.id)
    if isinstance(judged, Code):
        return EpisodeEntry(label, "error", (), (), judged.value)
    made = EpisodeEntry.of(judged)  # a verdict of judge_episode is under that id already
    return made if made.episode == label else msgspec.structs.replace(made, episode=label)


def selected(episode: Episode, wanted: str | None) -> bool:
    """Whether ``--episode`` names this episode: by the id reports print, or the format's own."""
    from tracekit.kernel.episode_id import names

    return wanted is None or names(wanted, episode.id)


def evidence_one(scenario_path: str, trace_path: str, opts: CheckOptions) -> int:
    """One file of any format: one row per episode (docs/findings.md, "Command line")."""
    from tracekit import REPORT_VERSION
    from tracekit.cli import check_io, findings_io
    from tracekit.formats.base import in_order
    from tracekit.formats.reading import consume_file
    from tracekit.judging.harness import gates, parse_scenario
    from tracekit.judging.harness.model import judging_strict
    from tracekit.report.findings_render import FindingsReport

    refuse_folder(scenario_path)
    refuse_folder(trace_path)
    scenario = or_exit(
        scenario_path, lambda: parse_scenario(check_io.read_scenario(scenario_path)),
        refusal(opts, scenario_path, trace_path),
    )
    def judged(stream: EpisodeStream) -> tuple[EpisodeStream, bool, tuple[EpisodeEntry, ...]]:
        strict = judging_strict(opts.strict, stream.format)
        chosen = stream.only(lambda e: selected(e, opts.episode)).pairs
        return stream, strict, tuple(in_order((k, entry(e, findings_io.judge(scenario, e, strict))) for k, e in chosen))

    evidence, strict, entries = or_exit(
        trace_path, lambda: consume_file(trace_path, judged, opts.input_format),
        refusal(opts, scenario_path, trace_path, scenario),
    )
    if opts.episode is not None and not entries:
        fail(Code.FINDINGS_NO_EPISODE)
    disagree = sum(1 for e in entries if any(t.agreement == "disagree" for t in e.tool_verdicts))
    report = FindingsReport(REPORT_VERSION, scenario.id, evidence.format, strict, entries, disagree)
    refused = [e.refused for e in entries if e.refused is not None]
    gated = EXIT_FAIL if opts.exit_on_fail and any(gates(e.result, strict) for e in entries) else EXIT_OK
    verdict = worst(EXIT_ERROR if refused else EXIT_OK, gated)
    set_head(exit_code=verdict)
    emit(_rendered_one(report, opts.format, trace_path, verdict), opts.output, opts.force)
    for code in dict.fromkeys(refused):
        diag(finding(Code(code)), trace_path)
    _run_status(evidence, trace_path)
    mismatch(disagree)
    if not opts.quiet:
        strict_hint(strict, [a.evidence for e in entries for a in e.assertions])
        print(counts_line("episodes", [e.result for e in entries], disagree), file=sys.stderr)
    return verdict


def _rendered_one(report: FindingsReport, fmt: str, trace_path: str, exit_code: int) -> str | Iterator[str]:
    """One file's report in ``fmt``; OCSF or OTLP events through report/events.py."""
    from tracekit.report.events import EVENT_FORMATS, render_events
    from tracekit.report.findings_render import render_one

    if fmt not in EVENT_FORMATS:
        return render_one(report, fmt, trace_path)
    from tracekit.report.ocsf import from_episodes

    return render_events(fmt, "check", [from_episodes(trace_path, report, exit_code)])


def _rendered_campaign(report: CampaignReport, fmt: str) -> str:
    """A campaign's report in ``fmt``, OCSF and OTLP events included."""
    from tracekit.report.events import EVENT_FORMATS, render_events
    from tracekit.report.findings_render import render_campaign

    if fmt not in EVENT_FORMATS:
        return render_campaign(report, fmt)
    from tracekit.report.ocsf import from_campaign

    return render_events(fmt, "check", from_campaign(report))


def _run_status(evidence: EvidenceFile | EpisodeStream, path: str) -> None:
    """A run that did not finish, or whose totals disagree with its records, is said on stderr
    (docs/formats.md, "Run status"): its episodes are not a complete run."""
    from tracekit.judging.audit.imported import run_findings

    for found in run_findings(evidence.format, evidence.run_problems):
        diag(Finding(found.code, found.severity, found.message, found.line), path)


class Campaign:
    """A findings campaign folded one file at a time (docs/findings.md, "Campaigns"): the files
    are judged by the executor, a bounded window of them in flight; memory here holds the
    bounded tally and skipped-file sample, never a file's evidence."""

    def __init__(self, opts: CheckOptions) -> None:
        from tracekit.judging.findings.campaign import FindingsTally
        from tracekit.report.skipped import SkippedFile

        self.opts = opts
        self.tally = FindingsTally()
        self.scenarios: list[str] = []
        self.skipped: list[SkippedFile] = []
        self.files = self.skipped_total = self.judged = self.failed = 0
        self.code, self.gated = EXIT_OK, False

    def skip(self, path: str, why: str, error: bool = False) -> None:
        from tracekit.report.findings_render import SAMPLE_LIMIT, SkippedFile

        self.skipped_total += 1
        if len(self.skipped) < SAMPLE_LIMIT:
            self.skipped.append(SkippedFile(path, why, error))

    def jobs(self, scenario: Scenario, data: bytes, files: list[str], named: set[str]) -> Iterator[CheckJob]:
        """One executor job per file of ``files`` under ``scenario`` (its bytes ``data``)."""
        from tracekit.cli.findings_io import CheckJob

        self.scenarios.append(scenario.id)
        opts = self.opts
        for path in files:
            source = path if path == "-" else os.path.abspath(path)
            yield CheckJob(source, path, path in named, data, scenario.id, opts.strict, opts.input_format)

    def fold(self, part: CheckPart) -> None:
        """Fold one judged file in. A walked file no format accepts is skipped (not a trace); a
        named file, or one a format accepts but cannot read, is an error (exit 2)."""
        from tracekit.judging.harness import gates
        from tracekit.judging.harness.model import FAIL

        self.files += 1
        if part.skipped:
            self.skip(part.name, Code.FORMAT_UNKNOWN.value)
            return
        if part.error is not None:
            diag(part.error, part.name)
            self.skip(part.name, part.error.code.value, error=True)
            self.code = EXIT_ERROR
            return
        for code in part.refused:
            diag(finding(code), part.name)
            self.code = EXIT_ERROR
        for episode in part.judged:
            self.tally.fold(part.format, part.policy, part.name, episode, part.strict)
            self.judged += 1
            self.failed += int(episode.result == FAIL)
            self.gated = self.gated or gates(episode.result, part.strict)

    def report(self) -> CampaignReport:
        from tracekit import REPORT_VERSION
        from tracekit.report.findings_render import CampaignReport

        tally = self.tally
        return CampaignReport(
            REPORT_VERSION, tuple(self.scenarios), self.opts.strict, self.files - self.skipped_total,
            self.judged, self.failed, tuple(sorted(tally.counts.values(), key=lambda c: (c.format, c.policy))),
            tuple(tally.distinct.values()), tally.distinct_overflow, tuple(self.skipped), self.skipped_total,
        )

    def summary(self, report: CampaignReport) -> str:
        return (
            f"tracekit check: {report.files} file(s), {self.judged} episode(s), {self.failed} fail, "
            f"{len(report.distinct) + report.distinct_overflow} distinct, {self.skipped_total} skipped, "
            f"{sum(c.disagreements for c in report.counts)} disagree with the tool's verdict"
        )

    def exit_code(self) -> int:
        return worst(self.code, EXIT_FAIL if self.opts.exit_on_fail and self.gated else EXIT_OK)


def _weight(job: CheckJob) -> int:
    from tracekit.kernel.executors.batches import file_bytes

    return file_bytes(job.path)


def stream(
    opts: CheckOptions, work: Callable[[T], R], tasks: list[T], stdin: bool = False,
    weigh: Callable[[T], int] | None = None,
) -> Iterator[R]:
    """``work`` over ``tasks`` on the executor the command line chose (docs/cli.md,
    "Executors"), results in task order, in batches by ``weigh`` (a task's bytes) when given;
    an unavailable executor is a diagnostic and exit 2."""
    executor = opts.run.make(len(tasks), stdin=stdin, preload=WORKER_MODULES)
    try:
        from tracekit.cli.progress import tracked

        yield from tracked(executor.map_ordered(work, tasks, weigh), len(tasks), "check", opts.quiet)
    except TracekitError as error:
        diag(error.finding)
        raise typer.Exit(EXIT_ERROR) from None


def campaign(scenario_path: str, paths: list[str], opts: CheckOptions) -> int:
    """Several files or folders under one scenario: per format and policy, and each distinct
    demonstration once (docs/findings.md, "Campaigns")."""
    from tracekit.cli import check_io, findings_io
    from tracekit.judging.harness import parse_scenario

    refuse_folder(scenario_path)
    for raw in paths:
        if raw != "-" and not os.path.exists(raw):
            diag(finding(Code.FORMAT_UNREADABLE), raw)
            raise typer.Exit(EXIT_ERROR)
    refused = refusal(opts, scenario_path, None)
    data = or_exit(scenario_path, lambda: check_io.read_scenario(scenario_path), refused)
    scenario = or_exit(scenario_path, lambda: parse_scenario(data), refused)
    inputs, named, _ = findings_io.campaign_files(paths)
    if not inputs.files:
        inputs.note()
        fail(Code.CLI_NO_INPUT)
    campaign = Campaign(opts)
    jobs = list(campaign.jobs(scenario, data, inputs.files, named))
    for part in stream(opts, findings_io.check_job, jobs, stdin="-" in inputs.files, weigh=_weight):
        campaign.fold(part)
    report = campaign.report()
    set_head(exit_code=worst(campaign.exit_code(), EXIT_FAIL if inputs.too_deep else EXIT_OK))
    emit(_rendered_campaign(report, opts.format), opts.output, opts.force)
    mismatch(sum(c.disagreements for c in report.counts), "campaign")
    if not opts.quiet:
        print(campaign.summary(report), file=sys.stderr)
    return worst(campaign.exit_code(), inputs.note())


def split_suite(
    files: list[str], trace_dir: Path
) -> tuple[list[tuple[str, bytes | Finding]], list[tuple[Scenario, bytes, Path]]]:
    """Suite pairing (docs/findings.md, "Command line"): a scenario whose id has no
    ``<trace-dir>/<id>.json`` but a folder ``<trace-dir>/<id>/`` (not a symlink) is judged as a
    findings campaign over that folder's files of any format; every other scenario goes to the
    upstream pairing unchanged. An id made only of dots never names a folder."""
    from tracekit.cli import check_io
    from tracekit.judging.harness import parse_scenario
    from tracekit.judging.harness.evaluate import trace_path_for

    pairs: list[tuple[str, bytes | Finding]] = []
    third: list[tuple[Scenario, bytes, Path]] = []
    claimed: set[str] = set()
    for path in files:
        data = check_io.suite_scenario(path)
        if isinstance(data, bytes):
            try:
                scenario = parse_scenario(data)
            except TracekitError:
                scenario = None
            if scenario is not None and scenario.id not in claimed and scenario.id.strip("."):
                folder = trace_dir / scenario.id
                if (not os.path.lexists(trace_path_for(str(trace_dir), scenario.id))
                        and folder.is_dir() and not folder.is_symlink()):
                    claimed.add(scenario.id)
                    third.append((scenario, data, folder))
                    continue
        pairs.append((path, data))
    return pairs, third
