"""Suite mode's output (``check --suite``): upstream's suite rendering, the findings campaign
over folders paired with scenarios, or both in one document (docs/findings.md, "Command line")."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from tracekit.judging.harness.evaluate import SuiteEntry, SuiteResult
from tracekit.report.findings_render import (
    CampaignReport,
    _json,
    campaign_run,
    campaign_testsuite,
    render_campaign,
)
from tracekit.report.harness_junit import suite_testsuites
from tracekit.report.harness_sarif import Log, dumps_log, suite_run
from tracekit.report.jsonout import dumps_chunks


class SuiteDocument(SuiteResult, frozen=True, omit_defaults=True):
    """Suite mode's JSON when some scenarios were judged as findings campaigns: upstream's suite
    result plus the campaign report under ``findings``."""

    findings: CampaignReport | None = None
    """The campaign over the folders paired with scenarios (docs/findings.md, "Command line")."""


def suite_json_chunks(
    head: SuiteResult, entries: Iterable[SuiteEntry], report: CampaignReport | None
) -> Iterator[str]:
    """:func:`suite_document`'s JSON in chunks, streaming ``entries`` (the suite's scenarios,
    from a spool) without holding them: joined, byte-identical (report/jsonout.py)."""
    whole = head if report is None else SuiteDocument(**msgspec.structs.asdict(head), findings=report)
    data: dict[str, Any] = msgspec.to_builtins(whole)
    del data["scenarios"]
    return dumps_chunks(data, {"scenarios": (msgspec.to_builtins(entry) for entry in entries)})


def suite_document(suite: SuiteResult | None, report: CampaignReport | None, fmt: str) -> str:
    """Suite mode's output (docs/findings.md, "Command line"): upstream's suite rendering
    unchanged when no scenario was paired with a folder; the campaign alone when every one was;
    otherwise both: JSON gains a ``findings`` key, table and Markdown append the campaign, JUnit
    appends its testsuite and SARIF its run."""
    from tracekit.report.harness_render import RENDERERS

    if suite is None:
        return render_campaign(report, fmt) if report is not None else ""
    if report is None:
        return RENDERERS[fmt].suite(suite)
    if fmt == "json":
        return _json(SuiteDocument(**msgspec.structs.asdict(suite), findings=report))
    if fmt == "sarif":
        return dumps_log(Log(runs=(suite_run(suite), campaign_run(report))), sort_keys=True)
    if fmt == "junit":
        from xml.etree.ElementTree import tostring

        root = suite_testsuites(suite)
        root.append(campaign_testsuite(report))
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + tostring(root, encoding="unicode") + "\n"
    return RENDERERS[fmt].suite(suite).rstrip("\n") + "\n\n" + render_campaign(report, fmt)
