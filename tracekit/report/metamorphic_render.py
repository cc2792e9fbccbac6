"""Pure renderers for a metamorphic study: JSON (streamed), a table and Markdown.

JSON (report_version 1) is byte-identical to ``jsonout.dumps`` of the whole document, but
:func:`json_chunks` produces it piece by piece from iterables, so a campaign's millions of cases
never have to sit in memory at once. The table and Markdown show the summary, the per-transform
counts, the skipped sources by cause and a bounded list of failed cases.

Trace paths in these outputs come from the user's own command line and folders (never from
trace content); non-printable characters are escaped before they reach a terminal or a table.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import msgspec

from tracekit.judging.metamorphic.report import CLASSES, Count, StudyHead, StudyReport
from tracekit.report.jsonout import dumps_chunks
from tracekit.report.text import md_table, table

TABLE_FAILURES = 50


def json_chunks(head: StudyHead, cases: Iterable[msgspec.Struct], skipped: Iterable[msgspec.Struct]) -> Iterator[str]:
    """The study document in chunks: ``head`` plus the ``cases`` and ``skipped_sources`` lists.

    Derived from the Structs (``msgspec.to_builtins``): joined, the chunks equal
    ``jsonout.dumps({**to_builtins(head), "cases": [...], "skipped_sources": [...]})``.
    """
    document: dict[str, Any] = msgspec.to_builtins(head)
    return dumps_chunks(
        document,
        {"cases": (msgspec.to_builtins(c) for c in cases), "skipped_sources": (msgspec.to_builtins(s) for s in skipped)},
    )


def render_json(head: StudyHead, cases: Iterable[msgspec.Struct], skipped: Iterable[msgspec.Struct]) -> str:
    """The whole study document as one string."""
    return "".join(json_chunks(head, cases, skipped))


def _printable(text: str) -> str:
    return text if text.isprintable() else text.encode("unicode_escape").decode("ascii")


def _ratio(count: Count) -> str:
    return f"{count.passed}/{count.total}"


def summary_line(report: StudyReport) -> str:
    """One line for stderr: relations held, per class, skipped sources and the study id."""
    head = report.head
    counts = [head.summary.of(k) for k in CLASSES]
    total = sum(c.total for c in counts)
    held = sum(c.passed for c in counts)
    na = sum(c.not_applicable for c in counts)
    classes = ", ".join(f"{k.value} {_ratio(head.summary.of(k))}" for k in CLASSES)
    sources = head.sources
    return (
        f"tracekit metamorphic: {held}/{total} relation(s) hold ({classes}); {na} not applicable; "
        f"{sources.skipped} of {sources.total} source trace(s) skipped; {head.study_id}"
    )


def _transform_rows(head: StudyHead) -> list[list[Any]]:
    return [[t.name, t.klass.value, t.relation, t.passed, t.total, t.not_applicable] for t in head.transforms]


def _class_rows(head: StudyHead) -> list[list[Any]]:
    rows = []
    for k in CLASSES:
        count = head.summary.of(k)
        rows.append([k.value, count.passed, count.total, count.not_applicable])
    return rows


def _failure_rows(report: StudyReport, limit: int) -> list[list[Any]]:
    return [[_printable(c.trace), c.transform, c.trial, c.reason] for c in report.failures[:limit]]


def _budget_line(head: StudyHead) -> list[str]:
    stop = head.work_budget_exceeded
    if isinstance(stop, msgspec.UnsetType):
        return []
    return [
        f"work budget reached: {stop.cases_not_run} case(s) of {stop.sources} source(s) not run "
        f"(metamorphic.work_budget_exceeded; {stop.bytes_per_source} bytes per source)"
    ]


def render_table(report: StudyReport) -> str:
    """The terminal table: per transform, per class, skipped sources, failed cases."""
    head = report.head
    sources = head.sources
    parts = [
        (
            f"study {head.study_id}: {sources.total} source trace(s), "
            f"{sources.swept} swept, {sources.skipped} skipped; "
            f"{head.trials} trial(s), seed {head.seed}"
        ),
        "",
        table(_transform_rows(head), ["transform", "class", "relation", "passed", "total", "n/a"]),
        "",
        table(_class_rows(head), ["class", "passed", "total", "n/a"]),
    ]
    causes = sources.skipped_by_cause
    if causes:
        rows = [[c.code, c.cause, c.count] for c in causes]
        parts += ["", "skipped sources (not swept):", table(rows, ["code", "cause", "count"])]
    budget = _budget_line(head)
    if budget:
        parts += ["", *budget]
    if report.failed_total:
        shown = min(TABLE_FAILURES, len(report.failures))
        parts += [
            "",
            f"failed cases ({shown} of {report.failed_total} shown):",
            table(_failure_rows(report, TABLE_FAILURES), ["trace", "transform", "trial", "reason"]),
        ]
    return "\n".join(parts) + "\n"


def _md_table(header: list[str], rows: list[list[Any]]) -> list[str]:
    return md_table(header, rows)


def render_markdown(report: StudyReport) -> str:
    """metamorphic.md: the study summary for humans."""
    head = report.head
    sources = head.sources
    lines = [
        f"# Metamorphic study {head.study_id}",
        "",
        f"- Source traces: {sources.total} ({sources.swept} swept, {sources.skipped} skipped)",
        f"- Trials: {head.trials}; seed: {head.seed}",
        *(f"- {line[0].upper()}{line[1:]}" for line in _budget_line(head)),
        "- External execution: none (traces are rewritten, verified and replayed offline)",
        "",
        "## Relations by class",
        "",
        *_md_table(["class", "passed", "total", "not applicable"],
                   _class_rows(head)),
        "",
        "## Transforms",
        "",
        *_md_table(["transform", "class", "relation", "passed", "total", "not applicable"],
                   _transform_rows(head)),
    ]
    if sources.skipped_by_cause:
        rows = [[c.code, c.cause, c.count] for c in sources.skipped_by_cause]
        lines += ["", "## Skipped sources", "", *_md_table(["code", "cause", "count"], rows)]
    if report.failed_total:
        lines += [
            "",
            f"## Failed cases ({len(report.failures)} of {report.failed_total} listed)",
            "",
            *_md_table(["trace", "transform", "trial", "reason"],
                       _failure_rows(report, len(report.failures))),
        ]
    lines += [
        "",
        "Metamorphic testing checks that replay and the policy checks react to evidence and only",
        "to evidence. It does not rerun agents or tests, and it does not show that the original",
        "evidence was honestly produced.",
    ]
    return "\n".join(lines) + "\n"
