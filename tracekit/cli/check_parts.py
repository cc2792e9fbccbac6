"""What the three paths of ``tracekit check`` share (one harness trace, findings on any format,
the suite): its options and formats, its summary lines, and its mismatch and refusal
diagnostics (docs/harness.md, docs/findings.md)."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import typer

from tracekit.cli.common import (
    EXIT_ERROR,
    ExecutorOptions,
    diag,
)
from tracekit.cli.sink import emit
from tracekit.kernel.errors import Code, Finding, TracekitError, finding

if TYPE_CHECKING:
    from tracekit.judging.harness import Scenario, Trace
    from tracekit.judging.harness.evaluate import SuiteCounts
    from tracekit.judging.harness.model import Outcome

SUMMARY_NAME = "summary.json"


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """What ``check`` was asked to do, once the command line is known to be consistent."""

    strict: bool
    format: str
    output: Path | None
    force: bool
    exit_on_fail: bool
    include_trace: bool
    quiet: bool
    input_format: str | None = None
    episode: str | None = None
    run: ExecutorOptions = ExecutorOptions()
    """Where a campaign's or suite's files are judged (docs/cli.md, "Executors")."""


T = TypeVar("T")


class CheckFormat(enum.StrEnum):
    """Output formats of ``tracekit check``."""

    json = "json"
    table = "table"
    markdown = "markdown"
    junit = "junit"
    sarif = "sarif"
    ocsf = "ocsf"
    otlp = "otlp"


def counts_line(noun: str, results: Iterable[Outcome], disagree: int = 0) -> str:
    """The summary line for ``results`` (assertions, episodes), with the disagreements with the
    tool's own verdict when there are any (docs/cli.md, "Verdicts and modes")."""
    from tracekit.judging.harness.evaluate import SuiteCounts

    counts = SuiteCounts()
    for result in results:
        counts = counts.add(result)
    return tally_line(noun, counts) + (f", {disagree} disagree with the tool's verdict" if disagree else "")


def mismatch(count: int, where: str = "trace") -> None:
    """``audit.outcome_mismatch`` on stderr when ``count`` verdicts disagree with the tool's."""

    if count:
        diag(finding(Code.AUDIT_OUTCOME_MISMATCH), where)


def recorded_mismatch(trace: Trace, result: str) -> bool:
    """A harness trace's recorded outcome differs from ``result`` (reported on stderr; the
    result document stays upstream's)."""
    found = recorded_disagrees(trace, result)
    mismatch(int(found))
    return found


def recorded_disagrees(trace: Trace, result: str) -> bool:
    """A harness trace's recorded outcome differs from ``result`` (``audit.outcome_mismatch``);
    False when it records none."""
    from tracekit.formats.harness.view import HarnessView
    from tracekit.judging.audit.engine import recorded_comparison

    compared = recorded_comparison(HarnessView(top={}, trace=trace), result)
    return compared is not None and compared[0] is Code.AUDIT_OUTCOME_MISMATCH


def tally_line(noun: str, counts: SuiteCounts) -> str:
    """``tracekit check: N <noun>, a pass, b fail, c error, d not_run`` (docs/harness.md)."""
    return (
        f"tracekit check: {counts.total} {noun}, {counts.passed} pass, {counts.fail} fail, "
        f"{counts.error} error, {counts.not_run} not_run"
    )


def strict_hint(strict: bool, evidence: Iterable[str | None]) -> None:
    """In compatible mode, point assertions upstream does not implement to ``--strict``
    (docs/cli.md, "Verdicts and modes")."""
    from tracekit.judging.harness.model import not_implemented

    count = 0 if strict else not_implemented(evidence)
    if count:
        diag(finding(Code.HARNESS_COMPATIBLE_NOT_RUN, count=count))


def or_exit(path: str, action: Callable[[], T], refused: Callable[[Finding], None] | None = None) -> T:
    """Run one load step; on bad input print a diagnostic located at the input's ``path`` as the
    user named it (its content is never repeated), let
    ``refused`` write the error document, and exit 2."""
    try:
        return action()
    except TracekitError as error:
        diag(error.finding, path)
        if refused is not None:
            refused(error.finding)
        raise typer.Exit(EXIT_ERROR) from None


def refusal(
    opts: CheckOptions, scenario_path: str, trace_path: str | None, scenario: Scenario | None = None
) -> Callable[[Finding], None]:
    """What writes check's document for an input it cannot judge (docs/cli.md, "Inputs and
    folders"): in JSON, upstream's suite shape with one ``error`` entry whose ``detail`` names
    the code; in JUnit and SARIF, check's findings shape, the one a judged file gets, with the
    refused file as an unreadable file of a campaign (an ``<error>`` testcase; an error result)."""
    from tracekit.cli.input_errors import MACHINE_FORMATS
    from tracekit.judging.harness.evaluate import EntryDetail, SuiteEntry, SuiteResult
    from tracekit.report.harness_json import render_suite

    def write(found: Finding) -> None:
        if opts.format not in MACHINE_FORMATS:
            return
        if opts.format != "json":
            refused = scenario_path if scenario is None or trace_path is None else trace_path
            emit(_refused_findings(opts, refused, found, scenario), opts.output, opts.force)
            return
        detail = EntryDetail(code=found.code.value)
        if scenario is None:
            entry = SuiteEntry(scenario_path, "error", error_reason="invalid_scenario", evidence=found.message,
                               detail=detail)
        else:
            entry = SuiteEntry(scenario_path, "error", scenario.id, scenario.category, scenario.severity,
                               trace_path, "invalid_trace", found.message, detail)
        emit(render_suite(SuiteResult.of([entry], opts.strict)), opts.output, opts.force)

    return write


def _refused_findings(opts: CheckOptions, path: str, found: Finding, scenario: Scenario | None) -> str:
    """JUnit or SARIF of a check whose input ``path`` was refused with ``found``: the findings
    campaign shape (tracekit/report/findings_render.py) with that one file as unreadable."""
    from tracekit import REPORT_VERSION
    from tracekit.report.findings_render import CampaignReport, SkippedFile, render_campaign

    ids = () if scenario is None else (scenario.id,)
    unread = (SkippedFile(path, found.code.value, error=True),)
    report = CampaignReport(REPORT_VERSION, ids, opts.strict, 1, 0, 0, (), (), 0, unread, 1)
    return render_campaign(report, opts.format)
