"""Renderers for verify and show reports: table (tabulate), Markdown and JSON (report_version 1).

Every renderer takes typed reports: :class:`VerifyTrace` per trace (the form a worker returns,
a msgspec Struct that pickles), and the JSON documents (:class:`VerifyDocument`,
:class:`ShowDocument`) are Structs whose JSON form msgspec derives.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Literal

import msgspec

from tracekit import REPORT_VERSION
from tracekit.formats.agentguard.verify import VerifyReport
from tracekit.kernel.episode_id import episode_label
from tracekit.kernel.errors import Code, Finding, finding, worst
from tracekit.report.findings import FindingRow, TraceFindings
from tracekit.report.jsonout import dumps_struct
from tracekit.report.text import blocks, display_path, fields, md_report, md_table, table

if TYPE_CHECKING:
    from tracekit.report.skipped import SkippedFile

Status = Literal["intact", "source_changed", "source_missing", "no_integrity", "invalid"]


class SourceRow(msgspec.Struct, frozen=True):
    """One recorded source's outcome: no path, and the role only when it is a known role."""

    index: int
    role: str
    required: bool
    status: str


class VerifyTrace(msgspec.Struct, frozen=True):
    """One trace's verification, typed; its JSON form is derived by msgspec."""

    path: str
    exit_code: int
    status: Status
    trace_id: str | None
    schema_version: int | None
    event_count: int
    findings: tuple[FindingRow, ...]
    sources: tuple[SourceRow, ...]
    format: str | None = None
    """The detected (or given) format; None when no format accepts the file."""


class VerifySummary(msgspec.Struct, frozen=True):
    """Traces counted by status."""

    total: int
    intact: int
    source_changed: int
    source_missing: int
    no_integrity: int
    invalid: int


class VerifyDocument(msgspec.Struct, frozen=True):
    """``tracekit verify --format json``: every trace, the worst exit code and the counts."""

    report_version: int
    exit_code: int
    traces: tuple[VerifyTrace, ...]
    summary: VerifySummary


def _row(found: Finding) -> FindingRow:
    return FindingRow(found.code.value, found.severity.value, found.line, found.message)


def unverified_trace(path: str, fmt: str | None, found: Finding) -> VerifyTrace:
    """A file that could not be read as a trace: no format accepts it, or its format's importer
    refused it (exit 2, status ``invalid``)."""
    return VerifyTrace(path, 2, "invalid", None, None, 0, (_row(found),), (), fmt)


def no_integrity_trace(path: str, fmt: str, episodes: int) -> VerifyTrace:
    """A valid file of a format without integrity data (docs/cli.md, verify): exit 1, status
    ``no_integrity``: intact cannot be established, the user must act."""
    found = finding(Code.VERIFY_NO_INTEGRITY, format=fmt, episodes=episodes)
    return VerifyTrace(path, 1, "no_integrity", None, None, 0, (_row(found),), (), fmt)


_STATUSES: dict[str, Status] = {
    "intact": "intact",
    "source_changed": "source_changed",
    "source_missing": "source_missing",
    "invalid": "invalid",
}
"""The statuses a :class:`VerifyReport` can have, typed."""


def with_finding(trace: VerifyTrace, found: Finding) -> VerifyTrace:
    """``trace`` with one more finding (a warning: its exit is at least 1)."""
    return msgspec.structs.replace(
        trace, findings=(*trace.findings, _row(found)), exit_code=int(worst(trace.exit_code, 1))
    )


def verify_trace(report: VerifyReport, path: str | None = None) -> VerifyTrace:
    """The typed report of one trace; ``path`` (as the user gave it) replaces the report's."""
    from tracekit.formats.agentguard.sources import KNOWN_ROLES

    return VerifyTrace(
        path=report.path if path is None else path,
        exit_code=report.exit_code,
        status=_STATUSES[report.status],
        trace_id=report.trace_id,
        schema_version=report.schema_version,
        event_count=report.event_count,
        findings=tuple(_row(f) for f in report.findings),
        sources=tuple(
            SourceRow(s.index, s.role if s.role in KNOWN_ROLES else "other", s.required, s.status)
            for s in report.sources
        ),
        format="agentguard",
    )


def summary(traces: Sequence[VerifyTrace]) -> VerifySummary:
    """Counts by status."""
    counts = Counter(trace.status for trace in traces)
    return VerifySummary(
        total=len(traces),
        intact=counts["intact"],
        source_changed=counts["source_changed"],
        source_missing=counts["source_missing"],
        no_integrity=counts["no_integrity"],
        invalid=counts["invalid"],
    )


