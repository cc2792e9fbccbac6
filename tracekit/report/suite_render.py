"""Suite mode's output (``check --suite``): upstream's suite rendering (JSON, table, Markdown),
check's findings shape (JUnit, SARIF), the findings campaign over folders paired with scenarios,
or both in one document (docs/harness.md, "Suite mode"; docs/findings.md, "Command line")."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from tracekit.judging.harness.evaluate import SuiteEntry, SuiteResult
from tracekit.report.findings_render import CampaignReport, render_campaign
from tracekit.report.harness_findings import SuiteRows, suite_junit, suite_sarif
from tracekit.report.jsonout import dumps_chunks


class SuiteDocument(SuiteResult, frozen=True, omit_defaults=True):
    """Suite mode's JSON when some scenarios were judged as findings campaigns: upstream's suite
    result plus the campaign report under ``findings``."""

    findings: CampaignReport | None = None
    """The campaign over the folders paired with scenarios (docs/findings.md, "Command line")."""


def suite_json_chunks(
    head: SuiteResult, entries: Iterable[SuiteEntry], report: CampaignReport | None
) -> Iterator[str]:
    """Suite mode's JSON in chunks, streaming ``entries`` (the suite's scenarios, from a spool)
    without holding them: upstream's suite result, plus ``findings`` when some scenarios were
    judged as campaigns; joined, byte-identical (report/jsonout.py)."""
    whole = head if report is None else SuiteDocument(**msgspec.structs.asdict(head), findings=report)
    data: dict[str, Any] = msgspec.to_builtins(whole)
    del data["scenarios"]
    return dumps_chunks(data, {"scenarios": (msgspec.to_builtins(entry) for entry in entries)})


def suite_document(suite: SuiteRows | None, report: CampaignReport | None, fmt: str) -> str:
    """Suite mode's output in ``fmt`` (docs/findings.md, "Command line"): the campaign alone
    when every scenario was paired with a folder; JSON upstream's suite document (with
    ``findings`` for a campaign; :func:`suite_json_chunks`); JUnit and SARIF in check's findings
    shape (report/harness_findings.py), a campaign's testsuite or results following; table and
    Markdown upstream's suite rendering, a campaign's appended."""
    from tracekit.report.harness_render import RENDERERS

    if suite is None:
        return render_campaign(report, fmt) if report is not None else ""
    if fmt == "json":
        return "".join(suite_json_chunks(suite.head, (entry for entry, _ in suite.rows), report))
    if fmt == "junit":
        return suite_junit(suite, report)
    if fmt == "sarif":
        return suite_sarif(suite, report)
    render = RENDERERS[fmt].suite
    assert render is not None, fmt  # table and Markdown
    whole = msgspec.structs.replace(suite.head, scenarios=tuple(entry for entry, _ in suite.rows))
    text = render(whole)
    return text if report is None else text.rstrip("\n") + "\n\n" + render_campaign(report, fmt)
