"""``tracekit metamorphic``'s two studies as pipelines (docs/metamorphic.md, docs/findings.md
"Metamorphic sweeps over evidence"): a typed request -> the sources swept on an executor -> the
study's report -> the renderer and the diagnostics; each returns the exit code."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from tracekit.cli.common import (
    EXIT_ERROR,
    EXIT_FAIL,
    EXIT_OK,
    ExecutorOptions,
    Format,
    Inputs,
    diag,
    fail,
    worst,
)
from tracekit.cli.sink import check_target, emit
from tracekit.kernel.errors import Code, Finding, Severity, TracekitError, finding
from tracekit.kernel.limits import DEFAULT_BUDGET
from tracekit.report.jsonout import set_head

if TYPE_CHECKING:
    from collections import Counter

    import msgspec

    from tracekit.cli.findings_io import SweepJob
    from tracekit.judging.findings.sweep import SweepTally
    from tracekit.judging.findings.transforms import EvidenceTransform
    from tracekit.judging.metamorphic import StudyConfig, Tally
    from tracekit.judging.metamorphic.report import StudyReport
    from tracekit.kernel.executors import Executor


@dataclass(frozen=True, slots=True)
class Output:
    """Where and how a study's report goes."""

    format: Format
    output: Path | None
    force: bool
    quiet: bool


@dataclass(frozen=True, slots=True)
class TraceStudy:
    """A study of AgentGuard traces (docs/metamorphic.md)."""

    walked: Inputs
    selection: tuple[str, ...]
    trials: int
    seed: int
    run: ExecutorOptions
    out: Output
    output_dir: Path | None
    strict_sources: bool
    require_replayable: bool
    allow_failures: bool
    work_budget: int | None


@dataclass(frozen=True, slots=True)
class EvidenceStudy:
    """A sweep over the evidence of any format under a scenario (docs/findings.md)."""

    paths: list[str]
    scenario: Path
    strict: bool | None
    """``--strict`` (True), ``--compatible`` (False), or each format's own mode (None)."""
    selection: tuple[str, ...]
    trials: int
    seed: int
    run: ExecutorOptions
    out: Output
    allow_failures: bool


def check_paths(paths: list[str]) -> None:
    """Standard input is refused; a path named on the command line must be a file or folder."""
    for raw in paths:
        if raw == "-":
            fail(Code.METAMORPHIC_STDIN_UNSUPPORTED)
        if not Path(raw).is_dir() and not Path(raw).is_file():
            diag(finding(Code.FORMAT_UNREADABLE), raw)
            raise typer.Exit(EXIT_ERROR)


def trace_study(study: TraceStudy) -> int:
    """Sweep every trace of ``study``; render the report (and the output folder); the exit code."""
    from tracekit.cli.metamorphic_output import OutputDir, check_output_dir
    from tracekit.judging.metamorphic import CaseResult, SkippedSource, study_id, study_path

    inputs, out = study.walked.files, study.out
    if out.output is not None:
        check_target(out.output, out.force)
    if study.output_dir is not None:
        check_output_dir(study.output_dir, out.force)
    identity = study_id([study_path(p) for p in inputs], study.selection, study.trials, study.seed)
    spools = _Spools(CaseResult, SkippedSource)
    folder: OutputDir | None = OutputDir(study.output_dir, out.force) if study.output_dir is not None else None
    config = _config(study, folder)
    try:
        tally, report, verdict, swept = _trace_report(study, config, spools, identity)
        spools.emit(report, out)
        if folder is not None:
            from tracekit.report import metamorphic_render as render

            chunks = render.json_chunks(report.head, spools.cases.read(), spools.skipped.read())
            folder.finish(render.render_markdown(report), chunks)
            folder = None
    finally:
        spools.close()
        if folder is not None:
            folder.abandon()
    return _trace_diagnostics(study, config, tally, report, verdict, swept)


