"""``tracekit audit``: can each third-party trace prove its finding? (docs/audit.md)

Exit codes (the worst trace wins):

* 0: every trace is intact (or, for a harness trace, readable), consistent and complete;
* 1: some finding of severity warning or above: an inconsistency, a verdict that does not
  follow, evidence a colleague would need to rerun the finding, a misleading record;
* 2: a trace could not be read, is in no known format, or is not intact (as ``verify`` exits),
  or the command line, the scenario or the output location is unusable.

Every file's format is detected by structure, or given with ``--input-format`` (docs/formats.md,
"Using it from the command line"). Files named on the command line are always audited; folders
are walked for ``*.jsonl``, ``*.json`` and ``*.eval`` (never ``*.expected.json``), and walked
``.json`` files that no format accepts (a results file, a manifest) are skipped and counted in
the summary.
"""

from __future__ import annotations

from pathlib import Path

import typer

from tracekit.cli.audit_io import AuditOptions
from tracekit.cli.common import (
    ExecutorName,
    ExecutorOptions,
    FindingsFormat,
    InputFormat,
    fail,
    parse_roots,
)
from tracekit.cli.options import (
    CONNECT_TIMEOUT,
    EXECUTOR,
    FINDINGS_FORMAT,
    INPUT_FORMAT,
    JOBS,
    SCHEDULER,
    TRUSTED_ROOT,
    Command,
)
from tracekit.cli.sink import check_target
from tracekit.kernel.errors import Code


def _scenario_bytes(path: Path | None) -> bytes | None:
    """The scenario's bytes, validated once up front; exit 2 with its finding if unusable."""
    if path is None:
        return None
    from tracekit.cli.check_io import scenario_or_exit

    return scenario_or_exit(path)[0]


def audit(
    paths: list[str] = typer.Argument(
        ..., metavar="TRACE...", help="Trace files or folders (recursing into *.jsonl, *.json, *.eval); - for stdin."
    ),
    scenario: Path = typer.Option(
        None, "--scenario", metavar="FILE", help="Harness scenario YAML: also run its assertions on harness traces."
    ),
    strict: bool = typer.Option(
        False, "--strict", help="With --scenario: strict semantics on harness traces too (other formats always)."
    ),
    format: FindingsFormat = FINDINGS_FORMAT,
    input_format: InputFormat = INPUT_FORMAT,
    strict_sources: bool = typer.Option(
        False, "--strict-sources", help="An unavailable source is a failure (AgentGuard)."
    ),
    trusted_root: list[str] = TRUSTED_ROOT,
    jobs: int = JOBS,
    executor: ExecutorName = EXECUTOR,
    scheduler: str = SCHEDULER,
    connect_timeout: float = CONNECT_TIMEOUT,
    output: Path = typer.Option(
        None, "--output", "-o", metavar="FILE", help="Write the report here instead of stdout."
    ),
    force: bool = typer.Option(False, "--force", help="Replace an existing --output file."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No summary line on stderr."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Campaign tables: every file's own tables too."),
    db: Path = typer.Option(
        None, "--db", metavar="FILE", help="Audit one campaign folder into this store (DuckDB): only new or "
        "changed files are read; query it with `tracekit db`."
    ),
    new_root: bool = typer.Option(
        False, "--new-root", help="With --db: record this folder in a store that holds runs of "
        "another campaign folder (refused otherwise)."
    ),
    episode: str = typer.Option(None, "--episode", metavar="ID", help="Audit only this episode of TRACE (ids: tracekit show TRACE)."),
) -> None:
    """Audit traces: intact, consistent, verdict reproduced, evidence complete enough to rerun.

    Exit 0 all clean, 1 any warning or worse, 2 a trace unreadable, unknown or not intact."""
    from tracekit.cli import audit_flow

    run = ExecutorOptions(executor, jobs, scheduler, connect_timeout)
    if output is not None:
        check_target(output, force)
    if episode is not None and (len(paths) != 1 or Path(paths[0]).is_dir() or db is not None):
        fail(Code.CLI_OPTION_NEEDS, option="--episode", other="exactly one TRACE file, without --db")
    opts = _options(scenario, strict, input_format, strict_sources, trusted_root, episode)
    _store(paths, opts, run, db, new_root, (format.value, output, force, quiet))
    audit_flow.audit(paths, format, opts, run, output, force, quiet, verbose)


def _options(
    scenario: Path | None, strict: bool, input_format: InputFormat | None, strict_sources: bool, trusted_root: list[str],
    episode: str | None,
) -> AuditOptions:
    """What every file is audited with; exits 2 on an unusable option or scenario."""
    roots = tuple((k, str(v.resolve())) for k, v in parse_roots(trusted_root).items())
    forced = None if input_format is None else input_format.value
    if strict and scenario is None:
        fail(Code.CLI_OPTION_NEEDS, option="--strict", other="--scenario")
    return AuditOptions(strict_sources, roots, _scenario_bytes(scenario), forced, strict, episode)


def _store(
    paths: list[str], opts: AuditOptions, run: ExecutorOptions, db: Path | None, new_root: bool,
    out: tuple[str, Path | None, bool, bool],
) -> None:
    """With ``--db``: the store run (docs/campaign-store.md), handed off whole to the db command
    module, which exits."""
    if new_root and db is None:
        fail(Code.CLI_OPTION_NEEDS, option="--new-root", other="--db")
    if db is None:
        return
    from tracekit.cli.db_cmd import StoreRun, audit_into_store

    if len(paths) != 1:
        fail(Code.STORE_CAMPAIGN_ROOT)
    audit_into_store(StoreRun(paths[0], opts, db, run, *out, new_root))


def register(app: typer.Typer) -> None:
    """Add ``audit`` to the app."""
    app.command("audit", cls=Command)(audit)
