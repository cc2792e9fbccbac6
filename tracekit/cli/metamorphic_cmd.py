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
from typing import TYPE_CHECKING, Any

import typer

from tracekit.cli.common import (
    CONNECT_TIMEOUT,
    EXECUTOR,
    EXIT_ERROR,
    EXIT_FAIL,
    EXIT_OK,
    FORCE,
    FORMAT,
    JOBS,
    OUTPUT,
    SCHEDULER,
    Command,
    ExecutorName,
    ExecutorOptions,
    Format,
    Inputs,
    collect_inputs,
    diag,
    fail,
    worst,
)
from tracekit.cli.sink import check_target, emit
from tracekit.kernel.errors import Code, Finding, Severity, TracekitError, finding
from tracekit.kernel.limits import DEFAULT_BUDGET
from tracekit.report.jsonout import set_head
from tracekit.report.text import display_path

if TYPE_CHECKING:
    from collections import Counter
    from types import ModuleType

    import msgspec

    from tracekit.judging.findings.transforms import EvidenceTransform
    from tracekit.judging.metamorphic import StudyConfig, Tally
    from tracekit.judging.metamorphic.report import StudyReport
    from tracekit.kernel.executors import Executor


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


def _check_paths(paths: list[str]) -> None:
    """Standard input is refused; a path named on the command line must be a file or folder."""
    for raw in paths:
        if raw == "-":
            fail(Code.METAMORPHIC_STDIN_UNSUPPORTED)
        if not Path(raw).is_dir() and not Path(raw).is_file():
            diag(finding(Code.FORMAT_UNREADABLE), raw)
            raise typer.Exit(EXIT_ERROR)


def _inputs(paths: list[str]) -> Inputs:
    _check_paths(paths)
    inputs = collect_inputs(paths)
    if not inputs.files:
        inputs.note()
        fail(Code.CLI_NO_INPUT)
    return inputs


def _sweep(
    inputs: list[str], config: StudyConfig, executor: Executor, spools: _Spools, quiet: bool
) -> Tally:
    """Stream every trace's result into the tally and the spools (the workers write the
    transformed traces into the staging folder themselves: metamorphic/staging.py)."""
    from tracekit.cli.metamorphic_output import Progress
    from tracekit.judging.metamorphic import Tally, run_study

    tally = Tally(config)
    progress = Progress(len(inputs), sys.stderr.isatty() and not quiet)
    cases = 0
    results = run_study(inputs, config, executor)
    try:
        for result in results:
            tally.add(result)
            cases += len(result.cases)
            spools.cases.extend(result.cases)
            if result.skipped is not None:
                spools.skipped.add(result.skipped)
            progress.update(tally.sources, cases, tally.failed)
        progress.update(tally.sources, cases, tally.failed, final=True)
    finally:
        # Stop the workers before the caller removes the staging folder they write into.
        close = getattr(results, "close", None)
        if close is not None:
            close()
        progress.finish()
    return tally


class _Spools:
    """The typed spools of one study: its cases and its skipped sources (or episodes)."""

    def __init__(self, case: type[msgspec.Struct], skipped: type[msgspec.Struct]) -> None:
        from tracekit.cli.spool import Spool

        self.cases: Spool[Any] = Spool(case)
        self.skipped: Spool[Any] = Spool(skipped)

    def emit(self, render: ModuleType, report: StudyReport, format: Format, output: Path | None, force: bool) -> None:
        if format is Format.json:
            emit(render.json_chunks(report.head, self.cases.read(), self.skipped.read()), output, force)
        elif format is Format.markdown:
            emit(render.render_markdown(report), output, force)
        else:
            emit(render.render_table(report), output, force)

    def close(self) -> None:
        self.cases.close()
        self.skipped.close()


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


