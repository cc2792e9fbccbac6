"""OCSF 1.x Detection Finding events (class 2004) for every command whose result is findings per
trace (verify, audit, replay; check's assertions too): one event per finding, one JSON object per
line (docs/formats.md, "OCSF findings"). Pure: the findings and the time in, text out.

Every value is ours: codes, severities, fixed messages, line numbers, and the path the user named.
Nothing is taken from trace content."""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from tracekit import __version__
from tracekit.report.findings import FindingRow, TraceFindings

if TYPE_CHECKING:
    from tracekit.judging.harness.model import HarnessResult
    from tracekit.report.findings_render import CampaignReport, FindingsReport

OCSF_VERSION = "1.5.0"
CLASS_UID = 2004  # Detection Finding
CATEGORY_UID = 2  # Findings
ACTIVITY_CREATE = 1
TYPE_UID = CLASS_UID * 100 + ACTIVITY_CREATE
STATUS_NEW = 1

SEVERITY: dict[str, tuple[int, str]] = {
    "error": (4, "High"),
    "warning": (3, "Medium"),
    "notice": (2, "Low"),
    "info": (1, "Informational"),
}
"""Ours to OCSF's ``severity_id``: an error (tampered, malformed, a failed assertion) needs action
now; a warning needs action; a notice is the user's call; info needs none."""


def event_time_ms() -> int:
    """An event's ``time``: ``SOURCE_DATE_EPOCH`` in milliseconds when set (reproducible
    output), else now."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    return int(epoch) * 1000 if epoch.isdigit() else int(time.time() * 1000)


def finding_uid(command: str, path: str, row: FindingRow, occurrence: int) -> str:
    """Content-derived and stable: SHA-256 over the command, the path, the finding's code,
    severity, line and text, and its occurrence among identical ones (docs/formats.md)."""
    key = json.dumps([command, path, row.code, row.severity, row.line, row.message, occurrence], ensure_ascii=True)
    return hashlib.sha256(key.encode("ascii")).hexdigest()


def event(
    command: str, trace: TraceFindings, row: FindingRow, uid: str, time_ms: int, where: str | None = None
) -> dict[str, Any]:
    """One Detection Finding; ``where`` is audit's location in our own terms (a field path such
    as ``tool_calls[*].id``), when the finding has one."""
    severity_id, severity = SEVERITY.get(row.severity, (99, row.severity))
    facts: dict[str, Any] = {
        "command": command,
        "path": trace.path,
        "exit_code": trace.exit_code,
        "code": row.code,
        "severity": row.severity,
        "line": row.line,
    }
    if where is not None:
        facts["where"] = where
    return {
        "activity_id": ACTIVITY_CREATE,
        "activity_name": "Create",
        "category_uid": CATEGORY_UID,
        "category_name": "Findings",
        "class_uid": CLASS_UID,
        "class_name": "Detection Finding",
        "type_uid": TYPE_UID,
        "type_name": "Detection Finding: Create",
        "severity_id": severity_id,
        "severity": severity,
        "status_id": STATUS_NEW,
        "status": "New",
        "time": time_ms,
        "message": row.message,
        "metadata": {
            "version": OCSF_VERSION,
            "product": {"name": "tracekit", "vendor_name": "tracekit", "version": __version__},
            "event_code": row.code,
            "uid": uid,
        },
        "finding_info": {
            "uid": uid,
            "title": row.code,
            "desc": row.message,
            "types": [f"tracekit {command}"],
            "analytic": {"name": row.code, "uid": row.code, "type_id": 1, "type": "Rule"},
        },
        "evidences": [{"name": "tracekit finding", "data": facts}],
        "unmapped": {"tracekit": facts},
    }


def events(
    command: str,
    traces: Iterable[TraceFindings],
    time_ms: int,
    wheres: Sequence[Sequence[str | None]] | None = None,
) -> Iterator[dict[str, Any]]:
    for number, trace in enumerate(traces):
        for position, (row, uid) in enumerate(zip(trace.findings, finding_uids(command, trace), strict=True)):
            where = wheres[number][position] if wheres is not None else None
            yield event(command, trace, row, uid, time_ms, where)


def finding_uids(command: str, trace: TraceFindings) -> list[str]:
    """Each finding's uid, in order; identical findings numbered by occurrence (shared with the
    OTLP output, so the two correlate)."""
    seen: dict[str, int] = {}
    uids = []
    for row in trace.findings:
        base = finding_uid(command, trace.path, row, 0)
        occurrence = seen.get(base, 0)
        seen[base] = occurrence + 1
        uids.append(base if occurrence == 0 else finding_uid(command, trace.path, row, occurrence))
    return uids


_ASSERTION: dict[str, tuple[str, str]] = {
    "fail": ("error", "The scenario's assertion failed on this trace."),
    "error": ("error", "The scenario's assertion could not be evaluated on this trace."),
    "not_run": ("notice", "The scenario's assertion was not run."),
}


def from_harness(path: str, result: HarnessResult) -> TraceFindings:
    """``check``'s verdict as findings: one per assertion that did not pass, its code
    ``assertion[i]:TYPE`` (position in the scenario, then its type). Upstream's evidence text may
    quote the trace, so it is left out; the message is fixed."""
    rows = []
    for index, assertion in enumerate(result.assertions):
        if assertion.result in _ASSERTION:
            severity, message = _ASSERTION[assertion.result]
            rows.append(FindingRow(f"assertion[{index}]:{assertion.id}", severity, None, message))
    exit_code = 0 if result.result == "pass" else 1
    return TraceFindings(path, exit_code, tuple(rows))


def from_episodes(path: str, report: FindingsReport, exit_code: int) -> TraceFindings:
    """``check`` on one file of any format: one finding per assertion that did not pass on each
    episode (code ``assertion:ID``), and one per episode refused as inconsistent (its
    consistency code). Episode ids and evidence text come from the trace, so they are left out."""
    rows = []
    for entry in report.episodes:
        if entry.refused is not None:
            rows.append(FindingRow(entry.refused, "error", None, "The episode's calls and results are inconsistent; not judged."))
        for assertion in entry.assertions:
            if assertion.result in _ASSERTION:
                severity, message = _ASSERTION[assertion.result]
                rows.append(FindingRow(f"assertion:{assertion.id}", severity, None, message))
    return TraceFindings(path, exit_code, tuple(rows))


def from_campaign(report: CampaignReport) -> list[TraceFindings]:
    """``check`` over a campaign: one finding per distinct demonstration, at the file where it was
    first seen, and one per file that could not be read (skipped non-trace files are info)."""
    traces = [
        TraceFindings(d.first_trace, 1, (FindingRow(
            f"assertion:{d.assertion}", "error", None,
            f"The scenario's assertion fails in {d.episodes} episode(s) with the same call ({d.format}).",
        ),))
        for d in report.distinct
    ]
    for left in report.skipped:
        severity = "error" if left.error else "info"
        text = "The file could not be read; it was not judged." if left.error else "Skipped, not read as a trace."
        traces.append(TraceFindings(left.trace, 2 if left.error else 0, (FindingRow(left.code, severity, None, text),)))
    return traces


def render_ocsf(
    command: str,
    traces: Sequence[TraceFindings],
    time_ms: int,
    wheres: Sequence[Sequence[str | None]] | None = None,
) -> str:
    """JSON Lines, one event per finding, keys sorted: the same findings and time give the same
    bytes. ``wheres``: per trace, per finding, audit's location (or None)."""
    lines = (json.dumps(e, sort_keys=True, ensure_ascii=True) + "\n" for e in events(command, traces, time_ms, wheres))
    return "".join(lines)
