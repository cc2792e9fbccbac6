"""Renderers for ``tracekit replayability`` and ``tracekit replay``: table, JSON and Markdown.

Pure functions of a :class:`~tracekit.judging.replay.ReplayReport`. The JSON forms are the report's
documents (:mod:`tracekit.judging.replay.document`), derived with msgspec and written through the
byte-stable ``jsonout.dumps``. The table and Markdown forms
show recorded and recomputed values side by side; any value that came from the trace (a check
name, evidence, a command) is escaped to printable ASCII and bounded, so a trace cannot drive the
terminal or break a Markdown table.
"""

from __future__ import annotations

from collections.abc import Sequence

from tracekit.judging.replay import ReplayReport, replay_document, replayability_document
from tracekit.judging.replay.results import CheckOutcome, Verdict
from tracekit.kernel.episode_id import episode_label
from tracekit.report.jsonout import dumps_struct
from tracekit.report.text import (
    FINDING_HEADERS,
    FINDING_WIDTHS,
    blocks,
    fields,
    md_escape,
    md_report,
    md_section,
    md_table,
    table,
)

CELL_LIMIT = 96


def cell(value: object, limit: int = CELL_LIMIT) -> str:
    """``value`` as one printable ASCII line of at most about ``limit`` characters."""
    if value is None:
        return "-"
    if isinstance(value, (list, tuple)):
        text = "; ".join(str(item) for item in value) if value else "-"
    else:
        text = str(value)
    if not (text.isascii() and text.isprintable()):
        text = text.encode("unicode_escape", "backslashreplace").decode("ascii")
    if len(text) > limit:
        text = f"{text[:limit]}...[+{len(text) - limit} chars]"
    return text


def _md(value: object, limit: int = CELL_LIMIT) -> str:
    return md_escape(cell(value, limit))


def _status(check: CheckOutcome | None) -> str:
    if check is None:
        return "-"
    return "pass" if check.passed else "fail"


def _field(check: CheckOutcome | None, name: str) -> str:
    return "-" if check is None else str(getattr(check, name))


def _check_rows(report: ReplayReport) -> list[list[str]]:
    recorded = report.recorded.checks if report.recorded else ()
    recomputed = report.recomputed.checks if report.recomputed else ()
    rows: list[list[str]] = []
    comparisons = report.comparison.comparisons if report.comparison else ()
    for comp in comparisons:
        old = recorded[comp.recorded_position] if comp.recorded_position is not None else None
        new = recomputed[comp.recomputed_position] if comp.recomputed_position is not None else None
        label = (
            comp.id
            if comp.id is not None
            else f"(unregistered) {cell(old.name if old else None, 40)}"
        )
        rows.append(
            [
                label,
                _status(old),
                _status(new),
                f"{_field(old, 'severity')} / {_field(new, 'severity')}",
                f"{_field(old, 'score_contribution')} / {_field(new, 'score_contribution')}",
                comp.classification,
                ", ".join(comp.differences) or "-",
            ]
        )
    return rows


CHECK_HEADERS = [
    "check",
    "recorded",
    "recomputed",
    "severity (rec/new)",
    "contribution (rec/new)",
    "classification",
    "differences",
]


def _run_rows(recorded: Verdict | None, recomputed: Verdict | None) -> list[list[str]]:
    def get(verdict: Verdict | None, name: str) -> str:
        return "-" if verdict is None else cell(getattr(verdict, name))

    return [
        [label, get(recorded, name), get(recomputed, name)]
        for label, name in (
            ("result", "result"),
            ("score", "score"),
            ("failed checks", "failed_checks"),
            ("warning checks", "warning_checks"),
        )
    ]


def _difference_rows(report: ReplayReport) -> list[list[str]]:
    return [
        [
            d.scope,
            d.check or "-",
            d.field,
            d.classification,
            cell(_brief(d.recorded), 60),
            cell(_brief(d.recomputed), 60),
        ]
        for d in report.differences
    ]


def _brief(value: object) -> object:
    """A whole check (missing, unexpected or duplicate) shown as its name and status."""
    if isinstance(value, CheckOutcome):
        return f"{value.name} ({'pass' if value.passed else 'fail'})"
    return value


DIFFERENCE_HEADERS = ["scope", "check", "field", "classification", "recorded", "recomputed"]
RUN_HEADERS = ["run", "recorded", "recomputed"]


def _common_head(report: ReplayReport) -> list[tuple[str, str]]:
    """The first rows of replayability's and replay's heads."""
    return [
        ("trace id", report.trace_id),
        ("episode", episode_label(report.trace_id)),
        ("schema version", str(report.schema_version)),
        ("replayable", "yes" if report.replayable else "no"),
        ("missing inputs", ", ".join(report.replayability.missing_inputs) or "-"),
    ]


