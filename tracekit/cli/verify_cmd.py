"""``tracekit verify`` and ``tracekit show``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer

from tracekit.cli.common import (
    CONNECT_TIMEOUT,
    EXECUTOR,
    EXIT_ERROR,
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
    ExecutorName,
    ExecutorOptions,
    FindingsFormat,
    Format,
    InputFormat,
    Inputs,
    diag,
    fail,
    parse_roots,
    refuse_folder,
    worst,
)
from tracekit.cli.sink import check_target, emit
from tracekit.kernel.errors import Code, Finding, Severity, TracekitError

if TYPE_CHECKING:
    from tracekit.formats.agentguard.verify import VerifyReport
    from tracekit.report.show_render import EvidenceShow
    from tracekit.report.skipped import SkippedFile


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
    from tracekit.cli import verify_run

    run = ExecutorOptions(executor, jobs, scheduler, connect_timeout)
    if output is not None:
        check_target(output, force)
    roots = tuple((k, str(v.resolve())) for k, v in parse_roots(trusted_root).items())
    forced = None if input_format is None else input_format.value
    opts = verify_run.VerifyOptions(strict_sources, canonical, roots, forced, run, quiet)
    inputs = verify_run.inputs_of(paths)
    _other_inputs(inputs, trusted_key, format, output, force, quiet)
    named = set(paths)
    files, left_out = _split_bundles(inputs.files, named)
    if not files:  # sealed bundles only (docs/bundle-format.md): verified as bundles
        from tracekit.cli import bundle_cmd

        verdict = bundle_cmd.verify_bundles(inputs.files, trusted_key, format.value, output, force, quiet)
        raise typer.Exit(worst(verdict, inputs.note()))
    with verify_run.verified(verify_run.request(files, named, left_out, inputs, opts), opts) as campaign:
        emit(verify_run.render(campaign, format), output, force)
    if not quiet:
        print(verify_run.summary(campaign), file=sys.stderr)
    raise typer.Exit(worst(campaign.tally.exit_code, inputs.note()))


def _other_inputs(
    inputs: Inputs, trusted_key: list[str], format: FindingsFormat, output: Path | None, force: bool, quiet: bool
) -> None:
    """in-toto attestation files (docs/attest.md), never mixed with traces: verified as such,
    and the command exits."""
    attestations = [p for p in inputs.files if p.endswith(".intoto.jsonl")]
    if not attestations:
        return
    from tracekit.cli import attest_cmd

    if len(attestations) != len(inputs.files):
        fail(Code.CLI_OPTION_CONFLICT, option="Attestation files", other="traces in one run")
    verdict = attest_cmd.verify_attestations(inputs.files, trusted_key, format.value, output, force, quiet)
    raise typer.Exit(worst(verdict, inputs.note()))


def _split_bundles(found: list[str], named: set[str]) -> tuple[list[str], list[SkippedFile]]:
    """The traces to verify, and the walked bundles left out beside them (``cli.bundle_input``:
    a folder of bundles alone is verified as bundles). A bundle named with traces is refused."""
    from tracekit.cli.bundle_io import is_bundle
    from tracekit.report.skipped import SkippedFile

    bundles = {p for p in found if is_bundle(p)}
    if bundles and bundles & named and len(bundles) != len(found):
        fail(Code.CLI_OPTION_CONFLICT, option="Bundles", other="traces in one run")
    traces = [p for p in found if p not in bundles]
    if not traces:
        return [], []
    return traces, [SkippedFile(p, Code.CLI_BUNDLE_INPUT.value) for p in found if p in bundles]


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