def verify_document(traces: Sequence[VerifyTrace]) -> VerifyDocument:
    """All traces as one typed document; the exit code is the worst of them."""
    return VerifyDocument(
        REPORT_VERSION, worst(*(t.exit_code for t in traces)), tuple(traces), summary(traces)
    )


def render_json(traces: Sequence[VerifyTrace], skipped: Sequence[SkippedFile] = ()) -> str:
    """All traces as one JSON document, and the walked files left out (``skipped``: each with
    its code, docs/cli.md, "Inputs and folders"), when there are any."""
    if not skipped:
        return dumps_struct(verify_document(traces))
    return dumps_struct(verify_document(traces), skipped=[{"trace": s.trace, "code": s.code} for s in skipped])


def skipped_table(skipped: Sequence[SkippedFile]) -> str:
    """The walked files left out, with their codes, after a table report ("" when none)."""
    if not skipped:
        return ""
    rows = [[display_path(s.trace), s.code] for s in skipped]
    return "\nskipped files:\n" + table(rows, ["file", "code"]) + "\n"


def skipped_markdown(skipped: Sequence[SkippedFile]) -> str:
    """The same as a Markdown section ("" when none)."""
    if not skipped:
        return ""
    return "\n".join(["", "## Skipped files", "", *md_table(["file", "code"], [[s.trace, s.code] for s in skipped]), ""])


def as_findings(traces: Sequence[VerifyTrace]) -> list[TraceFindings]:
    """The traces as pass/fail findings, for the JUnit and SARIF renderers."""
    return [TraceFindings(t.path, t.exit_code, t.findings) for t in traces]


def trace_rows(traces: Iterable[VerifyTrace]) -> Iterator[list[object]]:
    """The table's rows: one per trace."""
    for t in traces:
        yield [
            display_path(t.path),
            t.format or "-",
            t.status,
            t.exit_code,
            (t.trace_id or "-")[:16],
            t.schema_version if t.schema_version is not None else "-",
            t.event_count,
        ]


def detail_rows(traces: Iterable[VerifyTrace]) -> Iterator[list[object]]:
    """The table's second part: one row per finding that is not informational."""
    for t in traces:
        for f in t.findings:
            if f.severity != "info":
                yield [display_path(t.path), f.line or "-", f.severity, f.code, f.message]


def render_table(traces: Sequence[VerifyTrace]) -> str:
    """One row per trace, then one row per finding that is not informational (a campaign
    streams: tracekit/report/verify_stream.py)."""
    out = table(list(trace_rows(traces)), ["trace", "format", "status", "exit", "trace id", "version", "events"])
    detail = list(detail_rows(traces))
    if detail:
        out += "\n\n" + table(detail, ["trace", "line", "severity", "code", "message"])
    return out + "\n"


def render_markdown(traces: Sequence[VerifyTrace]) -> str:
    """The table's content as Markdown: one row per trace, then the findings."""
    rows = [
        [t.path, t.format or "-", t.status, t.exit_code, (t.trace_id or "-")[:16], t.event_count]
        for t in traces
    ]
    headers = ["trace", "format", "status", "exit", "trace id", "events"]
    out = ["# tracekit verify", "", *md_table(headers, rows)]
    detail = [
        [t.path, f.line or "-", f.severity, f.code, f.message]
        for t in traces
        for f in t.findings
        if f.severity != "info"
    ]
    if detail:
        out += [
            "",
            "## Findings",
            "",
            *md_table(["trace", "line", "severity", "code", "message"], detail),
        ]
    return "\n".join(out) + "\n"


def summary_line(traces: Sequence[VerifyTrace]) -> str:
    """The one-line summary printed on stderr."""
    return summary_text(summary(traces))


def summary_text(s: VerifySummary) -> str:
    """The one-line summary of these counts."""
    return (
        f"tracekit verify: {s.total} trace(s): {s.intact} intact, "
        f"{s.source_changed} source changed, {s.source_missing} source missing, "
        + (f"{s.no_integrity} without integrity data, " if s.no_integrity else "")
        + f"{s.invalid} invalid"
    )


_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:/@+-=,()[] ")


