"""``tracekit verify`` and ``tracekit show``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from tracekit.cli.common import (
    EXIT_ERROR,
    Format,
    check_output_file,
    collect_inputs,
    diag,
    emit,
    fail,
    parse_roots,
)
from tracekit.errors import Code

_ROOT_HELP = "Trusted root for source artifacts, NAME=DIR (NAME: RUN_ROOT, REPOSITORY_ROOT, ...)."


def _verify_one(job: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    """Verify one trace in a worker; returns the report's JSON form (cheap to pickle)."""
    from tracekit.report.verify_render import trace_dict
    from tracekit.verify import VerifyOptions, verify_file

    path, opts = job
    options = VerifyOptions(
        strict_sources=opts["strict_sources"],
        canonical=opts["canonical"],
        trusted_roots={k: Path(v) for k, v in opts["roots"].items()},
    )
    return trace_dict(verify_file(path, options))


_WORKER_MODULES = ["tracekit.cli.verify_cmd", "tracekit.verify", "tracekit.report.verify_render"]


def verify_many(paths: list[str], opts: dict[str, Any], jobs: int) -> list[dict[str, Any]]:
    """Verify ``paths`` in order, in ``jobs`` worker processes when more than one."""
    work = [(p, opts) for p in paths]
    if jobs <= 1 or len(work) <= 1 or "-" in paths:
        return [_verify_one(job) for job in work]
    import multiprocessing
    import threading

    from tracekit.cli.common import ignore_sigint

    if threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods():
        # A single-threaded parent can fork safely: workers start with the verifier already
        # imported, which saves a fork server and an import per run (docs/performance.md).
        for module in _WORKER_MODULES:
            __import__(module)
        context: multiprocessing.context.BaseContext = multiprocessing.get_context("fork")
    else:
        # The fork server imports the verifier once; every worker forks from it ready to
        # verify instead of importing it again.
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(_WORKER_MODULES)
    with context.Pool(min(jobs, len(work)), initializer=ignore_sigint) as pool:
        return list(pool.imap(_verify_one, work, chunksize=1))


def verify(
    paths: list[str] = typer.Argument(..., help="Trace files or folders (recursing into *.jsonl); - for stdin."),
    format: Format = typer.Option(Format.table, "--format", "-f", help="Output format."),
    strict_sources: bool = typer.Option(False, "--strict-sources", help="An unavailable source fails (exit 1)."),
    trusted_root: list[str] = typer.Option(None, "--trusted-root", help=_ROOT_HELP),
    canonical: bool = typer.Option(False, "--canonical", help="Make non-canonical lines fatal."),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, max=256, help="Worker processes for many traces."),
    output: Path = typer.Option(None, "--output", "-o", help="Write the report here instead of stdout."),
    force: bool = typer.Option(False, "--force", help="Replace an existing --output file."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No summary line on stderr."),
    trusted_key: list[str] = typer.Option(None, "--trusted-key", help="Bundles: trusted Ed25519 public key file (PEM, one or more keys); repeatable."),
) -> None:
    """Verify traces: exit 0 intact, 1 intact but a source changed, 2 invalid (the worst wins)."""
    from tracekit.report.verify_render import render_json, render_table, summary_line, worst_exit

    if output is not None:
        check_output_file(output, force)
    roots = {k: str(v) for k, v in parse_roots(trusted_root).items()}
    inputs = collect_inputs(paths)
    if not inputs:
        fail(Code.CLI_NO_INPUT)
    from tracekit.cli import bundle_cmd

    bundles = [p for p in inputs if bundle_cmd.is_bundle(p)]
    if bundles:  # sealed bundles (docs/bundle-format.md), never mixed with traces in one run
        if len(bundles) != len(inputs):
            fail(Code.CLI_USAGE)
        raise typer.Exit(bundle_cmd.verify_bundles(inputs, trusted_key, format, output, force, quiet))
    opts = {"strict_sources": strict_sources, "canonical": canonical, "roots": roots}
    traces = verify_many(inputs, opts, jobs)
    render = render_json if format is Format.json else render_table
    emit(render(traces), output, force)
    if not quiet:
        print(summary_line(traces), file=sys.stderr)
    raise typer.Exit(worst_exit(traces))


def show(
    path: str = typer.Argument(..., help="A trace file, or - for stdin."),
    format: Format = typer.Option(Format.table, "--format", "-f", help="Output format."),
    trusted_root: list[str] = typer.Option(None, "--trusted-root", help=_ROOT_HELP),
) -> None:
    """Summarise a verified trace (never raw output or file content); exit 2 if it is invalid."""
    from tracekit.report.verify_render import render_show_json, render_show_table
    from tracekit.verify import VerifyOptions, verify_file

    report = verify_file(path, VerifyOptions(keep_events=True, trusted_roots=parse_roots(trusted_root)))
    if not report.intact:
        for found in report.findings:
            diag(found, path)
        raise typer.Exit(EXIT_ERROR)
    emit(render_show_json(report) if format is Format.json else render_show_table(report))
    raise typer.Exit(report.exit_code)


def register(app: typer.Typer) -> None:
    """Add verify and show to the app."""
    app.command("verify")(verify)
    app.command("show")(show)
