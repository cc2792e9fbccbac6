"""Findings as security events for a SIEM, in either of the two event formats every findings
command offers: OCSF Detection Findings (report/ocsf.py) or OTLP/JSON log records
(report/otlp.py); docs/formats.md, "OCSF findings" and "OTLP findings". Each format's module is
imported only when it is asked for."""

from __future__ import annotations

from collections.abc import Sequence

from tracekit.report.findings import TraceFindings

EVENT_FORMATS = ("ocsf", "otlp")


def render_events(
    fmt: str, command: str, traces: Sequence[TraceFindings], wheres: Sequence[Sequence[str | None]] | None = None
) -> str:
    """``traces``' findings as ``fmt`` (one of :data:`EVENT_FORMATS`) for ``command``;
    ``wheres``: per trace, per finding, audit's location (or None)."""
    if fmt == "ocsf":
        from tracekit.report.ocsf import event_time_ms, render_ocsf

        return render_ocsf(command, traces, event_time_ms(), wheres)
    from tracekit.report.otlp import render_otlp

    return render_otlp(command, traces, wheres)
