"""Findings as OTLP/JSON log records: one ``ExportLogsServiceRequest`` document whose log records
are ``gen_ai.security.finding`` events of the OpenTelemetry GenAI semantic conventions (a draft),
one per finding, for every command that offers ``-f ocsf`` (docs/formats.md, "OTLP findings").
Pure: the findings in, text out; no clock.

The same findings as the OCSF output, with the same values: codes, severities, fixed messages,
line numbers, audit's field paths in tracekit's own terms, and the path the user named. Nothing is
taken from trace content."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

from tracekit import __version__
from tracekit.report.findings import FindingRow, TraceFindings
from tracekit.report.ocsf import finding_uids

EVENT_NAME = "gen_ai.security.finding"
"""The draft's event name (docs/formats.md, "OTLP findings": which draft, at which commit)."""

SEVERITY: dict[str, tuple[int, str]] = {
    "error": (17, "deny"),
    "warning": (13, "warn"),
    "notice": (10, "audit"),
    "info": (9, "audit"),
}
"""Ours to OTLP's ``SeverityNumber`` (17 ERROR, 13 WARN, 10 INFO2, 9 INFO) and to the draft's
``gen_ai.security.verdict.type``. No finding maps to ``allow``: a finding is never a pass."""

UNKNOWN_TIME = "0"
"""``timeUnixNano`` and ``observedTimeUnixNano``: OTLP's "unknown". A finding concerns a whole
file, and a trace's own timestamps are claims of its writer, not facts tracekit checked; the run's
wall clock would make the output differ on every run (docs/formats.md, "OTLP findings")."""


def _string(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value}}


def _int(key: str, value: int) -> dict[str, Any]:
    # OTLP/JSON writes 64-bit integers as decimal strings.
    return {"key": key, "value": {"intValue": str(value)}}


def _strings(key: str, values: Sequence[str]) -> dict[str, Any]:
    return {"key": key, "value": {"arrayValue": {"values": [{"stringValue": v} for v in values]}}}


def attributes(
    command: str, trace: TraceFindings, row: FindingRow, uid: str, where: str | None, verdict: str
) -> list[dict[str, Any]]:
    """The draft's attributes (its three required ones first), then tracekit's own; ``verdict``
    the draft's verdict type for the finding's severity (:data:`SEVERITY`)."""
    evidence = [f"line:{row.line}"] if row.line is not None else []
    if where is not None:
        evidence.append(f"position:{where}")
    draft = [
        _string("gen_ai.security.policy.id", f"tracekit.{command}"),
        _string("gen_ai.security.risk.finding", f"custom:{row.code}"),
        _string("gen_ai.security.target.type", "output"),
        _string("gen_ai.security.target.id", trace.path),
        _string("gen_ai.security.external_finding_id", uid),
        _string("gen_ai.security.guardrail.id", "tracekit"),
        _string("gen_ai.security.guardrail.name", "tracekit"),
        _string("gen_ai.security.guardrail.provider.name", "tracekit"),
        _string("gen_ai.security.policy.name", f"tracekit {command}"),
        _string("gen_ai.security.policy.rule.id", row.code),
        _string("gen_ai.security.policy.version", __version__),
        _string("gen_ai.security.verdict.type", verdict),
        _string("gen_ai.security.verdict.code", row.code),
        _string("gen_ai.security.verdict.reason", row.message),
    ]
    if evidence:
        draft.append(_strings("gen_ai.security.finding.evidence", evidence))
    own = [
        _string("tracekit.command", command),
        _int("tracekit.exit_code", trace.exit_code),
        _string("tracekit.severity", row.severity),
    ]
    if row.line is not None:
        own.append(_int("tracekit.line", row.line))
    if where is not None:
        own.append(_string("tracekit.where", where))
    return draft + own


def log_record(
    command: str, trace: TraceFindings, row: FindingRow, uid: str, where: str | None = None
) -> dict[str, Any]:
    """One finding as one log record: the event name, unknown times, our severity mapped, the
    code's fixed text as the body."""
    number, verdict = SEVERITY.get(row.severity, (0, "warn"))
    return {
        "timeUnixNano": UNKNOWN_TIME,
        "observedTimeUnixNano": UNKNOWN_TIME,
        "eventName": EVENT_NAME,
        "severityNumber": number,
        "severityText": row.severity,
        "body": {"stringValue": row.message},
        "attributes": attributes(command, trace, row, uid, where, verdict),
    }


def log_records(
    command: str, traces: Sequence[TraceFindings], wheres: Sequence[Sequence[str | None]] | None = None
) -> Iterator[dict[str, Any]]:
    """Every trace's findings in order; uids as the OCSF output's, so the two correlate."""
    for number, trace in enumerate(traces):
        for position, (row, uid) in enumerate(zip(trace.findings, finding_uids(command, trace), strict=True)):
            where = wheres[number][position] if wheres is not None else None
            yield log_record(command, trace, row, uid, where)


def render_otlp(
    command: str, traces: Sequence[TraceFindings], wheres: Sequence[Sequence[str | None]] | None = None
) -> str:
    """One ``ExportLogsServiceRequest`` as one line of JSON, keys sorted: the same findings give
    the same bytes. A run with no finding gives a request with no log record. ``wheres``: per
    trace, per finding, audit's location (or None)."""
    request = {
        "resourceLogs": [{
            "resource": {"attributes": [_string("service.name", "tracekit"), _string("service.version", __version__)]},
            "scopeLogs": [{
                "scope": {"name": "tracekit", "version": __version__},
                "logRecords": list(log_records(command, traces, wheres)),
            }],
        }],
    }
    return json.dumps(request, sort_keys=True, ensure_ascii=True) + "\n"