def _config(study: TraceStudy, folder: Any) -> StudyConfig:
    from tracekit.judging.metamorphic import StudyConfig

    budget = study.work_budget
    return StudyConfig(
        transforms=study.selection, trials=study.trials, seed=study.seed, strict_sources=study.strict_sources,
        require_replayable=study.require_replayable,
        budget_bytes=budget if budget is not None else DEFAULT_BUDGET.metamorphic_bytes,
        transformed_dir=str(folder.staging) if folder is not None else None,
    )


def _trace_report(
    study: TraceStudy, config: StudyConfig, spools: _Spools, identity: str
) -> tuple[Tally, StudyReport, int, bool]:
    """The sweep on the executor: the tally, the report, the verdict and whether anything was
    swept (the report's head carries the exit code)."""
    try:
        chosen = study.run.make(len(study.walked.files))
        tally = _sweep(study.walked.files, config, chosen, spools, study.out.quiet)
    except TracekitError as error:
        diag(error.finding)
        raise typer.Exit(EXIT_ERROR) from None
    report = tally.report(identity)
    verdict, swept = _trace_verdict(tally, study.require_replayable, study.allow_failures)
    set_head(exit_code=worst(verdict, EXIT_FAIL if study.walked.too_deep else EXIT_OK))
    return tally, report, verdict, swept


def _trace_diagnostics(
    study: TraceStudy, config: StudyConfig, tally: Tally, report: StudyReport, verdict: int, swept: bool
) -> int:
    from tracekit.report import metamorphic_render as render

    deep = study.walked.note()
    if tally.failed:
        diag(finding(Code.METAMORPHIC_RELATIONS_FAILED, failed=tally.failed, total=tally.total))
    if tally.budget_sources:
        diag(finding(Code.METAMORPHIC_WORK_BUDGET_EXCEEDED, limit=config.budget_bytes, cases=tally.budget_cases,
                     sources=tally.budget_sources))
    if not study.out.quiet:
        print(render.summary_line(report), file=sys.stderr)
    if not swept:
        found = finding(Code.METAMORPHIC_NOTHING_SWEPT, skipped=tally.skipped_total)
        diag(found if verdict == EXIT_ERROR else Finding(found.code, Severity.WARNING, found.message))
    return worst(verdict, deep)


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

    def emit(self, report: StudyReport, out: Output) -> None:
        from tracekit.report import metamorphic_render as render

        if out.format is Format.json:
            emit(render.json_chunks(report.head, self.cases.read(), self.skipped.read()), out.output, out.force)
        elif out.format is Format.markdown:
            emit(render.render_markdown(report), out.output, out.force)
        else:
            emit(render.render_table(report), out.output, out.force)

    def close(self) -> None:
        self.cases.close()
        self.skipped.close()


def evidence_study(study: EvidenceStudy) -> int:
    """``metamorphic --scenario``: sweep every file's episodes; render; the exit code."""
    from tracekit.cli import findings_io
    from tracekit.judging.findings.sweep import SkippedEpisode, SweepCase, SweepTally
    from tracekit.judging.metamorphic import study_id, study_path

    check_paths(study.paths)
    from tracekit.cli.check_io import scenario_or_exit

    scenario_bytes, scenario = scenario_or_exit(study.scenario)
    walked, named, _ = findings_io.campaign_files(study.paths)
    if not walked.files:
        walked.note()
        fail(Code.CLI_NO_INPUT)
    if study.out.output is not None:
        check_target(study.out.output, study.out.force)
    mode = "compatible" if study.strict is False else "strict"
    identity = study_id([study_path(p) for p in walked.files], [*study.selection, f"scenario={scenario.id}", mode],
                        study.trials, study.seed)
    jobs = [
        findings_io.SweepJob(str(Path(p).absolute()), study_path(p), p in named, scenario_bytes, study.strict,
                             study.trials, study.selection)
        for p in walked.files
    ]
    sweep = _EvidenceSweep(SweepTally.new(_transforms(study.selection)), study.strict is False)
    spools = _Spools(SweepCase, SkippedEpisode)
    try:
        sweep.run(study.run, jobs, spools)
        report, verdict, nothing = sweep.report(study, identity, scenario.id, len(jobs))
        set_head(exit_code=worst(verdict, EXIT_FAIL if walked.too_deep else EXIT_OK))
        spools.emit(report, study.out)
    finally:
        spools.close()
    return sweep.diagnostics(study, walked, report, verdict, nothing, len(jobs))


