"""``tracekit metamorphic``: metamorphic robustness sweeps, locally or on a Dask cluster.

Exit codes (docs/metamorphic.md, docs/cli.md):

* 0: every applicable relation held (or ``--allow-robustness-failures``);
* 1: some relation did not hold, or ``--require-replayable`` and some source was skipped, or
  every source was valid but not replayable (nothing was swept);
* 2: an error: unknown or duplicate transform name, no input, an unreadable path named on the
  command line, an existing output without ``--force``, the Dask backend unavailable, or every
  source was skipped and at least one failed verification (``metamorphic.nothing_swept``).

With ``--scenario FILE`` the sweep runs over the evidence model instead (docs/findings.md,
"Metamorphic sweeps over evidence"): files of any supported format, transforms on episodes and
relations on the scenario's policy verdict; in the mode of each file's format unless ``--strict``
or ``--compatible`` (upstream's semantics on every file) is given (docs/cli.md, "Verdicts and
modes"). The exit codes are the same; a file no format reads is a skipped source.

Source traces that do not verify or are not replayable are reported as skipped sources (never
as passed cases) and do not change the exit code unless ``--require-replayable`` is given.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from tracekit.cli.common import (
    EXIT_ERROR,
    ExecutorName,
    ExecutorOptions,
    Format,
    Inputs,
    collect_inputs,
    diag,
    fail,
)
from tracekit.cli.options import (
    CONNECT_TIMEOUT,
    EXECUTOR,
    FORCE,
    FORMAT,
    JOBS,
    OUTPUT,
    SCHEDULER,
    Command,
)
from tracekit.kernel.errors import Code, TracekitError, finding
from tracekit.report.text import display_path


def _selection(values: list[str] | None) -> tuple[str, ...]:
    from tracekit.judging.metamorphic import NAMES, select

    names = [item.strip() for raw in values or [] for item in raw.split(",")]
    if values is not None and values and not any(names):
        fail(Code.CLI_MISSING_ARGUMENT, what="a transform name after -t/--transform")
    try:
        return select(values)
    except TracekitError as error:
        diag(error.finding)
        unknown = [name for name in names if name and name not in NAMES]
        if unknown:  # the user's own argument, escaped for the terminal
            print("tracekit: not a transform: " + display_path(unknown[0]), file=sys.stderr)
        print("tracekit: known transforms: " + ", ".join(NAMES), file=sys.stderr)
        raise typer.Exit(EXIT_ERROR) from None


def _inputs(paths: list[str]) -> Inputs:
    from tracekit.cli.metamorphic_run import check_paths

    check_paths(paths)
    inputs = collect_inputs(paths)
    if not inputs.files:
        inputs.note()
        fail(Code.CLI_NO_INPUT)
    return inputs


def _evidence_selection(values: list[str] | None) -> tuple[str, ...]:
    """``--transform`` names against the evidence transforms (docs/findings.md)."""
    from tracekit.judging.findings.transforms import BY_NAME, TRANSFORMS

    names = [item.strip() for raw in values or [] for item in raw.split(",") if item.strip()]
    if values and not names:
        fail(Code.CLI_MISSING_ARGUMENT, what="a transform name after -t/--transform")
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        diag(finding(Code.METAMORPHIC_UNKNOWN_TRANSFORM))
        print("tracekit: not a transform: " + display_path(unknown[0][:64]), file=sys.stderr)
        print("tracekit: known transforms: " + ", ".join(BY_NAME), file=sys.stderr)
        raise typer.Exit(EXIT_ERROR)
    if len(set(names)) != len(names):
        fail(Code.METAMORPHIC_DUPLICATE_TRANSFORM)
    return tuple(names) if names else tuple(t.name for t in TRANSFORMS)


def metamorphic(
    paths: list[str] = typer.Argument(..., metavar="TRACE...", help="Trace files or folders (recursing into *.jsonl)."),
    transform: list[str] = typer.Option(
        None, "--transform", "-t", metavar="NAMES", help="Transforms to run, comma-separated (default: all)."
    ),
    trials: int = typer.Option(1, "--trials", metavar="N", min=1, max=10_000, help="Trials per transform."),
    seed: int = typer.Option(0, "--seed", metavar="N", min=0, max=2**31 - 1, help="Seed for seeded transforms."),
    jobs: int = JOBS,
    executor: ExecutorName = EXECUTOR,
    scheduler: str = SCHEDULER,
    connect_timeout: float = CONNECT_TIMEOUT,
    format: Format = FORMAT,
    output: Path = OUTPUT,
    output_dir: Path = typer.Option(
        None, "--output-dir", metavar="DIR", help="Write metamorphic.json, metamorphic.md and transformed/ here."
    ),
    force: bool = FORCE,
    strict_sources: bool = typer.Option(
        False, "--strict-sources", help="A source with a changed or unavailable artifact is not swept."
    ),
    require_replayable: bool = typer.Option(
        False, "--require-replayable", help="A source that cannot be swept fails the study (exit 1)."
    ),
    allow_robustness_failures: bool = typer.Option(
        False, "--allow-robustness-failures", help="Exit 0 even when some relation did not hold."
    ),
    scenario: Path = typer.Option(
        None, "--scenario", metavar="FILE", help="Sweep the evidence of any format under this scenario's policies."
    ),
    strict: bool = typer.Option(
        False, "--strict", help="With --scenario: strict semantics on harness traces too (other formats always)."
    ),
    compatible: bool = typer.Option(
        False, "--compatible", help="With --scenario: upstream's semantics on every file (a study of them)."
    ),
    work_budget: int = typer.Option(
        None, "--work-budget", metavar="BYTES", min=1, max=2**62,
        help="Bytes of transformed traces built per source before its remaining cases are not run.",
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress or summary on stderr."),
) -> None:
    """Rewrite traces with metamorphic transforms and check that verdicts move only as declared."""
    from tracekit.cli import metamorphic_run as study

    run = ExecutorOptions(executor, jobs, scheduler, connect_timeout)
    _check_modes(scenario, strict, compatible, output_dir, strict_sources, require_replayable, work_budget)
    out = study.Output(format, output, force, quiet)
    if scenario is not None:
        mode = True if strict else (False if compatible else None)
        selection = _evidence_selection(transform)
        raise typer.Exit(study.evidence_study(
            study.EvidenceStudy(paths, scenario, mode, selection, trials, seed, run, out, allow_robustness_failures)
        ))
    selection = _selection(transform)
    request = study.TraceStudy(
        _inputs(paths), selection, trials, seed, run, out, output_dir, strict_sources, require_replayable,
        allow_robustness_failures, work_budget,
    )
    raise typer.Exit(study.trace_study(request))


def _check_modes(
    scenario: Path | None, strict: bool, compatible: bool, output_dir: Path | None, strict_sources: bool,
    require_replayable: bool, work_budget: int | None,
) -> None:
    """The options that need ``--scenario``, or that it excludes (exit 2)."""
    for flag, given in (("--compatible", compatible), ("--strict", strict)):
        if given and scenario is None:
            fail(Code.CLI_OPTION_NEEDS, option=flag, other="--scenario")
    if strict and compatible:
        fail(Code.CLI_OPTION_CONFLICT, option="--strict", other="--compatible")
    if scenario is None:
        return
    for flag, given in (("--output-dir", output_dir is not None), ("--strict-sources", strict_sources),
                        ("--require-replayable", require_replayable), ("--work-budget", work_budget is not None)):
        if given:
            fail(Code.CLI_OPTION_CONFLICT, option=flag, other="--scenario")


def register(app: typer.Typer) -> None:
    """Add metamorphic to the app."""
    app.command("metamorphic", cls=Command)(metamorphic)
