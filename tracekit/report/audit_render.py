"""Renderers for audit reports: JSON (report_version 1), a plain-text table and Markdown.

Pure ``render(traces, summary) -> str`` over the per-trace JSON forms (AuditReport.to_dict) and
the campaign summary. Finding messages are fixed text and locations are in our own terms;
scenario assertion evidence (which may quote the trace, as upstream's does) appears in JSON only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tracekit.audit.campaign import worst_exit
from tracekit.report.jsonout import dumps

REPORT_VERSION = 1
Trace = Mapping[str, Any]
SEVERITY_ORDER = {"error": 0, "warning": 1, "notice": 2, "info": 3}
TOP_FIELDS = 12


def render_json(traces: Sequence[Trace], summary: Mapping[str, Any]) -> str:
    """``{report_version, exit_code, traces, summary}``, byte-stable."""
    return dumps(
        {
            "report_version": REPORT_VERSION,
            "exit_code": worst_exit(traces),
            "traces": [dict(t) for t in traces],
            "summary": dict(summary),
        }
    )


def _path(trace: Trace) -> str:
    from tracekit.cli.common import display_path

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
        ["no integrity mechanism (harness)", summary["no_integrity_mechanism"]],
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
FIELD_HEADERS = ["field", "status", "needed to rerun", "where"]


def _scenario(trace: Trace) -> str | None:
    harness = trace.get("harness")
    if not harness:
        return None
    from tracekit.cli.common import display_path  # escapes control characters from the YAML

    listed = ", ".join(f"{a['id']}={a['result']}" for a in harness["assertions"])
    return display_path(
        SCENARIO_NOTE.format(id=harness["scenario_id"], result=harness["result"], assertions=listed)
    )


def render_table(traces: Sequence[Trace], summary: Mapping[str, Any]) -> str:
    """Per trace: a verdict line, the completeness table and the findings by severity; then the
    campaign summary."""
    from tabulate import tabulate  # type: ignore[import-untyped, unused-ignore]

    blocks = []
    for trace in traces:
        lines = [f"== {_path(trace)}", verdict_line(trace)]
        if (scenario := _scenario(trace)) is not None:
            lines.append(scenario)
        if trace["completeness"]:
            lines += ["", tabulate(_completeness(trace), headers=FIELD_HEADERS)]
        if trace["findings"]:
            lines += ["", tabulate(_findings(trace), headers=FINDING_HEADERS)]
        blocks.append("\n".join(lines))
    tail = ["== campaign summary", tabulate(_summary_rows(summary), tablefmt="plain")]
    if summary["fields_missing_most"]:
        tail += ["", "fields missing most:", tabulate(_gap_rows(summary), headers=GAP_HEADERS)]
    blocks.append("\n".join(tail))
    return "\n\n".join(blocks) + "\n"


def _md_cell(value: object) -> str:
    return str(value).replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`")


def _md_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
    return out


def render_markdown(traces: Sequence[Trace], summary: Mapping[str, Any]) -> str:
    """The same content as Markdown, for a review document."""
    out = ["# tracekit audit", "", MARKDOWN_NOTE, ""]
    for trace in traces:
        out += [f"## `{_md_cell(_path(trace))}`", "", verdict_line(trace), ""]
        if (scenario := _scenario(trace)) is not None:
            out += [_md_cell(scenario), ""]
        if trace["completeness"]:
            out += ["### Completeness", "", *_md_table(FIELD_HEADERS, _completeness(trace)), ""]
        if trace["findings"]:
            out += ["### Findings", "", *_md_table(FINDING_HEADERS, _findings(trace)), ""]
    out += ["## Campaign summary", "", *_md_table(["measure", "value"], _summary_rows(summary)), ""]
    if summary["fields_missing_most"]:
        out += ["### Fields missing most", "", *_md_table(GAP_HEADERS, _gap_rows(summary)), ""]
    return "\n".join(out)


def summary_line(traces: Sequence[Trace], summary: Mapping[str, Any]) -> str:
    """The one-line stderr summary."""
    return (
        f"tracekit audit: {summary['total']} trace(s), {summary['rerunnable']} rerunnable, "
        f"{summary['intact']} intact, {summary['not_intact']} not intact, "
        f"{summary['unreadable']} unreadable; exit {worst_exit(traces)}"
    )
