"""``tracekit check``: judge OWASP Agent Security Regression Harness traces offline, and a
scenario's policies on every episode of any supported format (docs/findings.md).

Routing (docs/findings.md, "Command line"): one TRACE that is a harness trace (detected, forced
with ``--input-format harness``, standard input without ``--input-format``, or a file no format
accepts, which the harness reader then refuses as before) is judged exactly as upstream does; one
TRACE of another format gets one row per episode; several TRACEs or a folder are a campaign.

Exit codes (docs/harness.md, "Exit codes"): 0 when the check ran, whatever the verdict; 1 under
``--exit-on-fail`` when the result is fail or error (strict: or not_run); 2 when a scenario or
trace is unreadable or invalid, or the command line is. Upstream exits 1 for invalid input.
"""

from __future__ import annotations

import enum
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import typer

from tracekit.cli.common import (
    EXIT_ERROR,
    EXIT_FAIL,
    EXIT_OK,
    Command,
    diag,
    fail,
    refuse_folder,
    worst,
)
from tracekit.cli.sink import check_folder, check_target, emit, make_folder, write_files
from tracekit.errors import Code, TracekitError, finding

if TYPE_CHECKING:
    from tracekit.evidence import Episode
    from tracekit.findings.judge import EpisodeVerdict
    from tracekit.harness.scenario import Scenario
    from tracekit.report.findings_render import CampaignReport, EpisodeEntry

SUMMARY_NAME = "summary.json"


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """What ``check`` was asked to do, once the command line is known to be consistent."""

    strict: bool
    format: str
    output: Path | None
    force: bool
    exit_on_fail: bool
    include_trace: bool
    quiet: bool
    input_format: str | None = None
    episode: str | None = None


T = TypeVar("T")


class CheckFormat(enum.StrEnum):
    """Output formats of ``tracekit check``."""

    json = "json"
    table = "table"
    markdown = "markdown"
    junit = "junit"
    sarif = "sarif"


def _counts_line(noun: str, results: list[str]) -> str:
    tally = {kind: results.count(kind) for kind in ("pass", "fail", "error", "not_run")}
    return (
        f"tracekit check: {len(results)} {noun}, {tally['pass']} pass, {tally['fail']} fail, "
        f"{tally['error']} error, {tally['not_run']} not_run"
    )


def _or_exit(role: str, action: Callable[[], T]) -> T:
    """Run one load step; on bad input print a path-free diagnostic labelled ``role``, exit 2."""
    try:
        return action()
    except TracekitError as error:
        diag(error.finding, role)
        raise typer.Exit(EXIT_ERROR) from None


def _single(scenario_path: str, trace_path: str | None, opts: CheckOptions) -> int:
    from tracekit.cli import check_io
    from tracekit.harness import Trace, dry_run, evaluate, gates, parse_scenario, parse_trace
    from tracekit.report.harness_render import RENDERERS

    strict = opts.strict
    refuse_folder(scenario_path)
    if trace_path is not None:
        refuse_folder(trace_path)
    scenario = _or_exit("scenario", lambda: parse_scenario(check_io.read_scenario(scenario_path)))
    if trace_path is None:
        trace, result = Trace(), dry_run(scenario, strict)
    else:
        trace = _or_exit("trace", lambda: parse_trace(check_io.read_trace(trace_path)))
        result = evaluate(scenario, trace, strict)
    renderer = RENDERERS[opts.format]
    emit(renderer.one(result, trace if opts.include_trace else None), opts.output, opts.force)
    if not opts.quiet:
        print(_counts_line("assertions", [a.result for a in result.assertions]), file=sys.stderr)
    return EXIT_FAIL if opts.exit_on_fail and gates(result.result, strict) else EXIT_OK


