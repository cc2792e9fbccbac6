"""``tracekit verify`` and ``tracekit show``."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer

from tracekit.cli.common import (
    CONNECT_TIMEOUT,
    EXECUTOR,
    EXIT_ERROR,
    FINDINGS_FORMAT,
    FORCE,
    FORMAT,
    JOBS,
    OUTPUT,
    QUIET,
    SCHEDULER,
    TRUSTED_ROOT,
    Command,
    ExecutorName,
    ExecutorOptions,
    FindingsFormat,
    Format,
    absolute,
    collect_inputs,
    diag,
    fail,
    parse_roots,
    refuse_folder,
    worst,
)
from tracekit.cli.sink import check_target, emit
from tracekit.errors import Code, Severity, TracekitError


@dataclass(frozen=True, slots=True)
class VerifyJob:
    """One trace to verify: plain data, cheap to send to a worker process or a Dask worker."""

    path: str
    """As the user gave it: the report shows this."""
    source: str
    """Absolute (a worker may run in another folder, or on another machine with a shared
    filesystem); ``-`` for standard input."""
    strict_sources: bool
    canonical: bool
    roots: tuple[tuple[str, str], ...]


def verify_job(job: VerifyJob) -> dict[str, Any]:
    """Verify one trace in any executor; returns the report's JSON form (cheap to pickle)."""
    from tracekit.report.verify_render import trace_dict
    from tracekit.verify import VerifyOptions, verify_file

    options = VerifyOptions(
        strict_sources=job.strict_sources,
        canonical=job.canonical,
        trusted_roots={k: Path(v) for k, v in job.roots},
    )
    return {**trace_dict(verify_file(job.source, options)), "path": job.path}


WORKER_MODULES = ("tracekit.cli.verify_cmd", "tracekit.verify", "tracekit.report.verify_render")


def verify(
    paths: list[str] = typer.Argument(..., metavar="TRACE...", help="Trace files or folders (recursing into *.jsonl); - for stdin."),
    format: FindingsFormat = FINDINGS_FORMAT,
    strict_sources: bool = typer.Option(False, "--strict-sources", help="An unavailable source fails (exit 1)."),
    trusted_root: list[str] = TRUSTED_ROOT,
    canonical: bool = typer.Option(False, "--canonical", help="Make non-canonical lines fatal."),
    jobs: int = JOBS,
    executor: ExecutorName = EXECUTOR,
    scheduler: str = SCHEDULER,
    connect_timeout: float = CONNECT_TIMEOUT,
    output: Path = OUTPUT,
    force: bool = FORCE,
    quiet: bool = QUIET,
    trusted_key: list[str] = typer.Option(
        None, "--trusted-key", metavar="FILE",
        help="Bundles: a trusted Ed25519 public key file (PEM, one or more keys); repeatable.",
    ),
) -> None:
    """Verify traces: exit 0 intact, 1 intact but a source changed, 2 invalid (the worst wins)."""
    from tracekit.report.verify_render import (
        render_json,
        render_markdown,
        render_table,
        summary_line,
        worst_exit,
    )

    run = ExecutorOptions(executor, jobs, scheduler, connect_timeout)
    if output is not None:
        check_target(output, force)
    roots = tuple((k, str(v.resolve())) for k, v in parse_roots(trusted_root).items())
    inputs = collect_inputs(paths)
    if not inputs.files:
        inputs.note()
        fail(Code.CLI_NO_INPUT)
    from tracekit.cli import bundle_cmd

    bundles = [p for p in inputs.files if bundle_cmd.is_bundle(p)]
    if bundles:  # sealed bundles (docs/bundle-format.md), never mixed with traces in one run
        if len(bundles) != len(inputs.files):
            fail(Code.CLI_OPTION_CONFLICT, option="Bundles", other="traces in one run")
        verdict = bundle_cmd.verify_bundles(inputs.files, trusted_key, format.value, output, force, quiet)
        raise typer.Exit(worst(verdict, inputs.note()))
    work = [VerifyJob(p, absolute(p), strict_sources, canonical, roots) for p in inputs.files]
    chosen = run.make(len(work), stdin="-" in inputs.files, preload=WORKER_MODULES)
    try:
        traces = list(chosen.map_ordered(verify_job, work))
    except TracekitError as error:
        diag(error.finding)
        raise typer.Exit(EXIT_ERROR) from None
    from tracekit.report import findings

    renderers: dict[FindingsFormat, Callable[[list[dict[str, Any]]], str]] = {
        FindingsFormat.json: render_json,
        FindingsFormat.table: render_table,
        FindingsFormat.markdown: render_markdown,
        FindingsFormat.junit: lambda t: findings.render_junit("verify", findings.from_dicts(t)),
        FindingsFormat.sarif: lambda t: findings.render_sarif("verify", findings.from_dicts(t)),
    }
    emit(renderers[format](traces), output, force)
    if not quiet:
        print(summary_line(traces), file=sys.stderr)
    raise typer.Exit(worst(worst_exit(traces), inputs.note()))


def show(
    path: str = typer.Argument(..., metavar="TRACE", help="A trace file, or - for stdin."),
    format: Format = FORMAT,
    trusted_root: list[str] = TRUSTED_ROOT,
    output: Path = OUTPUT,
    force: bool = FORCE,
    quiet: bool = QUIET,
) -> None:
    """Summarise a verified trace (never raw output or file content); exit 2 if it is invalid."""
    from tracekit.report.verify_render import (
        render_show_json,
        render_show_markdown,
        render_show_table,
    )
    from tracekit.verify import VerifyOptions, verify_file

    refuse_folder(path)
    if output is not None:
        check_target(output, force)
    report = verify_file(path, VerifyOptions(keep_events=True, trusted_roots=parse_roots(trusted_root)))
    if not report.intact:
        for found in report.findings:
            diag(found, path)
        raise typer.Exit(EXIT_ERROR)
    renderers = {
        Format.json: render_show_json,
        Format.table: render_show_table,
        Format.markdown: render_show_markdown,
    }
    emit(renderers[format](report), output, force)
    for found in report.findings:  # say why the exit is 1 (a changed or missing source)
        if found.severity is Severity.WARNING:
            diag(found, path)
    if not quiet:
        print(f"tracekit show: intact, {report.event_count} event(s); exit {report.exit_code}", file=sys.stderr)
    raise typer.Exit(report.exit_code)


def register(app: typer.Typer) -> None:
    """Add verify and show to the app."""
    app.command("verify", cls=Command)(verify)
    app.command("show", cls=Command)(show)
