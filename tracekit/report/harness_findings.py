"""One harness result as ``check``'s findings report, so that ``check -f junit|sarif`` takes one
shape whatever the trace's format (docs/harness.md, "Results and output formats"; docs/cli.md,
"tracekit check").

A harness trace holds one episode (the harness reader names it ``trace``); its row is the
scenario's assertions exactly as upstream's evaluation reported them: id, result and evidence.
Only JUnit and SARIF use it: ``-f json`` on a harness trace stays upstream's result document,
byte for byte (the compatibility contract, docs/harness.md).
"""

from __future__ import annotations

from tracekit import REPORT_VERSION
from tracekit.formats.harness.reader import EPISODE_ID
from tracekit.judging.findings.judge import AssertionVerdict, ToolVerdict
from tracekit.judging.harness.model import HarnessResult
from tracekit.report.findings_render import EpisodeEntry, FindingsReport, render_one

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


def render(result: HarnessResult, fmt: str, source: str, disagreements: int) -> str:
    """JUnit or SARIF (``fmt``) of one harness result; ``source`` is the trace's path as the user
    gave it (the scenario's for a dry run), shown as the artifact."""
    return render_one(harness_report(result, disagreements), fmt, source)
