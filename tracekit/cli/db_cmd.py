"""``tracekit db``: query a campaign store, and ``tracekit audit campaign/ --db`` writes one
(docs/campaign-store.md).

Exit codes: ``db`` commands exit 0 with their report, 2 when the store cannot be used
(``store.*``: missing, locked by a running audit, newer schema, not a store, DuckDB not
installed) or the command line is wrong. ``audit --db`` exits as ``audit`` does (the worst
file of the run), 130 when interrupted (every file committed so far is kept and reused).
"""

from __future__ import annotations

import os
import signal
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import typer

from tracekit.cli.audit_io import AuditOptions
from tracekit.cli.common import ExecutorOptions, ExitCode, Format, diag, fail, say
from tracekit.cli.options import FORCE, FORMAT, OUTPUT, QUIET, Command
from tracekit.cli.sink import check_folder, check_target, emit, make_folder, write_files
from tracekit.kernel.errors import Code, TracekitError, finding
from tracekit.report.jsonout import set_head
from tracekit.store.db import KEY_ENV, MEMORY_ENV, MEMORY_MIB, MEMORY_MIN_MIB

FAULT_ENV = "TRACEKIT_STORE_FAULT"
"""Fault injection for the crash tests: ``ACTION:POINT:N`` sends this process SIGKILL
(``kill``), SIGINT (``int``) or SIGSTOP (``stop``: it pauses holding the store) at
``before_commit`` or ``after_commit`` once N files are committed (docs/campaign-store.md,
"Fault safety"); fires once."""

db_app = typer.Typer(
    name="db", help="Query a campaign store written by `tracekit audit --db`.",
    epilog=f"Environment: {MEMORY_ENV}, the MiB of buffers DuckDB may use for a store (default "
    f"{MEMORY_MIB}, at least {MEMORY_MIN_MIB}); {KEY_ENV}, the file holding the key that seals "
    "results (docs/campaign-store.md).",
    no_args_is_help=True, add_completion=False, rich_markup_mode=None,
)

DB = typer.Argument(..., metavar="FILE", help="The campaign store (a DuckDB file).")


R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class ReportOptions:
    """What every ``db`` query command shares: the store, the format and where the report goes."""

    db: Path
    format: Format
    output: Path | None
    force: bool
    quiet: bool

    def check(self) -> None:
        """The store is a file and the output can be written, before any work."""
        _check_store(self.db)
        if self.output is not None:
            check_target(self.output, self.force)


def _check_store(db: Path) -> None:
    if db.is_dir():
        fail(Code.CLI_NOT_A_FILE)


def _check_store_target(db: Path) -> None:
    """``audit --db``: the store is an output, checked by the output rules before any work
    (docs/cli.md, "Output rules"): a symlink, a folder, a special file, a missing parent folder
    or one the system refuses to write into get the ``cli.output_*`` codes. An existing store
    is written into without ``--force``: it is appended to, never replaced."""
    try:
        mode = os.lstat(db).st_mode
    except FileNotFoundError:
        parent = db.parent if str(db.parent) else Path(".")
        if not parent.is_dir():
            fail(Code.CLI_OUTPUT_PARENT_MISSING)
        if not os.access(parent, os.W_OK | os.X_OK):
            fail(Code.CLI_OUTPUT_UNWRITABLE)
        return
    except NotADirectoryError:
        fail(Code.CLI_OUTPUT_PARENT_MISSING)
    except (OSError, ValueError):
        fail(Code.CLI_OUTPUT_UNWRITABLE)
    if stat.S_ISLNK(mode):
        fail(Code.CLI_OUTPUT_UNSAFE)
    if stat.S_ISDIR(mode):
        fail(Code.CLI_OUTPUT_IS_FOLDER)
    if not stat.S_ISREG(mode):
        fail(Code.CLI_OUTPUT_NOT_REGULAR)
    if not os.access(db, os.R_OK | os.W_OK):
        fail(Code.CLI_OUTPUT_UNWRITABLE)


def _store_error(error: TracekitError) -> NoReturn:
    diag(error.finding)
    raise typer.Exit(ExitCode.ERROR)


def _queried(opts: ReportOptions, query: Callable[[Any], R]) -> R:
    """Check the report's options, then run ``query`` on the store opened read-only; a store
    error exits 2 with its code. The report about to be printed exits 0."""
    from tracekit.store.db import open_store

    opts.check()
    try:
        with open_store(opts.db, writable=False) as con:
            report = query(con)
    except TracekitError as error:
        _store_error(error)
    set_head(exit_code=0)
    return report