def shown(value: object) -> str:
    """An identity string from a *verified* trace, shown only if short, printable and plain.

    Anything else is withheld with its length, so even a valid trace cannot put control
    sequences or long payloads on the terminal through ``show``.
    """
    if value is None:
        return "-"
    text = str(value)
    if len(text) <= 128 and all(ch in _SAFE for ch in text):
        return text
    return f"[withheld: {len(text)} characters]"


def show_rows(report: VerifyReport) -> list[tuple[str, str]]:
    """The summary ``show`` prints, as (label, value) rows; never raw output or file content."""
    from tracekit.formats.agentguard.schema import agentguard as ag

    h = report.header
    assert h is not None
    completed = next(
        (e.payload for e in report.events if isinstance(e.payload, ag.ExecutionCompleted)), None
    )
    rows = [
        ("trace id", h.trace_id),
        ("episode", episode_label(h.trace_id)),
        ("schema version", str(h.schema_version)),
        ("execution", shown(h.execution_id)),
        ("task", shown(h.task_id)),
        ("benchmark", f"{shown(h.benchmark_id)} v{shown(h.benchmark_version)}"),
        ("agent", f"{shown(h.agent_name)} ({shown(h.agent_adapter)})"),
        ("model", shown(h.agent_model)),
        ("result", completed.result if completed else "-"),
        ("score", str(completed.score) if completed else "-"),
        ("events", str(report.event_count)),
    ]
    rows += [(f"  {kind}", str(n)) for kind, n in sorted(report.counts.items())]
    rows += [
        ("truncated payloads", str(report.truncated_payloads)),
        ("redaction markers", "present" if report.redaction_markers else "none"),
        ("root digest", h.integrity.root_hash),
    ]
    return rows


def render_show_table(report: VerifyReport) -> str:
    """The summary as the head of a one-trace report (report/text.py, :func:`fields`)."""
    return blocks(fields(show_rows(report)))


class ShowSummary(msgspec.Struct, frozen=True, kw_only=True):
    """``show``'s summary of a verified trace, typed: numbers are numbers, keys have no spaces,
    and the per-kind event counts live once, in the report's ``counts``."""

    trace_id: str
    schema_version: int
    execution: str
    task: str
    benchmark: str
    agent: str
    model: str
    result: str | None
    score: float | int | None
    events: int
    truncated_payloads: int
    redaction_markers: int
    root_digest: str


def show_summary(report: VerifyReport) -> ShowSummary:
    """The typed summary behind :func:`show_rows`."""
    from tracekit.formats.agentguard.schema import agentguard as ag

    h = report.header
    assert h is not None
    completed = next(
        (e.payload for e in report.events if isinstance(e.payload, ag.ExecutionCompleted)), None
    )
    return ShowSummary(
        trace_id=h.trace_id,
        schema_version=h.schema_version,
        execution=shown(h.execution_id),
        task=shown(h.task_id),
        benchmark=f"{shown(h.benchmark_id)} v{shown(h.benchmark_version)}",
        agent=f"{shown(h.agent_name)} ({shown(h.agent_adapter)})",
        model=shown(h.agent_model),
        result=completed.result if completed else None,
        score=completed.score if completed else None,
        events=report.event_count,
        truncated_payloads=report.truncated_payloads,
        redaction_markers=report.redaction_markers,
        root_digest=h.integrity.root_hash,
    )


class EpisodeName(msgspec.Struct, frozen=True):
    """An episode as ``show -f json`` lists it for every format (``episodes[].id``)."""

    id: str
    """The id every report prints (docs/cli.md, "Episode ids")."""


class ShowDocument(VerifyTrace, frozen=True, kw_only=True):
    """``tracekit show --format json`` for an AgentGuard trace: the trace's verify report, its
    typed summary, its one episode, and the events counted by type."""

    report_version: int = REPORT_VERSION
    summary: ShowSummary
    episodes: tuple[EpisodeName, ...]
    counts: dict[str, int]
    """Events by type, sorted by type."""


def render_show_json(report: VerifyReport) -> str:
    """The trace's verify report plus its typed summary, derived by msgspec."""
    trace = verify_trace(report)
    return dumps_struct(
        ShowDocument(
            **msgspec.structs.asdict(trace),
            summary=show_summary(report),
            episodes=(EpisodeName(episode_label(report.header.trace_id)),) if report.header else (),
            counts=dict(sorted(report.counts.items())),
        )
    )


def render_show_markdown(report: VerifyReport) -> str:
    """The same summary as a Markdown table."""
    return "\n".join([*md_report("show", show_rows(report)), ""])