def _head(report: ReplayReport) -> list[tuple[str, str]]:
    """replay's head: the same first rows as replayability's, then the comparison."""
    return [
        *_common_head(report),
        ("equivalence", report.equivalence or "-"),
        ("external execution", "none"),
    ]


def _replayability_head(report: ReplayReport) -> list[tuple[str, str]]:
    return [
        *_common_head(report),
        ("supported checks", ", ".join(report.replayability.supported_checks)),
    ]


def _finding_rows(report: ReplayReport) -> list[list[str]]:
    """Reasons the trace is not replayable, then notices: our codes and fixed text only."""
    return [
        [kind, str(f.line) if f.line is not None else "-", f.code.value, f.message]
        for kind, found in (("reason", report.reasons), ("notice", report.notices))
        for f in found
    ]


def _findings_table(report: ReplayReport) -> str:
    rows = _finding_rows(report)
    return table(rows, FINDING_HEADERS, widths=FINDING_WIDTHS) if rows else ""


def render_table(report: ReplayReport) -> str:
    """Recorded vs recomputed, per check and for the run, then every difference, then the
    reasons and notices: the one-trace look of show and replayability (report/text.py)."""
    parts = [fields(_head(report))]
    if report.comparison is not None:
        parts.append(table(_check_rows(report), CHECK_HEADERS))
        parts.append(table(_run_rows(report.recorded, report.recomputed), RUN_HEADERS))
        diffs = _difference_rows(report)
        if diffs:
            parts.append(table(diffs, DIFFERENCE_HEADERS))
    parts.append(_findings_table(report))
    return blocks(*parts)


def render_json(report: ReplayReport) -> str:
    """The replay report as byte-stable JSON (report_version 1)."""
    return dumps_struct(replay_document(report))


def _md_findings(report: ReplayReport) -> list[str]:
    rows = _finding_rows(report)  # our codes and fixed text: escaped, never cut
    return md_table(FINDING_HEADERS, rows) if rows else []


def render_markdown(report: ReplayReport) -> str:
    """replay.md: the same content as the table, as Markdown."""
    out = md_report("replay", [(label, cell(value)) for label, value in _head(report)])
    if report.comparison is not None:
        out += md_section("Checks", _md_table(CHECK_HEADERS, _check_rows(report)))
        out += md_section(
            "Run", _md_table(RUN_HEADERS, _run_rows(report.recorded, report.recomputed))
        )
        diffs = _difference_rows(report)
        out += md_section("Differences", _md_table(DIFFERENCE_HEADERS, diffs) if diffs else [])
    findings = _md_findings(report)
    if findings:
        out += md_section("Findings", findings)
    out += [
        "",
        "Replay recomputes the policy verdict from the recorded evidence only. It does not rerun",
        "the agent, and `exact` proves consistency with the evidence, not that the evidence is",
        "honest.",
        "",
    ]
    return "\n".join(out)


def _md_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    return md_table(headers, [[cell(value) for value in row] for row in rows])


def render_replayability_table(report: ReplayReport) -> str:
    """The replayability verdict: the head (supported checks, missing inputs), then the
    reasons and notices, in replay's look."""
    return blocks(fields(_replayability_head(report)), _findings_table(report))


def render_replayability_markdown(report: ReplayReport) -> str:
    """The replayability verdict as Markdown, every value escaped."""
    out = md_report("replayability", _replayability_head(report))
    findings = _md_findings(report)
    if findings:
        out += md_section("Findings", findings)
    return "\n".join([*out, ""])


def render_replayability_json(report: ReplayReport) -> str:
    """The replayability verdict as JSON (report_version 1)."""
    return dumps_struct(replayability_document(report))


def replayability_summary_line(report: ReplayReport) -> str:
    """replayability's line for stderr, in replay's words."""
    if not report.replayable:
        return f"tracekit replayability: not replayable, {len(report.reasons)} reason(s); exit 1"
    return "tracekit replayability: replayable; exit 0"


def summary_line(report: ReplayReport, exit_code: int) -> str:
    """replay's line for stderr: the equivalence and the count behind it, and the exit code."""
    if not report.replayable:
        return f"tracekit replay: not replayable, {len(report.reasons)} reason(s); exit {exit_code}"
    return (
        f"tracekit replay: {report.equivalence}, {len(report.differences)} difference(s); "
        f"exit {exit_code}"
    )
