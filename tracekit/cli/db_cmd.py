"""``tracekit db``: query a campaign store, and ``tracekit audit campaign/ --db`` writes one
(docs/campaign-store.md).

Exit codes: ``db`` commands exit 0 with their report, 2 when the store cannot be used
(``store.*``: missing, locked by a running audit, newer schema, not a store, DuckDB not
installed) or the command line is wrong. ``audit --db`` exits as ``audit`` does (the worst
file of the run), 130 when interrupted (every file committed so far is kept and reused).
"""

from __future__ import annotations

import enum
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import typer

from tracekit.cli.audit_io import AuditJob, AuditOptions
from tracekit.cli.common import EXIT_ERROR, ExecutorOptions, diag, emit, fail
from tracekit.errors import Code, TracekitError

FAULT_ENV = "TRACEKIT_STORE_FAULT"
"""Fault injection for the crash tests: ``ACTION:POINT:N`` sends this process SIGKILL
(``kill``), SIGINT (``int``) or SIGSTOP (``stop``: it pauses holding the store) at
``before_commit`` or ``after_commit`` once N files are committed (docs/campaign-store.md,
"Fault safety"); fires once."""

db_app = typer.Typer(
    name="db", help="Query a campaign store written by `tracekit audit --db`.",
    no_args_is_help=True, add_completion=False, rich_markup_mode=None,
)


class OutputFormat(enum.StrEnum):
    """Output formats of the ``db`` reports."""

    table = "table"
    json = "json"
    markdown = "markdown"


FORMAT = typer.Option(OutputFormat.table, "--format", "-f", help="Output format.")
DB = typer.Argument(..., help="The campaign store (a DuckDB file).")


def _store_error(error: TracekitError) -> NoReturn:
    diag(error.finding)
    raise typer.Exit(EXIT_ERROR)


@db_app.command("summary")
def summary(db: Path = DB, format: OutputFormat = FORMAT) -> None:
    """The latest completed run by format: files, episodes, intact, rerunnable, failing policies."""
    from tracekit.report.store_render import render_summary
    from tracekit.store.db import open_store
    from tracekit.store.queries import summary as query

    try:
        with open_store(db, writable=False) as con:
            report = query(con)
    except TracekitError as error:
        _store_error(error)
    emit(render_summary(report, format.value))


@db_app.command("diff")
def diff(
    db: Path = DB,
    since: int = typer.Option(None, "--since", min=1, help="Compare from this run (default: "
                              "the completed run before the latest)."),
    format: OutputFormat = FORMAT,
) -> None:
    """Files whose content or verdicts changed, with their new, fixed and changed findings."""
    from tracekit.report.store_render import render_diff
    from tracekit.store.db import open_store
    from tracekit.store.diff import diff as query

    try:
        with open_store(db, writable=False) as con:
            report = query(con, since)
    except TracekitError as error:
        _store_error(error)
    emit(render_diff(report, format.value))


@db_app.command("findings")
def findings(
    db: Path = DB,
    policy: str = typer.Option(None, "--policy", help="Only this check family (integrity, "
                               "consistency, replay, completeness, failure_modes, outcome, "
                               "format, other)."),
    trace_format: str = typer.Option(None, "--trace-format", help="Only traces of this format "
                                     "(agentguard, harness, ...)."),
    limit: int = typer.Option(10_000, "--limit", min=1, max=1_000_000, help="Rows shown."),
    format: OutputFormat = FORMAT,
) -> None:
    """Findings of the latest completed run, most severe first."""
    from tracekit.report.store_render import render_findings
    from tracekit.store.db import open_store
    from tracekit.store.ingest import POLICIES
    from tracekit.store.queries import findings as query

    if policy is not None and policy not in POLICIES:
        fail(Code.CLI_USAGE)
    try:
        with open_store(db, writable=False) as con:
            report = query(con, policy=policy, fmt=trace_format, limit=limit)
    except TracekitError as error:
        _store_error(error)
    emit(render_findings(report, format.value))


@db_app.command("export")
def export(
    db: Path = DB,
    parquet: Path = typer.Option(None, "--parquet", help="Write one Parquet file per table here."),
    csv: Path = typer.Option(None, "--csv", help="Write one CSV file per table here."),
    force: bool = typer.Option(False, "--force", help="Replace existing files."),
) -> None:
    """Every table as Parquet or CSV files (for pandas, polars, DuckDB)."""
    from tracekit.cli.common import prepare_output_dir
    from tracekit.store.db import open_store
    from tracekit.store.export import EXPORTED, export_table, file_name

    if (parquet is None) == (csv is None):
        fail(Code.CLI_USAGE)
    kind: Any = "parquet" if parquet is not None else "csv"
    folder = parquet if parquet is not None else csv
    names = [file_name(t, kind) for t in EXPORTED]
    try:
        with open_store(db, writable=False) as con:
            prepare_output_dir(folder, names, force)
            for table, name in zip(EXPORTED, names, strict=True):
                temporary = folder / f".tracekit-{os.getpid()}-{name}"
                try:
                    rows = export_table(con, table, str(temporary), kind)
                    if (folder / name).is_symlink():
                        fail(Code.CLI_OUTPUT_UNSAFE)
                    os.replace(temporary, folder / name)
                finally:
                    if temporary.exists():
                        temporary.unlink()
                print(f"tracekit: {name}: {rows} rows", file=sys.stderr)
    except TracekitError as error:
        _store_error(error)


