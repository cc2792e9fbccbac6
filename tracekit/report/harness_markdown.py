"""Markdown for ``tracekit check --format markdown``: the table's rows, every cell escaped, so
trace values quoted in evidence can start no markup, link or HTML (report/text.py)."""

from __future__ import annotations

from tracekit.judging.harness.evaluate import SuiteResult
from tracekit.judging.harness.model import HarnessResult
from tracekit.report.harness_table import result_rows, suite_rows, suite_tail
from tracekit.report.text import md_escape, md_table


def render(result: HarnessResult) -> str:
    """One scenario: a heading, then one row per assertion."""
    semantics = "strict" if result.strict else "compatible"
    head = f"scenario {result.scenario_id}: {result.result} (mode {result.mode}, {semantics})"
    rows = result_rows(result)
    return "\n".join([f"# {md_escape(head)}", "", *md_table(["assertion", "result", "evidence"], rows), ""])


def render_suite(suite: SuiteResult) -> str:
    """A suite: one row per scenario, then the counts."""
    rows = suite_rows(suite)
    table = md_table(["scenario", "id", "result", "notes"], rows)
    return "\n".join(["# tracekit check --suite", "", *table, "", md_escape(suite_tail(suite)), ""])
