"""``tracekit verify`` and ``tracekit show``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer

from tracekit.cli.common import (
    EXIT_ERROR,
    ExecutorName,
    ExecutorOptions,
    FindingsFormat,
    Format,
    InputFormat,
    diag,
    parse_roots,
    refuse_folder,
)
from tracekit.cli.options import (
    CONNECT_TIMEOUT,
    EXECUTOR,
    FINDINGS_FORMAT,
    FORCE,
    FORMAT,
    INPUT_FORMAT,
    JOBS,
    OUTPUT,
    QUIET,
    SCHEDULER,
    TRUSTED_ROOT,
    Command,
)
from tracekit.cli.sink import check_target, emit
from tracekit.kernel.errors import Finding, Severity, TracekitError

if TYPE_CHECKING:
    from tracekit.formats.agentguard.verify import VerifyReport
    from tracekit.report.show_render import EvidenceShow


def verify(
    paths: list[str] = typer.Argument(
        ..., metavar="TRACE...", help="Trace files or folders (recursing into *.jsonl, *.json, *.eval); - for stdin."
    ),
    format: FindingsFormat = FINDINGS_FORMAT,
    input_format: InputFormat = INPUT_FORMAT,
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
    from tracekit.cli import verify_flow

    run = ExecutorOptions(executor, jobs, scheduler, connect_timeout)
    verify_flow.verify(paths, format, input_format, strict_sources, trusted_root, canonical, run, output, force,
                       quiet, trusted_key)


def show(
    path: str = typer.Argument(..., metavar="TRACE", help="A trace file, or - for stdin."),
    format: Format = FORMAT,
    input_format: InputFormat = INPUT_FORMAT,
    trusted_root: list[str] = TRUSTED_ROOT,
    output: Path = OUTPUT,
    force: bool = FORCE,
    quiet: bool = QUIET,
) -> None:
    """Summarise what a trace holds (never raw output or file content); exit 2 if it is invalid."""
    from tracekit.cli.trace_input import consume_evidence, opened, unknown, verify_opened
    from tracekit.formats.agentguard.verify import VerifyOptions

    refuse_folder(path)
    if output is not None:
        check_target(output, force)
    options = VerifyOptions(keep_events=True, trusted_roots=parse_roots(trusted_root))
    try:
        with opened(path, None if input_format is None else input_format.value) as source:
            if source.format is None:
                raise unknown()
            if source.format != "agentguard":
                from tracekit.report.show_render import evidence_show

                _show_evidence(consume_evidence(path, source, evidence_show), format, output, force, quiet)
            report = verify_opened(path, source, options)
    except TracekitError as error:
        _show_refused(path, [error.finding], format, output, force)
    _show_agentguard(path, report, format, output, force, quiet)


def _show_refused(path: str, found: list[Finding], format: Format, output: Path | None, force: bool) -> NoReturn:
    """show on an input it cannot summarise: the diagnostics, a JSON document saying so
    (docs/cli.md, "Inputs and folders"), exit 2."""
    from tracekit.cli.input_errors import error_document

    text = error_document("show", format.value, path, found)
    if text is not None:
        emit(text, output, force)
    for one in found:
        diag(one, path)
    raise typer.Exit(EXIT_ERROR)


def _show_evidence(report: EvidenceShow, format: Format, output: Path | None, force: bool, quiet: bool) -> NoReturn:
    """show for a format without integrity data: what the file holds, as counts (exit 0)."""
    from tracekit.report import show_render

    renderers = {
        Format.json: show_render.render_json,
        Format.table: show_render.render_table,
        Format.markdown: show_render.render_markdown,
    }
    emit(renderers[format](report), output, force)
    if not quiet:
        print(
            f"tracekit show: {report.format}, {report.episode_count} episode(s), no integrity data; exit 0",
            file=sys.stderr,
        )
    raise typer.Exit(0)


def _show_agentguard(
    path: str, report: VerifyReport, format: Format, output: Path | None, force: bool, quiet: bool
) -> NoReturn:
    """show for an AgentGuard trace: the verified trace's identity and counts."""
    from tracekit.report.verify_render import (
        render_show_json,
        render_show_markdown,
        render_show_table,
    )

    if not report.intact:
        _show_refused(path, list(report.findings), format, output, force)
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
