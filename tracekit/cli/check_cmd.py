"""``tracekit check``: judge OWASP Agent Security Regression Harness traces offline.

Exit codes (docs/harness.md, "Exit codes"): 0 when the check ran, whatever the verdict; 1 under
``--exit-on-fail`` when the result is fail or error (strict: or not_run); 2 when a scenario or
trace is unreadable or invalid, or the command line is. Upstream exits 1 for invalid input.
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import typer

from tracekit.cli.common import (
    EXIT_ERROR,
    EXIT_FAIL,
    EXIT_OK,
    check_output_file,
    diag,
    emit,
    fail,
    prepare_output_dir,
    write_atomic,
)
from tracekit.errors import Code, TracekitError

SUMMARY_NAME = "summary.json"
T = TypeVar("T")


class CheckFormat(enum.StrEnum):
    """Output formats of ``tracekit check``."""

    json = "json"
    table = "table"
    junit = "junit"
    sarif = "sarif"


def _counts_line(noun: str, results: list[str]) -> str:
    tally = {kind: results.count(kind) for kind in ("pass", "fail", "error", "not_run")}
    return (
        f"summary: {len(results)} {noun}, {tally['pass']} pass, {tally['fail']} fail, "
        f"{tally['error']} error, {tally['not_run']} not_run"
    )


def _or_exit(role: str, action: Callable[[], T]) -> T:
    """Run one load step; on bad input print a path-free diagnostic labelled ``role``, exit 2."""
    try:
        return action()
    except TracekitError as error:
        diag(error.finding, role)
        raise typer.Exit(EXIT_ERROR) from None


def _single(scenario_path: str, trace_path: str | None, opts: dict[str, Any]) -> int:
    from tracekit.cli import check_io
    from tracekit.harness import Trace, dry_run, evaluate, gates, parse_scenario, parse_trace
    from tracekit.report.harness_render import RENDERERS

    strict = bool(opts["strict"])
    scenario = _or_exit("scenario", lambda: parse_scenario(check_io.read_scenario(scenario_path)))
    if trace_path is None:
        trace, result = Trace(), dry_run(scenario, strict)
    else:
        trace = _or_exit("trace", lambda: parse_trace(check_io.read_trace(trace_path)))
        result = evaluate(scenario, trace, strict)
    renderer = RENDERERS[opts["format"]]
    emit(renderer.one(result, trace if opts["include_trace"] else None), opts["output"], opts["force"])
    if not opts["quiet"]:
        print(_counts_line("assertions", [a.result for a in result.assertions]), file=sys.stderr)
    return EXIT_FAIL if opts["exit_on_fail"] and gates(result.result, strict) else EXIT_OK


def _suite(paths: list[str], trace_dir: Path, out_dir: Path | None, opts: dict[str, Any]) -> int:
    from tracekit.cli import check_io
    from tracekit.harness import gates, run_suite
    from tracekit.report.harness_json import render as render_result
    from tracekit.report.harness_render import RENDERERS

    if not trace_dir.is_dir():
        fail(Code.HARNESS_TRACE_DIR_MISSING)
    files = check_io.discover(paths)
    if not files:
        fail(Code.CLI_NO_INPUT)
    strict = bool(opts["strict"])
    suite = run_suite(((p, check_io.suite_scenario(p)) for p in files), str(trace_dir), check_io.suite_trace, strict)
    done = [e.outcome for e in suite.entries if e.outcome is not None]
    force = bool(opts["force"])
    if out_dir is not None:
        names = [f"{outcome.scenario_id}.json" for outcome in done]
        if SUMMARY_NAME in names:
            fail(Code.HARNESS_OUTPUT_NAME_COLLISION)
        prepare_output_dir(out_dir, [*names, SUMMARY_NAME], force)
    emit(RENDERERS[opts["format"]].suite(suite), opts["output"], force)
    if out_dir is not None:
        for outcome in done:
            write_atomic(out_dir / f"{outcome.scenario_id}.json", render_result(outcome).encode("utf-8"), force)
        write_atomic(out_dir / SUMMARY_NAME, RENDERERS["json"].suite(suite).encode("utf-8"), force)
    for entry in suite.entries:
        if entry.finding is not None and entry.error_reason in ("invalid_scenario", "invalid_trace"):
            diag(entry.finding, "suite")
    if not opts["quiet"]:
        print(_counts_line("scenarios", [e.result for e in suite.entries]), file=sys.stderr)
    if suite.invalid_input:
        return EXIT_ERROR
    return EXIT_FAIL if opts["exit_on_fail"] and gates(suite.result, strict) else EXIT_OK


def check(
    scenario: str = typer.Argument(None, help="Scenario YAML file (not with --suite)."),
    trace: str = typer.Argument(None, help="Recorded trace JSON to judge (or use --dry-run)."),
    strict: bool = typer.Option(False, "--strict", help="tracekit's stricter semantics (docs/harness.md)."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Validate the scenario; mark every assertion not_run."),
    suite: list[str] = typer.Option(None, "--suite", help="Scenario file or folder for suite mode (repeatable)."),
    trace_dir: Path = typer.Option(None, "--trace-dir", help="Suite mode: folder holding <scenario id>.json traces."),
    out_dir: Path = typer.Option(None, "--out-dir", help="Suite mode: write <id>.json per scenario and summary.json."),
    format: CheckFormat = typer.Option(CheckFormat.json, "--format", "-f", help="Output format."),
    output: Path = typer.Option(None, "--output", "-o", help="Write the result here instead of stdout."),
    force: bool = typer.Option(False, "--force", help="Replace existing output files."),
    exit_on_fail: bool = typer.Option(False, "--exit-on-fail", help="Exit 1 on fail or error (strict: and not_run)."),
    include_trace: bool = typer.Option(False, "--include-trace", help="Echo the trace in JSON output, as upstream does."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No summary line on stderr."),
) -> None:
    """Judge harness traces against scenario assertions: exit 0 ran, 1 gated verdict, 2 bad input."""
    suite_mode = bool(suite)
    usage_ok = (
        (suite_mode and trace_dir is not None and scenario is None and trace is None and not dry_run)
        or (not suite_mode and scenario is not None and (trace is None) == dry_run and trace_dir is None and out_dir is None)
    ) and not (include_trace and (format is not CheckFormat.json or suite_mode))
    if not usage_ok:
        fail(Code.CLI_USAGE)
    if output is not None:
        check_output_file(output, force)
    opts: dict[str, Any] = {
        "strict": strict,
        "format": format.value,
        "output": output,
        "force": force,
        "exit_on_fail": exit_on_fail,
        "include_trace": include_trace,
        "quiet": quiet,
    }
    code = _suite(suite, trace_dir, out_dir, opts) if suite_mode else _single(scenario, trace, opts)
    raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    """Add ``check`` to the app."""
    app.command("check")(check)