def _suite(paths: list[str], trace_dir: Path, out_dir: Path | None, opts: CheckOptions) -> int:
    from tracekit.cli import check_io
    from tracekit.harness import gates, run_suite
    from tracekit.report.harness_json import render as render_result
    from tracekit.report.harness_render import RENDERERS

    for raw in paths:
        if not os.path.exists(raw):
            fail(Code.CLI_FOLDER_MISSING, option="--suite")
    if not trace_dir.is_dir():
        fail(Code.HARNESS_TRACE_DIR_MISSING)
    inputs = check_io.discover(paths)
    if not inputs.files:
        inputs.note()
        fail(Code.CLI_NO_INPUT)
    strict = opts.strict
    force = opts.force
    if out_dir is not None:
        check_folder(out_dir, [SUMMARY_NAME], force)
    suite = run_suite(
        ((p, check_io.suite_scenario(p)) for p in inputs.files), str(trace_dir), check_io.suite_trace, strict
    )
    done = [e.outcome for e in suite.entries if e.outcome is not None]
    if out_dir is not None:
        names = [f"{outcome.scenario_id}.json" for outcome in done]
        if SUMMARY_NAME in names:
            fail(Code.HARNESS_OUTPUT_NAME_COLLISION)
        check_folder(out_dir, [*names, SUMMARY_NAME], force)
    emit(RENDERERS[opts.format].suite(suite), opts.output, force)
    if out_dir is not None:
        make_folder(out_dir)
        files = [(out_dir / f"{o.scenario_id}.json", render_result(o).encode("utf-8")) for o in done]
        files.append((out_dir / SUMMARY_NAME, RENDERERS["json"].suite(suite).encode("utf-8")))
        write_files(files, force)
    for entry in suite.entries:
        if entry.finding is not None and entry.error_reason in ("invalid_scenario", "invalid_trace"):
            diag(entry.finding, "suite")
    if not opts.quiet:
        print(_counts_line("scenarios", [e.result for e in suite.entries]), file=sys.stderr)
    if suite.invalid_input:
        return EXIT_ERROR
    if suite.entries and all(e.error_reason == "missing_trace" for e in suite.entries):
        # Nothing was checked at all: a CI job must not stay green (docs/cli.md, "check").
        diag(finding(Code.CLI_NOTHING_CHECKED, count=len(suite.entries)))
        return EXIT_ERROR
    gated = EXIT_FAIL if opts.exit_on_fail and gates(suite.result, strict) else EXIT_OK
    return worst(gated, inputs.note())

def _judge(scenario: Scenario, episode: Episode, strict: bool) -> EpisodeVerdict | Code:
    """One episode judged, or the consistency code that refuses it (docs/findings.md,
    "Consistency")."""
    from tracekit.findings.consistency import check_episode
    from tracekit.findings.judge import judge_episode

    refused = check_episode(episode)
    return refused[0].code if refused else judge_episode(scenario, episode, strict)


def _entry(episode: Episode, judged: EpisodeVerdict | Code) -> EpisodeEntry:
    from tracekit.report.findings_render import EpisodeEntry

    if isinstance(judged, Code):
        return EpisodeEntry(episode.id, "error", (), (), judged.value)
    return EpisodeEntry.of(judged)


def _evidence_one(scenario_path: str, trace_path: str, opts: CheckOptions) -> int:
    """One file of any format: one row per episode (docs/findings.md, "Command line")."""
    from tracekit import REPORT_VERSION
    from tracekit.cli import check_io, findings_io
    from tracekit.harness import gates, parse_scenario
    from tracekit.report.findings_render import FindingsReport, render_one

    refuse_folder(scenario_path)
    refuse_folder(trace_path)
    scenario = _or_exit("scenario", lambda: parse_scenario(check_io.read_scenario(scenario_path)))
    evidence = _or_exit("trace", lambda: findings_io.load(trace_path, opts.input_format))
    chosen = [e for e in evidence.episodes if opts.episode is None or e.id == opts.episode]
    if opts.episode is not None and not chosen:
        fail(Code.FINDINGS_NO_EPISODE)
    entries = tuple(_entry(e, _judge(scenario, e, opts.strict)) for e in chosen)
    report = FindingsReport(REPORT_VERSION, scenario.id, evidence.format, opts.strict, entries)
    emit(render_one(report, opts.format, trace_path), opts.output, opts.force)
    refused = [e.refused for e in entries if e.refused is not None]
    for code in dict.fromkeys(refused):
        diag(finding(Code(code)), "trace")
    if not opts.quiet:
        print(_counts_line("episodes", [e.result for e in entries]), file=sys.stderr)
    gated = EXIT_FAIL if opts.exit_on_fail and any(gates(e.result, opts.strict) for e in entries) else EXIT_OK
    return worst(EXIT_ERROR if refused else EXIT_OK, gated)