class _EvidenceSweep:
    """The evidence sweep's running counts, as the files' parts arrive in order."""

    def __init__(self, tally: SweepTally, judged_compatible: bool) -> None:
        from collections import Counter

        self.tally = tally
        self.file_skips: Counter[str] = Counter()
        self.episodes_skipped = 0
        self.judged_compatible = judged_compatible

    def run(self, run: ExecutorOptions, jobs: list[SweepJob], spools: _Spools) -> None:
        from tracekit.cli import findings_io
        from tracekit.judging.findings.sweep import SkippedEpisode

        tally = self.tally
        try:
            for part in run.make(len(jobs)).map_ordered(findings_io.sweep_job, jobs):
                if part.code is not None:
                    self.file_skips[part.code] += 1
                    spools.skipped.add(SkippedEpisode(part.name, None, part.code))
                    continue
                tally.episodes += part.episodes
                self.judged_compatible = self.judged_compatible or not part.strict
                self.episodes_skipped += part.skipped_total
                for case in part.cases:
                    tally.add(case)
                spools.cases.extend(part.cases)
                spools.skipped.extend(part.skipped)
        except TracekitError as error:
            diag(error.finding)
            raise typer.Exit(EXIT_ERROR) from None

    def report(self, study: EvidenceStudy, identity: str, scenario_id: str, files: int) -> tuple[StudyReport, int, bool]:
        """The study's report, its verdict, and whether every file was skipped."""
        from tracekit.judging.findings.sweep import SweepShape, evidence_head
        from tracekit.judging.metamorphic.report import FailedCase, StudyReport
        from tracekit.report.findings_render import shown

        tally = self.tally
        shape = SweepShape(identity, scenario_id, not self.judged_compatible, study.trials, study.seed, files,
                           tuple(sorted(self.file_skips.items())), self.episodes_skipped)
        failures = tuple(
            FailedCase(f"{c.trace} {shown(c.episode)}", c.transform, c.trial, c.reason) for c in tally.failures
        )
        report = StudyReport(evidence_head(tally, shape), failures, tally.failed)
        nothing = bool(self.file_skips) and sum(self.file_skips.values()) == files
        verdict = EXIT_ERROR if nothing else EXIT_FAIL if tally.failed and not study.allow_failures else EXIT_OK
        return report, verdict, nothing

    def diagnostics(
        self, study: EvidenceStudy, walked: Inputs, report: StudyReport, verdict: int, nothing: bool, files: int
    ) -> int:
        from tracekit.report import metamorphic_render as render

        tally = self.tally
        deep = walked.note()
        if tally.failed:
            total = sum(c.total for c in tally.summary.values())
            diag(finding(Code.METAMORPHIC_RELATIONS_FAILED, failed=tally.failed, total=total))
        if not study.out.quiet:
            mode = "compatible" if self.judged_compatible else "strict"
            print(render.summary_line(report) + f"; {tally.episodes} episode(s), {mode}", file=sys.stderr)
        if nothing:
            diag(finding(Code.METAMORPHIC_NOTHING_SWEPT, skipped=files))
        return worst(verdict, deep)


def _transforms(names: tuple[str, ...]) -> list[EvidenceTransform]:
    from tracekit.judging.findings.transforms import BY_NAME

    return [BY_NAME[name] for name in names]


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
