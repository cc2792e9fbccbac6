"""Harness results as ``check``'s findings report, so that ``check -f junit|sarif`` takes one
shape whatever the trace's format, for one trace and for a suite (docs/harness.md, "Results and
output formats"; docs/cli.md, "tracekit check").

A harness trace holds one episode (the harness reader names it ``trace``); its row is the
scenario's assertions exactly as upstream's evaluation reported them: id, result and evidence.
A suite is one such report per scenario and its trace; a scenario that was not judged (no
trace, an invalid scenario or trace, a repeated id) is the file it stopped at, as an unreadable
file of a campaign is. Only JUnit and SARIF use it: ``-f json`` stays upstream's result or
suite document, byte for byte (the compatibility contract, docs/harness.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from tracekit import REPORT_VERSION
from tracekit.formats.harness.reader import EPISODE_ID
from tracekit.judging.findings.judge import AssertionVerdict, ToolVerdict
from tracekit.judging.harness.evaluate import SuiteEntry, SuiteResult
from tracekit.judging.harness.model import HarnessResult
from tracekit.report.findings_render import (
    EpisodeEntry,
    FindingsReport,
    SkippedFile,
    campaign_run,
    campaign_testsuite,
    episode_results,
    junit_text,
    one_testsuite,
    render_one,
    shown,
    skipped_case,
)
from tracekit.report.findings_sarif import (
    FindingResult,
    FindingsRunProperties,
    findings_run,
    location,
    sarif_text,
)
from tracekit.report.harness_text import xml_safe
from tracekit.report.sarif import Text
from tracekit.report.text import display_path

if TYPE_CHECKING:
    from collections.abc import Iterator
    from xml.etree.ElementTree import Element

    from tracekit.report.findings_render import CampaignReport

RECORDED = "recorded outcome"
"""The scorer name of a harness trace's own recorded outcome, when it disagrees with the verdict."""
DRY_RUN_EPISODE = "dry_run"
"""The row of ``check --dry-run``: no trace was read, so no episode; every assertion not_run."""


def harness_report(result: HarnessResult, disagreements: int) -> FindingsReport:
    """``result`` as a findings report of one episode. ``disagreements`` is 1 when the trace's
    recorded outcome differs from the verdict (``audit.outcome_mismatch``), else 0."""
    verdicts = tuple(AssertionVerdict(a.id, a.result, a.evidence) for a in result.assertions)
    episode = EPISODE_ID if result.mode == "trace" else DRY_RUN_EPISODE
    recorded = (ToolVerdict(RECORDED, None, None, "disagree"),) if disagreements else ()
    entry = EpisodeEntry(episode, result.result, verdicts, recorded)
    return FindingsReport(REPORT_VERSION, result.scenario_id, "harness", result.semantics is not None, (entry,), disagreements)


def render(result: HarnessResult, fmt: str, source: str, disagreements: int) -> str | Iterator[str]:
    """JUnit or SARIF (``fmt``) of one harness result; ``source`` is the trace's path as the user
    gave it (the scenario's for a dry run), shown as the artifact."""
    return render_one(harness_report(result, disagreements), fmt, source)


# Suites (docs/harness.md, "Suite mode") ------------------------------------------------------


class SuiteRows(msgspec.Struct, frozen=True):
    """A suite for JUnit and SARIF: its aggregate (``head``, scenarios left out) and, per
    scenario in order, its entry and whether the judged trace's recorded outcome disagrees with
    the entry's result (None when no trace was judged: not known)."""

    head: SuiteResult
    rows: tuple[tuple[SuiteEntry, bool | None], ...]

    @property
    def strict(self) -> bool:
        return self.head.semantics is not None

    def judged(self) -> list[tuple[SuiteEntry, str, FindingsReport | None]]:
        """Each entry, the file it was judged at or stopped at, and its findings report (None
        when the scenario was not judged)."""
        found: list[tuple[SuiteEntry, str, FindingsReport | None]] = []
        for entry, disagrees in self.rows:
            outcome = entry.outcome(self.strict)
            if outcome is None or disagrees is None or entry.trace_path is None:
                found.append((entry, not_judged(entry).trace, None))
            else:
                found.append((entry, entry.trace_path, harness_report(outcome, int(disagrees))))
        return found


def not_judged(entry: SuiteEntry) -> SkippedFile:
    """A scenario that was not judged, as the file it stopped at (the trace for a missing or
    invalid trace, else the scenario) with its code (upstream's ``error_reason`` when none)."""
    at_trace = entry.error_reason in ("missing_trace", "invalid_trace") and entry.trace_path is not None
    path = entry.trace_path if at_trace and entry.trace_path is not None else entry.scenario_path
    code = entry.detail.code if entry.detail is not None else None
    return SkippedFile(path, code or str(entry.error_reason), error=True)


def _not_judged_suite(entry: SuiteEntry, strict: bool) -> Element:
    from xml.etree.ElementTree import Element, SubElement

    # A scenario's id is shown as check shows one (cut when long); without one, its path whole.
    name = shown(entry.scenario_id) if entry.scenario_id is not None else display_path(entry.scenario_path)
    suite = Element("testsuite", name=xml_safe(f"tracekit check {name}"), tests="1", failures="0", errors="1",
                    skipped="0")
    # No "disagreements" property: no trace was judged, so it is not known (never 0).
    SubElement(SubElement(suite, "properties"), "property", name="mode", value="strict" if strict else "compatible")
    skipped_case(suite, not_judged(entry))
    return suite


def suite_junit(suite: SuiteRows, campaign: CampaignReport | None) -> str:
    """One ``<testsuite>`` per scenario, each what ``check -f junit`` writes for that scenario
    and its trace; a scenario not judged is an ``<error>`` testcase at its file; a campaign's
    testsuite follows."""
    from xml.etree.ElementTree import Element

    root = Element("testsuites", name="tracekit check")
    for entry, path, report in suite.judged():
        root.append(one_testsuite(report, path) if report is not None else _not_judged_suite(entry, suite.strict))
    if campaign is not None:
        root.append(campaign_testsuite(campaign))
    return junit_text(root)


def suite_sarif(suite: SuiteRows, campaign: CampaignReport | None) -> str:
    """One run: each judged scenario's results as ``check -f sarif`` gives them for its trace,
    an error result at the file of each scenario not judged, then a campaign's results."""
    results: list[FindingResult] = []
    for entry, path, report in suite.judged():
        if report is not None:
            results += episode_results(report.episodes[0], path)
            continue
        code = not_judged(entry).code
        text = Text(f"Scenario not judged: {entry.error_reason} ({code}).")
        results.append(FindingResult(code, "error", text, (location(path),)))
    modes = {"harness:strict" if suite.strict else "harness:compatible"}
    if campaign is not None:
        run = campaign_run(campaign)
        results += run.results
        modes.update(run.properties.modes or ())
    properties = FindingsRunProperties("check", modes=tuple(sorted(modes)))
    return sarif_text(findings_run(sorted({r.ruleId for r in results}), results, properties))
