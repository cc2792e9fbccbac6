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

import sys
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from tracekit.cli.audit_io import AuditJob, AuditOptions, audit_file, only_episode
from tracekit.cli.common import (
    CONNECT_TIMEOUT,
    EXECUTOR,
    EXIT_ERROR,
    FINDINGS_FORMAT,
    INPUT_FORMAT,
    JOBS,
    SCHEDULER,
    TRACE_SUFFIXES,
    TRUSTED_ROOT,
    Command,
    ExecutorName,
    ExecutorOptions,
    FindingsFormat,
    InputFormat,
    Inputs,
    absolute,
    collect_inputs,
    diag,
    fail,
    parse_roots,
    real_key,
    worst,
)
from tracekit.cli.sink import check_target, emit
from tracekit.kernel.errors import Code, TracekitError

if TYPE_CHECKING:
    pass


def _jobs(paths: list[str], opts: AuditOptions) -> tuple[list[AuditJob], int]:
    """One job per file (files named on the command line are ``named``); folders too deep."""
    jobs: list[AuditJob] = []
    too_deep = 0
    for raw in paths:
        if raw != "-" and Path(raw).is_dir():
            found = collect_inputs([raw], TRACE_SUFFIXES)
            too_deep += found.too_deep
            jobs += [AuditJob(path, absolute(path), False, opts) for path in found.files]
        else:
            jobs.append(AuditJob(raw, absolute(raw), True, opts))
    if sum(1 for job in jobs if job.path == "-") > 1:
        fail(Code.CLI_STDIN_TWICE)
    once: dict[str, AuditJob] = {}  # each file once: overlapping inputs (docs/cli.md, "Inputs and folders")
    for job in jobs:
        once.setdefault(real_key(job.path), job)
    return list(once.values()), too_deep


def _scenario_bytes(path: Path | None) -> bytes | None:
    """The scenario's bytes, validated once up front; exit 2 with its finding if unusable."""
    if path is None:
        return None
    from tracekit.cli import check_io
    from tracekit.cli.common import diag
    from tracekit.judging.harness.scenario import parse_scenario

    try:
        data = check_io.read_scenario(str(path))
        parse_scenario(data)
    except TracekitError as error:
        diag(error.finding, str(path))
        raise typer.Exit(2) from None
    return data


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
    from tracekit.judging.audit import Tally, with_episodes
    from tracekit.report import audit_render

    run = ExecutorOptions(executor, jobs, scheduler, connect_timeout)
    if output is not None:
        check_target(output, force)
    roots = tuple((k, str(v.resolve())) for k, v in parse_roots(trusted_root).items())
    forced = None if input_format is None else input_format.value
    if strict and scenario is None:
        fail(Code.CLI_OPTION_NEEDS, option="--strict", other="--scenario")
    if episode is not None and (len(paths) != 1 or Path(paths[0]).is_dir() or db is not None):
        fail(Code.CLI_OPTION_NEEDS, option="--episode", other="exactly one TRACE file, without --db")
    opts = AuditOptions(strict_sources, roots, _scenario_bytes(scenario), forced, strict, episode)
    if new_root and db is None:
        fail(Code.CLI_OPTION_NEEDS, option="--new-root", other="--db")
    if db is not None:
        # docs/campaign-store.md: the store run, handed off whole to the db command module.
        from tracekit.cli.db_cmd import StoreRun, audit_into_store

        if len(paths) != 1:
            fail(Code.STORE_CAMPAIGN_ROOT)
        audit_into_store(
            StoreRun(paths[0], opts, db, run, format.value, output, force, quiet, new_root)
        )

    work, too_deep = _jobs(paths, opts)
    walked = Inputs([], too_deep)
    if not work:
        walked.note()
        fail(Code.CLI_NO_INPUT)
    chosen = run.make(len(work), stdin=any(job.path == "-" for job in work))
    from tracekit.cli.spool import Spool
    from tracekit.judging.audit.model import AuditReport
    from tracekit.report.findings_render import SkippedFile
    from tracekit.report.verify_render import skipped_markdown, skipped_table

    spool = Spool(AuditReport)
    tally = Tally()
    try:
        left_out: list[SkippedFile] = []
        try:
            from tracekit.cli.progress import tracked

            for job, result in zip(work, tracked(chosen.map_ordered(audit_file, work), len(work), "audit", quiet), strict=True):
                if result is None:  # a walked .json no format accepts (docs/cli.md, "Inputs and folders")
                    left_out.append(SkippedFile(job.path, Code.FORMAT_UNKNOWN.value))
                    continue
                result = with_episodes(result)
                if episode is not None and not only_episode(result, episode):
                    fail(Code.FINDINGS_NO_EPISODE)
                spool.add(result)
                tally.add(result)
        except TracekitError as error:
            diag(error.finding)
            raise typer.Exit(EXIT_ERROR) from None
        if not tally.total:
            fail(Code.CLI_NO_INPUT)
        summary = tally.summary(len(left_out))
        exit_code = tally.exit
        if format is FindingsFormat.json:
            emit(audit_render.json_chunks(spool.read(), summary, exit_code, left_out), output, force)
        elif format is FindingsFormat.ocsf:
            from tracekit.report.ocsf import event_time_ms, render_ocsf

            wheres = [[f.where for f in t.findings] for t in spool.read()]
            emit(render_ocsf("audit", audit_render.as_findings(spool.read()), event_time_ms(), wheres), output, force)
        elif format is FindingsFormat.otlp:
            from tracekit.report.otlp import render_otlp

            wheres = [[f.where for f in t.findings] for t in spool.read()]
            emit(render_otlp("audit", audit_render.as_findings(spool.read()), wheres), output, force)
        elif format in (FindingsFormat.junit, FindingsFormat.sarif):
            from tracekit.report import findings

            render = findings.render_junit if format is FindingsFormat.junit else findings.render_sarif
            pairs = [(s.trace, s.code) for s in left_out]
            emit(render("audit", audit_render.as_findings(spool.read()), pairs), output, force)
        elif format is FindingsFormat.markdown:
            emit(chain(audit_render.markdown_chunks(spool.read(), summary), [skipped_markdown(left_out)]), output, force)
        else:
            emit(chain(audit_render.table_chunks(spool.read(), summary, verbose), [skipped_table(left_out)]), output, force)
    finally:
        spool.close()
    if not quiet:
        print(audit_render.summary_line(summary, exit_code), file=sys.stderr)
    raise typer.Exit(worst(exit_code, walked.note()))


def register(app: typer.Typer) -> None:
    """Add ``audit`` to the app."""
    app.command("audit", cls=Command)(audit)