@db_app.command("summary", cls=Command)
def summary(
    db: Path = DB, format: Format = FORMAT, output: Path = OUTPUT, force: bool = FORCE, quiet: bool = QUIET
) -> None:
    """The latest completed run by format: files, episodes, intact, rerunnable, failing policies."""
    from tracekit.report.store_render import SUMMARY_RENDERERS
    from tracekit.store.queries import summary as query

    report = _queried(ReportOptions(db, format, output, force, quiet), query)
    emit(SUMMARY_RENDERERS[format](report), output, force)
    say(quiet, "db summary", f"run {report.run.run_id}: {report.files} files, {report.episodes} episodes")


@db_app.command("diff", cls=Command)
def diff(
    db: Path = DB,
    since: int = typer.Option(
        None, "--since", metavar="RUN", min=1,
        help="Compare from this run (default: the completed run before the latest).",
    ),
    format: Format = FORMAT,
    output: Path = OUTPUT,
    force: bool = FORCE,
    quiet: bool = QUIET,
) -> None:
    """Files whose content or verdicts changed, with their new, fixed and changed findings."""
    from tracekit.report.store_render import DIFF_RENDERERS
    from tracekit.store.diff import diff as query

    report = _queried(ReportOptions(db, format, output, force, quiet), lambda con: query(con, since))
    emit(DIFF_RENDERERS[format](report), output, force)
    say(
        quiet, "db diff",
        f"run {report.base_run} -> run {report.head_run}: {len(report.files)} files changed, "
        f"{report.unchanged} unchanged",
    )


@db_app.command("findings", cls=Command)
def findings(
    db: Path = DB,
    policy: str = typer.Option(
        None, "--policy", metavar="NAME", help="Only this check family (integrity, consistency, replay, "
        "completeness, failure_modes, outcome, format, other).",
    ),
    trace_format: str = typer.Option(
        None, "--trace-format", metavar="NAME", help="Only traces of this format (agentguard, harness, ...)."
    ),
    limit: int = typer.Option(10_000, "--limit", metavar="N", min=1, max=1_000_000, help="Rows shown."),
    format: Format = FORMAT,
    output: Path = OUTPUT,
    force: bool = FORCE,
    quiet: bool = QUIET,
) -> None:
    """Findings of the latest completed run, most severe first."""
    from tracekit.report.store_render import FINDINGS_RENDERERS
    from tracekit.store.ingest import POLICIES
    from tracekit.store.queries import findings as query

    if policy is not None and policy not in POLICIES:
        fail(Code.CLI_BAD_VALUE, option="--policy", expected="one of " + ", ".join(POLICIES))
    opts = ReportOptions(db, format, output, force, quiet)
    report = _queried(opts, lambda con: query(con, policy=policy, fmt=trace_format, limit=limit))
    emit(FINDINGS_RENDERERS[format](report), output, force)
    say(quiet, "db findings", f"run {report.run_id}: {report.total} finding(s), {len(report.rows)} shown")


@db_app.command("runs", cls=Command)
def runs(
    db: Path = DB, format: Format = FORMAT, output: Path = OUTPUT, force: bool = FORCE, quiet: bool = QUIET
) -> None:
    """Every run of the store, oldest first: status, tracekit version, files, exit, options."""
    from tracekit.report.store_render import RUNS_RENDERERS
    from tracekit.store.queries import runs as query

    report = _queried(ReportOptions(db, format, output, force, quiet), query)
    emit(RUNS_RENDERERS[format](report), output, force)
    complete = sum(1 for r in report.runs if r.status == "complete")
    say(quiet, "db runs", f"{len(report.runs)} run(s), {complete} complete")


@db_app.command("export", cls=Command)
def export(
    db: Path = DB,
    parquet: Path = typer.Option(None, "--parquet", metavar="DIR", help="Write one Parquet file per table here."),
    csv: Path = typer.Option(None, "--csv", metavar="DIR", help="Write one CSV file per table here."),
    format: Format = FORMAT,
    force: bool = FORCE,
    quiet: bool = QUIET,
) -> None:
    """Every table as Parquet or CSV files (for pandas, polars, DuckDB)."""
    import tempfile

    from tracekit.report.store_render import EXPORT_RENDERERS
    from tracekit.store.db import open_store
    from tracekit.store.export import (
        EXPORTED,
        Exported,
        ExportReport,
        Kind,
        export_table,
        file_name,
    )

    if parquet is None and csv is None:
        fail(Code.CLI_MISSING_ARGUMENT, what="--parquet DIR or --csv DIR")
    if parquet is not None and csv is not None:
        fail(Code.CLI_OPTION_CONFLICT, option="--parquet", other="--csv")
    kind: Kind = "parquet" if parquet is not None else "csv"
    folder = parquet if parquet is not None else csv
    assert folder is not None
    names = [file_name(t, kind) for t in EXPORTED]
    _check_store(db)
    check_folder(folder, names, force)
    tables: list[Exported] = []
    # DuckDB writes each table to a private staging folder; the sink then moves every file into
    # the output folder as one unit (docs/cli.md, "Output rules" step 4).
    with tempfile.TemporaryDirectory(prefix="tracekit-export-") as staging:
        try:
            with open_store(db, writable=False) as con:
                for table, name in zip(EXPORTED, names, strict=True):
                    rows = export_table(con, table, os.path.join(staging, name), kind)
                    tables.append(Exported(table, name, rows))
        except TracekitError as error:
            _store_error(error)
        make_folder(folder)
        write_files([(folder / name, _chunks(os.path.join(staging, name))) for name in names], force)
    set_head(exit_code=0)
    emit(EXPORT_RENDERERS[format](ExportReport(str(folder), kind, tables)))
    say(quiet, "db export", f"{len(tables)} tables, {sum(t.rows for t in tables)} rows as {kind}")