def _evidence_study(
    paths: list[str], scenario_path: Path, strict: bool | None, selection: tuple[str, ...], trials: int, seed: int,
    run: ExecutorOptions, format: Format, output: Path | None, force: bool, allow_failures: bool, quiet: bool,
) -> int:
    """``metamorphic --scenario``: sweeps over evidence (module docstring)."""
    from collections import Counter

    from tracekit.cli import check_io, findings_io
    from tracekit.judging.findings.sweep import (
        SkippedEpisode,
        SweepCase,
        SweepShape,
        SweepTally,
        evidence_head,
    )
    from tracekit.judging.harness.scenario import parse_scenario
    from tracekit.judging.metamorphic import study_id, study_path
    from tracekit.judging.metamorphic.report import FailedCase, StudyReport
    from tracekit.report import metamorphic_render as render
    from tracekit.report.findings_render import shown

    _check_paths(paths)
    try:
        scenario_bytes = check_io.read_scenario(str(scenario_path))
        scenario = parse_scenario(scenario_bytes)
    except TracekitError as error:
        diag(error.finding, "scenario")
        raise typer.Exit(EXIT_ERROR) from None
    walked, named, _ = findings_io.campaign_files(paths)
    if not walked.files:
        walked.note()
        fail(Code.CLI_NO_INPUT)
    if output is not None:
        check_target(output, force)
    mode = "compatible" if strict is False else "strict"
    identity = study_id([study_path(p) for p in walked.files], [*selection, f"scenario={scenario.id}", mode], trials, seed)
    jobs = [
        findings_io.SweepJob(str(Path(p).absolute()), study_path(p), p in named, scenario_bytes, strict, trials, selection)
        for p in walked.files
    ]
    tally = SweepTally.new([t for t in _transforms(selection)])
    file_skips: Counter[str] = Counter()
    episodes_skipped = 0
    spools = _Spools(SweepCase, SkippedEpisode)
    judged_compatible = strict is False
    try:
        try:
            executor = run.make(len(jobs))
            for part in executor.map_ordered(findings_io.sweep_job, jobs):
                if part.code is not None:
                    file_skips[part.code] += 1
                    spools.skipped.add(SkippedEpisode(part.name, None, part.code))
                    continue
                tally.episodes += part.episodes
                judged_compatible = judged_compatible or not part.strict
                episodes_skipped += part.skipped_total
                for case in part.cases:
                    tally.add(case)
                spools.cases.extend(part.cases)
                spools.skipped.extend(part.skipped)
        except TracekitError as error:
            diag(error.finding)
            raise typer.Exit(EXIT_ERROR) from None
        mode = "compatible" if judged_compatible else "strict"
        shape = SweepShape(identity, scenario.id, not judged_compatible, trials, seed, len(jobs),
                           tuple(sorted(file_skips.items())), episodes_skipped)
        failures = tuple(
            FailedCase(f"{c.trace} {shown(c.episode)}", c.transform, c.trial, c.reason) for c in tally.failures
        )
        report = StudyReport(evidence_head(tally, shape), failures, tally.failed)
        nothing = bool(file_skips) and sum(file_skips.values()) == len(jobs)
        verdict = EXIT_ERROR if nothing else EXIT_FAIL if tally.failed and not allow_failures else EXIT_OK
        set_head(exit_code=worst(verdict, EXIT_FAIL if walked.too_deep else EXIT_OK))
        spools.emit(render, report, format, output, force)
    finally:
        spools.close()
    deep = walked.note()
    if tally.failed:
        total = sum(c.total for c in tally.summary.values())
        diag(finding(Code.METAMORPHIC_RELATIONS_FAILED, failed=tally.failed, total=total))
    if not quiet:
        print(render.summary_line(report) + f"; {tally.episodes} episode(s), {mode}", file=sys.stderr)
    if nothing:
        diag(finding(Code.METAMORPHIC_NOTHING_SWEPT, skipped=len(jobs)))
    return worst(verdict, deep)