class _Campaign:
    """A findings campaign folded one file at a time (docs/findings.md, "Campaigns"): memory
    holds one file's evidence plus the bounded tally and skipped-file sample."""

    def __init__(self, opts: CheckOptions) -> None:
        from tracekit.findings.campaign import FindingsTally
        from tracekit.report.findings_render import SkippedFile

        self.opts = opts
        self.tally = FindingsTally()
        self.scenarios: list[str] = []
        self.skipped: list[SkippedFile] = []
        self.files = self.skipped_total = self.judged = self.failed = 0
        self.code, self.gated = EXIT_OK, False

    def skip(self, path: str, why: str) -> None:
        from tracekit.report.findings_render import SAMPLE_LIMIT, SkippedFile

        self.skipped_total += 1
        if len(self.skipped) < SAMPLE_LIMIT:
            self.skipped.append(SkippedFile(path, why))

    def fold(self, scenario: Scenario, files: list[str], named: set[str]) -> None:
        """Judge every episode of ``files`` under ``scenario``. A walked file no format accepts
        is skipped (not a trace); a named file, or one a format accepts but cannot read, is an
        error (exit 2)."""
        from tracekit.cli import findings_io
        from tracekit.harness import gates
        from tracekit.harness.model import FAIL

        opts = self.opts
        self.scenarios.append(scenario.id)
        for path in files:
            self.files += 1
            if path not in named and opts.input_format is None and findings_io.sniffed_format(path) is None:
                self.skip(path, Code.FORMAT_UNKNOWN.value)
                continue
            try:
                evidence = findings_io.load(path, opts.input_format)
            except TracekitError as error:
                diag(error.finding, "trace")
                self.skip(path, error.finding.code.value)
                self.code = EXIT_ERROR
                continue
            for episode in evidence.episodes:
                verdict = _judge(scenario, episode, opts.strict)
                if isinstance(verdict, Code):
                    diag(finding(verdict), "trace")
                    self.code = EXIT_ERROR
                    continue
                self.tally.add(evidence.format, scenario.id, path, episode, verdict)
                self.judged += 1
                self.failed += int(verdict.result == FAIL)
                self.gated = self.gated or gates(verdict.result, opts.strict)

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
            f"{len(report.distinct) + report.distinct_overflow} distinct, {self.skipped_total} skipped"
        )

    def exit_code(self) -> int:
        return worst(self.code, EXIT_FAIL if self.opts.exit_on_fail and self.gated else EXIT_OK)


def _campaign(scenario_path: str, paths: list[str], opts: CheckOptions) -> int:
    """Several files or folders under one scenario: per format and policy, and each distinct
    demonstration once (docs/findings.md, "Campaigns")."""
    from tracekit.cli import check_io, findings_io
    from tracekit.harness import parse_scenario
    from tracekit.report.findings_render import render_campaign

    refuse_folder(scenario_path)
    for raw in paths:
        if raw != "-" and not os.path.exists(raw):
            diag(finding(Code.FORMAT_UNREADABLE), "trace")
            raise typer.Exit(EXIT_ERROR)
    scenario = _or_exit("scenario", lambda: parse_scenario(check_io.read_scenario(scenario_path)))
    inputs, named, _ = findings_io.campaign_files(paths)
    if not inputs.files:
        inputs.note()
        fail(Code.CLI_NO_INPUT)
    campaign = _Campaign(opts)
    campaign.fold(scenario, inputs.files, named)
    report = campaign.report()
    emit(render_campaign(report, opts.format), opts.output, opts.force)
    if not opts.quiet:
        print(campaign.summary(report), file=sys.stderr)
    return worst(campaign.exit_code(), inputs.note())


def _check_usage(
    suite_mode: bool, scenario: str | None, traces: list[str], dry_run: bool,
    trace_dir: Path | None, folder: Path | None, include_trace: bool, format: CheckFormat,
    input_format: str | None = None, episode: str | None = None,
) -> None:
    """Name the option that is wrong and what is wrong with it (docs/cli.md, "check")."""
    from tracekit.formats.registry import FORMAT_NAMES, supported

    trace = traces[0] if traces else None
    if input_format is not None and input_format not in FORMAT_NAMES:
        fail(Code.FORMAT_UNKNOWN_NAME, formats=supported())
    if episode is not None and (len(traces) != 1 or os.path.isdir(traces[0])):
        fail(Code.CLI_OPTION_NEEDS, option="--episode", other="exactly one TRACE file")
    if suite_mode:
        if input_format is not None:
            fail(Code.CLI_OPTION_CONFLICT, option="--input-format", other="--suite")
        if scenario is not None or trace is not None:
            fail(Code.CLI_OPTION_CONFLICT, option="--suite", other="SCENARIO or TRACE arguments")
        if dry_run:
            fail(Code.CLI_OPTION_CONFLICT, option="--dry-run", other="--suite")
        if include_trace:
            fail(Code.CLI_OPTION_CONFLICT, option="--include-trace", other="--suite")
        if trace_dir is None:
            fail(Code.CLI_OPTION_NEEDS, option="--suite", other="--trace-dir")
        return
    if trace_dir is not None:
        fail(Code.CLI_OPTION_NEEDS, option="--trace-dir", other="--suite")
    if folder is not None:
        fail(Code.CLI_OPTION_NEEDS, option="--output-dir", other="--suite")
    if scenario is None:
        fail(Code.CLI_MISSING_ARGUMENT, what="a SCENARIO argument (or --suite DIR --trace-dir DIR)")
    if trace is None and not dry_run:
        fail(Code.CLI_MISSING_ARGUMENT, what="a TRACE argument (or --dry-run)")
    if trace is not None and dry_run:
        fail(Code.CLI_OPTION_CONFLICT, option="--dry-run", other="a TRACE argument")
    if include_trace and format is not CheckFormat.json:
        fail(Code.CLI_OPTION_NEEDS, option="--include-trace", other="--format json")
    if include_trace and traces and (len(traces) > 1 or os.path.isdir(traces[0])):
        fail(Code.CLI_OPTION_CONFLICT, option="--include-trace", other="several TRACEs")