def _chunks(path: str) -> Iterator[bytes]:
    with open(path, "rb") as handle:
        while chunk := handle.read(1024 * 1024):
            yield chunk


SUFFIXES = (".jsonl", ".json", ".eval")
"""What a campaign walk picks up: the audited formats' and the imported formats' files."""


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


@dataclass(frozen=True, slots=True)
class StoreRun:
    """``tracekit audit ROOT --db FILE``'s options, as the audit command hands them off."""

    root: str
    audit: AuditOptions
    db: Path
    run: ExecutorOptions
    format: str
    """One of audit's formats: table, json, markdown, junit or sarif."""
    output: Path | None
    force: bool
    quiet: bool
    new_root: bool = False
    """Record a campaign folder other than the store's (docs/campaign-store.md)."""


KNOWN_OPTIONS = frozenset({"strict_sources", "roots", "scenario"})
"""The audit options the store keys by format; every other field of AuditOptions is part of
every format's key (docs/campaign-store.md, "The incremental rule")."""


def run_options(opts: AuditOptions) -> Any:
    """The store's :class:`~tracekit.store.incremental.RunOptions` of an audit: every option
    that can change a verdict, the scenario by the BLAKE3 of its bytes."""
    import dataclasses

    import msgspec
    from blake3 import blake3

    from tracekit.store.incremental import RunOptions

    other = tuple(sorted(
        (f.name, msgspec.json.encode(getattr(opts, f.name)).decode())
        for f in dataclasses.fields(opts) if f.name not in KNOWN_OPTIONS
    ))
    return RunOptions(
        strict_sources=opts.strict_sources,
        roots=tuple(sorted(opts.roots)),
        scenario=blake3(opts.scenario).hexdigest() if opts.scenario is not None else None,
        other=other,
    )


def audit_into_store(job: StoreRun) -> NoReturn:
    """``tracekit audit ROOT --db DB``: audit the campaign folder into the store, reading only
    new or changed files; print the run's report and exit with the worst file's code. The
    caller checked the output target before any work."""
    from tracekit import __version__
    from tracekit.cli.common import collect_inputs, worst
    from tracekit.cli.store_io import store_audit
    from tracekit.report.store_render import render_run
    from tracekit.store.db import load_key, open_store
    from tracekit.store.queries import run_exit, run_files, summary
    from tracekit.store.runner import run_into_store

    if not Path(job.root).is_dir():
        fail(Code.STORE_CAMPAIGN_ROOT)
    _check_store_target(job.db)
    root = os.path.abspath(job.root)
    paths = collect_inputs([root], SUFFIXES)  # absolute and normalised, as the store keeps them
    if not paths:
        paths.note()
        fail(Code.CLI_NO_INPUT)
    opts = job.audit
    options = run_options(opts)
    chosen = job.run.make(len(paths))
    started = time.perf_counter()
    try:
        with store_audit(chosen, opts, job.quiet) as audit, open_store(job.db, writable=True) as con:
            stats = run_into_store(
                con, root, paths.files, audit,
                version=__version__, options=options, hook=_fault_hook(), new_root=job.new_root,
                seal_key=load_key(),
            )
            report = summary(con, stats.run_id)
            exit_code = run_exit(con, stats.run_id)
            files = run_files(con, stats.run_id) if job.format in ("junit", "sarif") else []
    except TracekitError as error:
        _store_error(error)
    set_head(exit_code=exit_code)
    emit(render_run(report, files, job.format), job.output, job.force)
    if stats.unsealed:
        # docs/threat-model.md, "The campaign store": edited rows are never trusted.
        diag(finding(Code.STORE_SEAL_MISMATCH, count=stats.unsealed))
    say(
        job.quiet, "audit",
        f"run {stats.run_id}: {stats.files} files, {stats.audited} read, {stats.reused} reused, "
        f"exit {exit_code} ({time.perf_counter() - started:.1f} s)",
    )
    raise typer.Exit(worst(exit_code, paths.note()))


def register(app: typer.Typer) -> None:
    """Add ``db`` (summary, diff, findings, runs, export) to the app."""
    app.add_typer(db_app, name="db")