SUFFIXES = (".jsonl", ".json", ".eval")
"""What a campaign walk picks up: the audited formats' and the imported formats' files."""
AUDITED = frozenset({"agentguard", "harness"})
"""Formats ``tracekit audit`` audits in full; the others are stored per episode from evidence."""


def store_job(job: AuditJob) -> dict[str, Any] | None:
    """One campaign file's store result, in a worker: an imported format (Inspect, OTel,
    AgentDojo, garak) detected by the format layer becomes one row per episode
    (tracekit/store/episodes.py); anything else is audited as ``tracekit audit`` does."""
    from tracekit.cli.audit_io import audit_job
    from tracekit.formats import registry
    from tracekit.formats.base import DEFAULT_FORMAT_LIMITS, FormatError
    from tracekit.formats.reading import open_source
    from tracekit.store.episodes import evidence_result, format_error_result

    try:
        with open_source(job.source) as source:
            fmt = registry.detect(registry.read_prefix(source), source.name_suffix)
            if fmt is not None and fmt.name not in AUDITED:
                source.handle.seek(0)
                try:
                    return evidence_result(fmt.load(source, DEFAULT_FORMAT_LIMITS))
                except FormatError as error:
                    return format_error_result(fmt.name, error.finding)
    except FormatError:
        pass  # not readable as a file: the audit reports it with its own code
    return audit_job(job)


def _fault_hook() -> Any:
    spec = os.environ.get(FAULT_ENV)
    if not spec:
        return None
    action, point, count = spec.split(":")
    sig = {"kill": signal.SIGKILL, "int": signal.SIGINT, "stop": signal.SIGSTOP}[action]

    fired: list[bool] = []

    def hook(at: str, committed: int) -> None:
        if at == point and committed >= int(count) and not fired:
            fired.append(True)
            os.kill(os.getpid(), sig)
            if sig != signal.SIGSTOP:
                time.sleep(5)  # SIGINT's handler runs at the next bytecode; SIGKILL never returns

    return hook


def audit_into_store(
    root: str, opts: AuditOptions, db: Path, *, run: ExecutorOptions, format: str, quiet: bool,
) -> NoReturn:
    """``tracekit audit ROOT --db DB``: audit the campaign folder into the store, reading only
    new or changed files; print the run's summary and exit with the worst file's code."""
    from blake3 import blake3

    from tracekit import __version__
    from tracekit.cli.common import absolute, collect_inputs
    from tracekit.report.store_render import render_summary
    from tracekit.store.db import open_store
    from tracekit.store.incremental import RunOptions
    from tracekit.store.queries import summary as query
    from tracekit.store.runner import run_into_store

    if not Path(root).is_dir():
        fail(Code.STORE_CAMPAIGN_ROOT)
    paths = collect_inputs([root], SUFFIXES)
    if not paths:
        fail(Code.CLI_NO_INPUT)
    options = RunOptions(
        strict_sources=opts.strict_sources,
        roots=tuple(sorted(opts.roots)),
        scenario=blake3(opts.scenario).hexdigest() if opts.scenario is not None else None,
    )
    chosen = run.make(len(paths))

    def audit(files: list[str]) -> Iterator[dict[str, Any] | None]:
        return chosen.map_ordered(store_job, [AuditJob(f, absolute(f), False, opts) for f in files])

    started = time.perf_counter()
    try:
        with open_store(db, writable=True) as con:
            stats = run_into_store(
                con, os.path.abspath(root), [os.path.abspath(p) for p in paths], audit,
                version=__version__, options=options, hook=_fault_hook(),
            )
            report = query(con, stats.run_id)
            row = con.execute(
                "SELECT coalesce(max(r.exit_code), 0) FROM files f JOIN results r "
                "ON r.result_id = f.result_id WHERE f.run_id = ?", [stats.run_id],
            ).fetchone()
    except TracekitError as error:
        _store_error(error)
    emit(render_summary(report, format))
    exit_code = int(row[0]) if row else 0
    if not quiet:
        print(
            f"tracekit: run {stats.run_id}: {stats.files} files, {stats.audited} read, "
            f"{stats.reused} reused, exit {exit_code} ({time.perf_counter() - started:.1f} s)",
            file=sys.stderr,
        )
    raise typer.Exit(exit_code)


def register(app: typer.Typer) -> None:
    """Add ``db`` (summary, diff, findings, export) to the app."""
    app.add_typer(db_app, name="db")
