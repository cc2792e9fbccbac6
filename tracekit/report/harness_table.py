"""Human-readable tables for ``tracekit check --format table`` (tabulate, imported lazily).

Every cell passes through :func:`terminal_safe`, so trace values quoted in evidence cannot
carry terminal escapes or invisible characters to the reader.
"""

from __future__ import annotations

from tracekit.judging.harness.evaluate import SuiteResult
from tracekit.judging.harness.model import HarnessResult
from tracekit.report.harness_text import terminal_safe
from tracekit.report.text import table


def _grid(rows: list[list[str]], headers: list[str]) -> str:
    return table([[terminal_safe(cell) for cell in row] for row in rows], headers)


def render(result: HarnessResult) -> str:
    """One scenario: a heading line, then one row per assertion."""
    semantics = "strict" if result.strict else "compatible"
    head = terminal_safe(f"scenario {result.scenario_id}: {result.result} (mode {result.mode}, {semantics})")
    return head + "\n" + _grid(result_rows(result), ["assertion", "result", "evidence"]) + "\n"


def result_rows(result: HarnessResult) -> list[list[str]]:
    """One row per assertion: id, result, evidence."""
    return [[a.id, a.result, a.evidence or ""] for a in result.assertions]


def suite_rows(suite: SuiteResult) -> list[list[str]]:
    """One row per scenario: path, id, result, and the failing assertions or the error reason."""
    rows: list[list[str]] = []
    for entry in suite.scenarios:
        scenario_id = entry.scenario_id or ""
        if entry.assertions is not None:
            note = "; ".join(f"{a.id}: {a.result}" for a in entry.assertions if a.result != "pass")
        else:
            note = f"{entry.error_reason}: {entry.evidence or ''}"
        rows.append([entry.scenario_path, scenario_id, entry.result, note])
    return rows


def suite_tail(suite: SuiteResult) -> str:
    """The suite's counts line."""
    counts = suite.counts
    return (
        f"suite: {suite.result} ({counts.total} scenarios, {counts.passed} pass, {counts.fail} fail, "
        f"{counts.error} error, {counts.not_run} not_run)"
    )


def render_suite(suite: SuiteResult) -> str:
    """A suite: one row per scenario, failing assertions or the error reason as the note."""
    return _grid(suite_rows(suite), ["scenario", "id", "result", "notes"]) + "\n" + suite_tail(suite) + "\n"