def _transforms(names: tuple[str, ...]) -> list[EvidenceTransform]:
    from tracekit.judging.findings.transforms import BY_NAME

    return [BY_NAME[name] for name in names]


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
    from tracekit.cli.metamorphic_output import OutputDir, check_output_dir
    from tracekit.judging.metamorphic import (
        CaseResult,
        SkippedSource,
        StudyConfig,
        study_id,
        study_path,
    )
    from tracekit.report import metamorphic_render as render

    run = ExecutorOptions(executor, jobs, scheduler, connect_timeout)
    for flag, given in (("--compatible", compatible), ("--strict", strict)):
        if given and scenario is None:
            fail(Code.CLI_OPTION_NEEDS, option=flag, other="--scenario")
    if strict and compatible:
        fail(Code.CLI_OPTION_CONFLICT, option="--strict", other="--compatible")
    if scenario is not None:
        for flag, given in (("--output-dir", output_dir is not None), ("--strict-sources", strict_sources),
                            ("--require-replayable", require_replayable), ("--work-budget", work_budget is not None)):
            if given:
                fail(Code.CLI_OPTION_CONFLICT, option=flag, other="--scenario")
        code = _evidence_study(
            paths, scenario, True if strict else (False if compatible else None), _evidence_selection(transform), trials, seed, run, format, output,
            force, allow_robustness_failures, quiet,
        )
        raise typer.Exit(code)
    selection = _selection(transform)
    walked = _inputs(paths)
    inputs = walked.files
    if output is not None:
        check_target(output, force)
    if output_dir is not None:
        check_output_dir(output_dir, force)
    identity = study_id([study_path(p) for p in inputs], selection, trials, seed)
    spools = _Spools(CaseResult, SkippedSource)
    out: OutputDir | None = OutputDir(output_dir, force) if output_dir is not None else None
    config = StudyConfig(
        transforms=selection, trials=trials, seed=seed, strict_sources=strict_sources,
        require_replayable=require_replayable,
        budget_bytes=work_budget if work_budget is not None else DEFAULT_BUDGET.metamorphic_bytes,
        transformed_dir=str(out.staging) if out is not None else None,
    )
    try:
        try:
            chosen = run.make(len(inputs))
            tally = _sweep(inputs, config, chosen, spools, quiet)
        except TracekitError as error:
            diag(error.finding)
            raise typer.Exit(EXIT_ERROR) from None
        report = tally.report(identity)
        verdict, swept = _trace_verdict(tally, require_replayable, allow_robustness_failures)
        set_head(exit_code=worst(verdict, EXIT_FAIL if walked.too_deep else EXIT_OK))
        spools.emit(render, report, format, output, force)
        if out is not None:
            chunks = render.json_chunks(report.head, spools.cases.read(), spools.skipped.read())
            out.finish(render.render_markdown(report), chunks)
            out = None
    finally:
        spools.close()
        if out is not None:
            out.abandon()
    deep = walked.note()
    if tally.failed:
        diag(finding(Code.METAMORPHIC_RELATIONS_FAILED, failed=tally.failed, total=tally.total))
    if tally.budget_sources:
        diag(finding(Code.METAMORPHIC_WORK_BUDGET_EXCEEDED, limit=config.budget_bytes, cases=tally.budget_cases,
                     sources=tally.budget_sources))
    if not quiet:
        print(render.summary_line(report), file=sys.stderr)
    if not swept:
        found = finding(Code.METAMORPHIC_NOTHING_SWEPT, skipped=tally.skipped_total)
        diag(found if verdict == EXIT_ERROR else Finding(found.code, Severity.WARNING, found.message))
    raise typer.Exit(worst(verdict, deep))


def _trace_verdict(tally: Any, require_replayable: bool, allow_failures: bool) -> tuple[int, bool]:
    """A trace study's exit code, and whether anything was tested at all."""
    if not require_replayable and tally.skipped_total and tally.skipped_total == tally.sources:
        # Nothing was tested at all: never report that as "every relation held". An invalid
        # source is an input error (2); a valid but unreplayable one is a finding (1).
        invalid = any(code == Code.METAMORPHIC_SOURCE_INVALID.value for code, _ in tally.skipped)
        return (EXIT_ERROR if invalid else EXIT_FAIL), False
    failing = tally.failed > 0 or (require_replayable and tally.skipped_total > 0)
    verdict = EXIT_FAIL if failing and not allow_failures else EXIT_OK
    if tally.budget_sources:  # a study the work budget cut is never "passed" (docs/cli.md)
        verdict = EXIT_FAIL
    return verdict, True


def register(app: typer.Typer) -> None:
    """Add metamorphic to the app."""
    app.command("metamorphic", cls=Command)(metamorphic)
