"""Renderers for audit reports: JSON (report_version 1), a plain-text table and Markdown.

Pure ``render(traces, summary) -> str`` over the per-trace JSON forms (AuditReport.to_dict) and
the campaign summary. Finding messages are fixed text and locations are in our own terms;
scenario assertion evidence (which may quote the trace, as upstream's does) appears in JSON only.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from tracekit import REPORT_VERSION
from tracekit.audit.campaign import worst_exit
from tracekit.report.jsonout import dumps_chunks
from tracekit.report.text import display_path, md_escape, md_table, table

Trace = Mapping[str, Any]
SEVERITY_ORDER = {"error": 0, "warning": 1, "notice": 2, "info": 3}
TOP_FIELDS = 12


def render_json(traces: Sequence[Trace], summary: Mapping[str, Any]) -> str:
    """``{report_version, exit_code, traces, summary}``, byte-stable."""
    return "".join(json_chunks(traces, summary, worst_exit(traces)))


def json_chunks(traces: Iterable[Trace], summary: Mapping[str, Any], exit_code: int) -> Iterator[str]:
    """:func:`render_json` in chunks, streaming ``traces`` (from a spool) without holding them."""
    head = {"report_version": REPORT_VERSION, "exit_code": exit_code, "summary": dict(summary)}
    return dumps_chunks(head, {"traces": traces})


def _path(trace: Trace) -> str:
    return display_path(str(trace["path"]))


def _yes(value: object) -> str:
    if value is None:
        return "n/a"
    return "yes" if value else "no"


def verdict_line(trace: Trace) -> str:
    """One line: format, exit code, integrity, rerunnability, replay or scenario outcome."""
    parts = [
        f"format {trace['format']}",
        f"exit {trace['exit_code']}",
        f"intact {_yes(trace['intact'])}",
        f"rerunnable {_yes(trace['rerunnable'])}",
    ]
    episodes = trace.get("episodes") or []
    if len(episodes) > 1:
        parts.append(f"{len(episodes)} episodes")
    if trace.get("outcome"):
        parts.append(f"recorded outcome {trace['outcome']}")
    replay = trace.get("replay")
    if replay:
        parts.append(f"replay {replay['equivalence'] or 'not replayable'}")
    harness = trace.get("harness")
    if harness:
        parts.append(f"scenario result {harness['result']}")
    return ", ".join(parts)


def _findings(trace: Trace) -> list[list[Any]]:
    ordered = sorted(trace["findings"], key=lambda f: SEVERITY_ORDER.get(f["severity"], 9))
    return [
        [f["severity"], f["code"], f["line"] or "-", f["where"] or "-", f["message"]]
        for f in ordered
    ]


def _completeness(trace: Trace) -> list[list[Any]]:
    return [
        [r["field"], r["status"], "yes" if r["needed_to_rerun"] else "no", r["where"]]
        for r in trace["completeness"]
    ]


def _summary_rows(summary: Mapping[str, Any]) -> list[list[Any]]:
    demo = summary["demonstrations"]
    return [
        ["traces", summary["total"]],
        ["rerunnable by a colleague", f"{summary['rerunnable']} of {summary['total']}"],
        ["intact (hash chain)", summary["intact"]],
        ["not intact", summary["not_intact"]],
        ["no integrity mechanism (harness, imported formats)", summary["no_integrity_mechanism"]],
        ["unreadable", summary["unreadable"]],
        ["consistent (AgentGuard)", summary["consistent"]],
        ["verdict reproduced", summary["verdict_reproduced"]],
        ["verdict not reproduced", summary["verdict_not_reproduced"]],
        ["traces recording a hit", demo["traces_recording_a_hit"]],
        ["distinct demonstrations among them", demo["distinct_demonstrations"]],
        [
            "recorded findings / distinct payloads",
            f"{demo['recorded_findings']} / {demo['distinct_recorded_findings']}",
        ],
        ["exit 0 / 1 / 2", " / ".join(str(summary["exit_codes"][c]) for c in ("0", "1", "2"))],
        ["non-trace files skipped", summary["skipped_non_trace_files"]],
    ]


FORMAT_HEADERS = ["format", "traces", "episodes", "intact", "readable", "rerunnable"]
POLICY_HEADERS = ["format", "scenario", "episodes", "failed"]


def _policy_rows(summary: Mapping[str, Any]) -> list[list[Any]]:
    """With --scenario: episodes judged and failed per format and scenario."""
    return [
        [fmt, display_path(scenario), row["episodes"], row["failed"]]
        for fmt, rows in summary.get("by_policy", {}).items()
        for scenario, row in rows.items()
    ]


def _format_rows(summary: Mapping[str, Any]) -> list[list[Any]]:
    """The campaign counted by format (``intact`` counts only formats with integrity data)."""
    return [
        [fmt, row["traces"], row["episodes"], row["intact"], row["readable"], row["rerunnable"]]
        for fmt, row in summary.get("by_format", {}).items()
    ]


def _gap_rows(summary: Mapping[str, Any]) -> list[list[Any]]:
    return [
        [
            g["format"],
            g["field"],
            g["missing"],
            g["partial"],
            g["not_carried"],
            "yes" if g["needed_to_rerun"] else "no",
        ]
        for g in summary["fields_missing_most"][:TOP_FIELDS]
    ]


MARKDOWN_NOTE = (
    "Integrity is not authenticity: an intact hash chain shows a trace is self-consistent, not "
    "who wrote it. See docs/audit.md for every finding code."
)
SCENARIO_NOTE = "scenario {id}: {result} ({assertions})"
GAP_HEADERS = ["format", "field", "missing", "partial", "not carried", "needed to rerun"]
FINDING_HEADERS = ["severity", "code", "line", "where", "message"]
FINDING_WIDTHS = [None, None, None, 40, 72]
"""The message and location columns wrap, so a finding row stays readable in a terminal."""
FIELD_HEADERS = ["field", "status", "needed to rerun", "where"]


def _scenario(trace: Trace) -> str | None:
    harness = trace.get("harness")
    if not harness:
        return None
    if "episodes_judged" in harness:  # an imported format: the scenario on every episode
        return display_path(
            f"scenario {harness['scenario_id']}: {harness['result']}; "
            f"{harness['episodes_failed']} of {harness['episodes_judged']} episode(s) fail"
        )
    listed = ", ".join(f"{a['id']}={a['result']}" for a in harness["assertions"])
    return display_path(
        SCENARIO_NOTE.format(id=harness["scenario_id"], result=harness["result"], assertions=listed)
    )


def table_chunks(traces: Iterable[Trace], summary: Mapping[str, Any]) -> Iterator[str]:
    """Per trace: a verdict line, the completeness table and the findings by severity; then the
    campaign summary (left out for a single trace, where it would repeat the trace's block).
    One chunk per trace, so a campaign streams without being held."""
    first = True
    for trace in traces:
        lines = [f"== {_path(trace)}", verdict_line(trace)]
        if (scenario := _scenario(trace)) is not None:
            lines.append(scenario)
        if trace["completeness"]:
            lines += ["", table(_completeness(trace), FIELD_HEADERS)]
        if trace["findings"]:
            lines += ["", table(_findings(trace), FINDING_HEADERS, widths=FINDING_WIDTHS)]
        yield ("" if first else "\n\n") + "\n".join(lines)
        first = False
    if summary["total"] != 1:
        tail = ["== campaign summary", table(_summary_rows(summary), tablefmt="plain")]
        if summary.get("by_format"):
            tail += ["", "by format:", table(_format_rows(summary), FORMAT_HEADERS)]
        if summary.get("by_policy"):
            tail += ["", "by policy:", table(_policy_rows(summary), POLICY_HEADERS)]
        if summary["fields_missing_most"]:
            tail += ["", "fields missing most:", table(_gap_rows(summary), GAP_HEADERS)]
        yield ("" if first else "\n\n") + "\n".join(tail)
    yield "\n"


def render_table(traces: Iterable[Trace], summary: Mapping[str, Any]) -> str:
    """:func:`table_chunks` as one string."""
    return "".join(table_chunks(traces, summary))


def markdown_chunks(traces: Iterable[Trace], summary: Mapping[str, Any]) -> Iterator[str]:
    """The same content as Markdown, for a review document; every cell escaped."""
    yield "\n".join(["# tracekit audit", "", MARKDOWN_NOTE, ""]) + "\n"
    for trace in traces:
        out = [f"## {md_escape(_path(trace))}", "", md_escape(verdict_line(trace)), ""]
        if (scenario := _scenario(trace)) is not None:
            out += [md_escape(scenario), ""]
        if trace["completeness"]:
            out += ["### Completeness", "", *md_table(FIELD_HEADERS, _completeness(trace)), ""]
        if trace["findings"]:
            out += ["### Findings", "", *md_table(FINDING_HEADERS, _findings(trace)), ""]
        yield "\n".join(out) + "\n"
    if summary["total"] != 1:
        out = ["## Campaign summary", "", *md_table(["measure", "value"], _summary_rows(summary)), ""]
        if summary.get("by_format"):
            out += ["### By format", "", *md_table(FORMAT_HEADERS, _format_rows(summary)), ""]
        if summary.get("by_policy"):
            out += ["### By policy", "", *md_table(POLICY_HEADERS, _policy_rows(summary)), ""]
        if summary["fields_missing_most"]:
            out += ["### Fields missing most", "", *md_table(GAP_HEADERS, _gap_rows(summary)), ""]
        yield "\n".join(out) + "\n"


def render_markdown(traces: Iterable[Trace], summary: Mapping[str, Any]) -> str:
    """:func:`markdown_chunks` as one string."""
    return "".join(markdown_chunks(traces, summary))


def summary_line(traces: Sequence[Trace], summary: Mapping[str, Any]) -> str:
    """The one-line stderr summary."""
    return (
        f"tracekit audit: {summary['total']} trace(s), {summary.get('episodes', 0)} episode(s), "
        f"{summary['rerunnable']} rerunnable, "
        f"{summary['intact']} intact, {summary['not_intact']} not intact, "
        f"{summary['unreadable']} unreadable; exit {worst_exit(traces)}"
    )
