"""``tracekit audit``: can each third-party trace prove its finding? (docs/audit.md)

Exit codes (the worst trace wins):

* 0: every trace is intact (or, for a harness trace, readable), consistent and complete;
* 1: some finding of severity warning or above: an inconsistency, a verdict that does not
  follow, evidence a colleague would need to rerun the finding, a misleading record;
* 2: a trace could not be read, is in no known format, or is not intact (as ``verify`` exits),
  or the command line, the scenario or the output location is unusable.

Files named on the command line are always audited; folders are walked for ``*.jsonl`` and
``*.json`` and files there that are not traces at all (an ``expected.json``, a results file) are
skipped and counted in the summary.
"""

from __future__ import annotations

import enum
import sys
from pathlib import Path
from typing import Any

import typer

from tracekit.cli.common import check_output_file, collect_inputs, emit, fail, parse_roots
from tracekit.errors import Code, TracekitError

SUFFIXES = (".jsonl", ".json")
_ROOT_HELP = "Trusted root for source artifacts, NAME=DIR (NAME: RUN_ROOT, REPOSITORY_ROOT, ...)."


class AuditFormat(enum.StrEnum):
    """Output formats of ``tracekit audit``."""

    table = "table"
    json = "json"
    markdown = "markdown"


def _jobs(paths: list[str], opts: dict[str, Any]) -> list[tuple[str, bool, dict[str, Any]]]:
    jobs = []
    for raw in paths:
        if raw != "-" and Path(raw).is_dir():
            jobs += [(found, False, opts) for found in collect_inputs([raw], SUFFIXES)]
        else:
            jobs.append((raw, True, opts))
    return jobs


def _scenario_bytes(path: Path | None) -> bytes | None:
    """The scenario's bytes, validated once up front; exit 2 with its finding if unusable."""
    if path is None:
        return None
    from tracekit.cli import check_io
    from tracekit.cli.common import diag
    from tracekit.harness.scenario import parse_scenario

    try:
        data = check_io.read_scenario(str(path))
        parse_scenario(data)
    except TracekitError as error:
        diag(error.finding, str(path))
        raise typer.Exit(2) from None
    return data


def audit(
    paths: list[str] = typer.Argument(
        ..., help="Trace files or folders (recursing into *.jsonl and *.json); - for stdin."
    ),
    scenario: Path = typer.Option(
        None, "--scenario", help="Harness scenario YAML: also run its assertions on harness traces."
    ),
    format: AuditFormat = typer.Option(AuditFormat.table, "--format", "-f", help="Output format."),
    strict_sources: bool = typer.Option(
        False, "--strict-sources", help="An unavailable source is a failure (AgentGuard)."
    ),
    trusted_root: list[str] = typer.Option(None, "--trusted-root", help=_ROOT_HELP),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, max=256, help="Worker processes."),
    output: Path = typer.Option(
        None, "--output", "-o", help="Write the report here instead of stdout."
    ),
    force: bool = typer.Option(False, "--force", help="Replace an existing --output file."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No summary line on stderr."),
    db: Path = typer.Option(
        None, "--db", help="Audit one campaign folder into this store (DuckDB): only new or "
        "changed files are read; query it with `tracekit db`."
    ),
    executor: str = typer.Option(
        "local", "--executor", help="With --db: local or dask (imported when used)."
    ),
    scheduler: str = typer.Option(None, "--scheduler", help="With --db: Dask scheduler address."),
) -> None:
    """Audit traces: intact, consistent, verdict reproduced, evidence complete enough to rerun.

    Exit 0 all clean, 1 any warning or worse, 2 a trace unreadable, unknown or not intact."""
    from tracekit.audit import summarise, worst_exit
    from tracekit.cli.audit_io import audit_many
    from tracekit.report import audit_render

    if output is not None:
        check_output_file(output, force)
    roots = {k: str(v) for k, v in parse_roots(trusted_root).items()}
    opts: dict[str, Any] = {
        "strict_sources": strict_sources,
        "roots": roots,
        "scenario": _scenario_bytes(scenario),
    }
    if db is not None:
        # docs/campaign-store.md: the store run, handed off whole to the db command module.
        from tracekit.cli.db_cmd import audit_into_store

        if len(paths) != 1 or output is not None or executor not in ("local", "dask"):
            fail(Code.STORE_CAMPAIGN_ROOT if len(paths) != 1 else Code.CLI_USAGE)
        if scheduler is not None and executor != "dask":
            fail(Code.METAMORPHIC_SCHEDULER_NEEDS_DASK)
        audit_into_store(paths[0], opts, db, jobs=jobs, executor=executor, scheduler=scheduler,
                         format=format.value, quiet=quiet)
    work = _jobs(paths, opts)
    if not work:
        fail(Code.CLI_NO_INPUT)
    results = audit_many(work, jobs)
    traces = [r for r in results if r is not None]
    if not traces:
        fail(Code.CLI_NO_INPUT)
    summary = summarise(traces, skipped=len(results) - len(traces))
    renderer = {
        AuditFormat.json: audit_render.render_json,
        AuditFormat.table: audit_render.render_table,
        AuditFormat.markdown: audit_render.render_markdown,
    }[format]
    emit(renderer(traces, summary), output, force)
    if not quiet:
        print(audit_render.summary_line(traces, summary), file=sys.stderr)
    raise typer.Exit(worst_exit(traces))


def register(app: typer.Typer) -> None:
    """Add ``audit`` to the app."""
    app.command("audit")(audit)
