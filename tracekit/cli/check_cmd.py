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

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from tracekit.cli.check_parts import (
    CheckFormat,
    CheckOptions,
    counts_line,
    or_exit,
    recorded_mismatch,
    refusal,
    strict_hint,
)
from tracekit.cli.common import (
    EXIT_FAIL,
    EXIT_OK,
    ExecutorName,
    ExecutorOptions,
    diag,
    fail,
    refuse_folder,
)
from tracekit.cli.options import CONNECT_TIMEOUT, EXECUTOR, JOBS, SCHEDULER, Command
from tracekit.cli.sink import check_target, emit
from tracekit.kernel.errors import Code, TracekitError, finding

if TYPE_CHECKING:
    from tracekit.judging.harness import Trace

HARNESS_LISTS = ("messages", "tool_calls", "events")
"""A document holding none of these is no harness trace (nor any other format's): an error."""


def _harness_trace(data: bytes) -> Trace:
    """The harness trace in ``data``; a JSON object without any of the harness lists is
    ``format.unknown``, never an empty trace that passes (docs/cli.md, "Inputs and folders")."""
    from tracekit.cli.trace_input import unknown
    from tracekit.formats.harness.trace import parse_trace_document

    document, trace = parse_trace_document(data)
    if not any(name in document for name in HARNESS_LISTS):
        raise TracekitError(unknown().finding)
    return trace


def _single(scenario_path: str, trace_path: str | None, opts: CheckOptions) -> int:
    from tracekit.cli import check_io
    from tracekit.judging.harness import Trace, dry_run, evaluate, gates, parse_scenario
    from tracekit.report.harness_render import RENDERERS

    strict = opts.strict
    refuse_folder(scenario_path)
    if trace_path is not None:
        refuse_folder(trace_path)
    scenario = or_exit(
        scenario_path, lambda: parse_scenario(check_io.read_scenario(scenario_path)),
        refusal(opts, scenario_path, trace_path),
    )
    if trace_path is None:
        trace, result = Trace(), dry_run(scenario, strict)
    else:
        trace = or_exit(
            trace_path, lambda: _harness_trace(check_io.read_trace(trace_path)),
            refusal(opts, scenario_path, trace_path, scenario),
        )
        result = evaluate(scenario, trace, strict)
    disagree = int(trace_path is not None and recorded_mismatch(trace, result.result))
    from tracekit.report.events import EVENT_FORMATS, render_events

    if opts.format in EVENT_FORMATS:
        from tracekit.report.ocsf import from_harness

        findings = [from_harness(trace_path or scenario_path, result)]
        emit(render_events(opts.format, "check", findings), opts.output, opts.force)
    elif (one := RENDERERS[opts.format].one) is not None:
        emit(one(result, trace if opts.include_trace else None), opts.output, opts.force)
    else:  # JUnit and SARIF: the findings shape of every other format (docs/harness.md)
        from tracekit.report import harness_findings

        rendered = harness_findings.render(result, opts.format, trace_path or scenario_path, disagree)
        emit(rendered, opts.output, opts.force)
    if not opts.quiet:
        strict_hint(strict, [a.evidence for a in result.assertions])
        print(counts_line("assertions", [a.result for a in result.assertions], disagree), file=sys.stderr)
    return EXIT_FAIL if opts.exit_on_fail and gates(result.result, strict) else EXIT_OK


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
    if format in (CheckFormat.ocsf, CheckFormat.otlp) and suite_mode:
        fail(Code.CLI_OPTION_CONFLICT, option=f"--format {format.value}", other="--suite")
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
    from tracekit.cli.check_findings import campaign, evidence_one
    from tracekit.cli.findings_io import sniffed_format

    if not traces:
        return _single(scenario, None, opts)
    if len(traces) > 1 or os.path.isdir(traces[0]):
        return campaign(scenario, traces, opts)
    trace = traces[0]
    fmt = opts.input_format
    detected = None if trace == "-" else sniffed_format(trace)
    if fmt is None:
        fmt = detected
    elif detected is not None and detected != fmt:  # docs/cli.md, "Inputs and folders"
        diag(finding(Code.FORMAT_FORCED_OTHER, detected=detected), trace)
    if opts.episode is None and fmt in (None, "harness"):
        return _single(scenario, trace, opts)
    if opts.include_trace:
        fail(Code.CLI_OPTION_CONFLICT, option="--include-trace", other="a trace that is not a harness trace")
    return evidence_one(scenario, trace, opts)


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
    format: CheckFormat = typer.Option(
        CheckFormat.table, "--format", "-f", help="Output format (json: upstream's result document)."
    ),
    output: Path = typer.Option(None, "--output", "-o", metavar="FILE", help="Write the result here instead of stdout."),
    force: bool = typer.Option(False, "--force", help="Replace existing output files."),
    exit_on_fail: bool = typer.Option(False, "--exit-on-fail", help="Exit 1 on fail or error (strict: and not_run)."),
    include_trace: bool = typer.Option(False, "--include-trace", help="Echo the trace in JSON output, as upstream does."),
    input_format: str = typer.Option(
        None, "--input-format", metavar="NAME", help="Read TRACE as this format instead of detecting it."
    ),
    episode: str = typer.Option(None, "--episode", metavar="ID", help="Judge only this episode of TRACE."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No summary line on stderr."),
    jobs: int = JOBS,
    executor: ExecutorName = EXECUTOR,
    scheduler: str = SCHEDULER,
    connect_timeout: float = CONNECT_TIMEOUT,
) -> None:
    """Judge harness traces against scenario assertions: exit 0 ran, 1 gated verdict, 2 bad input."""
    run = ExecutorOptions(executor, jobs, scheduler, connect_timeout)
    suite_mode = bool(suite)
    folder = output_dir if output_dir is not None else out_dir
    traces = list(traces or [])
    _check_usage(
        suite_mode, scenario, traces, dry_run, trace_dir, folder, include_trace, format, input_format, episode
    )
    if output is not None:
        check_target(output, force)
    opts = CheckOptions(
        strict, format.value, output, force, exit_on_fail, include_trace, quiet, input_format, episode, run
    )
    if suite_mode:
        from tracekit.cli.check_suite import run_suite

        code = run_suite(suite, trace_dir, folder, opts)
    else:
        code = _route(scenario, traces, opts)
    raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    """Add ``check`` to the app."""
    app.command("check", cls=Command)(check)