def _route(scenario: str, traces: list[str], opts: CheckOptions) -> int:
    """Harness trace, one file of another format, or a campaign (module docstring)."""
    from tracekit.cli.findings_io import sniffed_format

    if not traces:
        return _single(scenario, None, opts)
    if len(traces) > 1 or os.path.isdir(traces[0]):
        return _campaign(scenario, traces, opts)
    trace = traces[0]
    fmt = opts.input_format
    if fmt is None and trace != "-":
        fmt = sniffed_format(trace)
    if opts.episode is None and fmt in (None, "harness"):
        return _single(scenario, trace, opts)
    if opts.include_trace:
        fail(Code.CLI_OPTION_CONFLICT, option="--include-trace", other="a trace that is not a harness trace")
    return _evidence_one(scenario, trace, opts)


def check(
    scenario: str = typer.Argument(None, metavar="SCENARIO", help="Scenario YAML file (not with --suite)."),
    traces: list[str] = typer.Argument(
        None, metavar="TRACE...", help="Trace of any format, several, or folders (or use --dry-run)."
    ),
    strict: bool = typer.Option(False, "--strict", help="tracekit's stricter semantics (docs/harness.md)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Validate the scenario; mark every assertion not_run."),
    suite: list[str] = typer.Option(None, "--suite", metavar="PATH", help="Scenario file or folder for suite mode (repeatable)."),
    trace_dir: Path = typer.Option(None, "--trace-dir", metavar="DIR", help="Suite mode: folder holding <scenario id>.json traces."),
    output_dir: Path = typer.Option(
        None, "--output-dir", metavar="DIR", help="Suite mode: write <id>.json per scenario and summary.json."
    ),
    out_dir: Path = typer.Option(None, "--out-dir", hidden=True, help="Old spelling of --output-dir."),
    format: CheckFormat = typer.Option(CheckFormat.json, "--format", "-f", help="Output format."),
    output: Path = typer.Option(None, "--output", "-o", metavar="FILE", help="Write the result here instead of stdout."),
    force: bool = typer.Option(False, "--force", help="Replace existing output files."),
    exit_on_fail: bool = typer.Option(False, "--exit-on-fail", help="Exit 1 on fail or error (strict: and not_run)."),
    include_trace: bool = typer.Option(False, "--include-trace", help="Echo the trace in JSON output, as upstream does."),
    input_format: str = typer.Option(
        None, "--input-format", metavar="NAME", help="Read TRACE as this format instead of detecting it."
    ),
    episode: str = typer.Option(None, "--episode", metavar="ID", help="Judge only this episode of TRACE."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No summary line on stderr."),
) -> None:
    """Judge harness traces against scenario assertions: exit 0 ran, 1 gated verdict, 2 bad input."""
    suite_mode = bool(suite)
    folder = output_dir if output_dir is not None else out_dir
    traces = list(traces or [])
    _check_usage(
        suite_mode, scenario, traces, dry_run, trace_dir, folder, include_trace, format, input_format, episode
    )
    if output is not None:
        check_target(output, force)
    opts = CheckOptions(
        strict, format.value, output, force, exit_on_fail, include_trace, quiet, input_format, episode
    )
    code = _suite(suite, trace_dir, folder, opts) if suite_mode else _route(scenario, traces, opts)
    raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    """Add ``check`` to the app."""
    app.command("check", cls=Command)(check)
