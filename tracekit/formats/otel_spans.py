"""OTLP/JSON decoding for the OTel importer: ``ExportTraceServiceRequest`` lines into
:class:`Span` records (docs/formats.md, "OpenTelemetry GenAI", steps 1-3).

Accepts what real exporters write: hex or base64 ids, ``intValue`` as a JSON string, ``kind`` and
``status.code`` as numbers or enum names, ``arrayValue`` / ``kvlistValue`` values. The JSON was
depth-checked before decoding, so the recursion over nested values is bounded by
``FormatLimits.depth``.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from typing import Any

from tracekit.formats.jsoninput import Budget, Codes, as_dict, as_list, schema_error

_HEX = re.compile(r"[0-9a-fA-F]*")
_STATUS_ERROR = (2, "STATUS_CODE_ERROR")


@dataclass(slots=True)
class Event:
    """A span event: its name, time and decoded attributes."""

    name: str
    time: int | None
    attributes: dict[str, Any]


@dataclass(slots=True)
class Span:
    """One span, decoded; ``attributes`` maps keys to plain Python values."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start: int | None
    end: int | None
    start_text: str | None
    attributes: dict[str, Any]
    events: list[Event] = field(default_factory=list)
    error: bool = False
    status_message: str | None = None
    dropped_attributes: int = 0
    dropped_events: int = 0
    resource: dict[str, Any] = field(default_factory=dict)
    scope_name: str | None = None
    scope_version: str | None = None
    line: int = 0
    from_logs: bool = False
    """A pseudo-span gathered from log records (:func:`log_spans_of`), not a span."""


def _id(value: Any, size: int, codes: Codes, name: str, line: int) -> str | None:
    """A trace or span id as lower-case hex: hex as OTLP/JSON wants it, or base64 as protobuf's
    JSON printer writes it. Empty means absent (a root span's parent)."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) > 4 * size:
        schema_error(codes, name, line)
    if len(value) == 2 * size and _HEX.fullmatch(value):
        return value.lower()
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        schema_error(codes, name, line)
    if len(raw) != size:
        schema_error(codes, name, line)
    return raw.hex()


def _time(value: Any, codes: Codes, name: str, line: int) -> tuple[int | None, str | None]:
    """A ``*UnixNano`` time: JSON string or number, kept also as the text found."""
    if value is None:
        return None, None
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        schema_error(codes, name, line)
    text = str(value)
    if not (text.isascii() and text.isdigit()) or len(text) > 20:
        schema_error(codes, name, line)
    return int(text), text


def any_value(value: Any, codes: Codes, line: int) -> Any:
    """An OTLP ``AnyValue`` as a Python value (strings, ints, floats, bools, lists, dicts)."""
    item = as_dict(value, codes, "AnyValue", line)
    if not item:
        return None
    if len(item) != 1:
        schema_error(codes, "AnyValue", line)
    ((kind, inner),) = item.items()
    if kind == "stringValue" and isinstance(inner, str):
        return inner
    if kind == "boolValue" and isinstance(inner, bool):
        return inner
    if kind == "intValue" and not isinstance(inner, bool) and isinstance(inner, (int, str)):
        text = str(inner)
        digits = text.removeprefix("-")
        if len(text) <= 20 and digits.isascii() and digits.isdigit():
            return int(text)
    if kind == "doubleValue" and not isinstance(inner, bool) and isinstance(inner, (int, float, str)):
        try:
            return float(inner)
        except ValueError:
            schema_error(codes, "AnyValue.doubleValue", line)
    if kind == "bytesValue" and isinstance(inner, str):
        return inner
    if kind == "arrayValue":
        values = as_list(as_dict(inner, codes, "AnyValue.arrayValue", line).get("values"), codes, "AnyValue.arrayValue", line)
        return [any_value(v, codes, line) for v in values]
    if kind == "kvlistValue":
        values = as_list(as_dict(inner, codes, "AnyValue.kvlistValue", line).get("values"), codes, "AnyValue.kvlistValue", line)
        return attributes(values, codes, line)
    schema_error(codes, "AnyValue", line)


def attributes(raw: Any, codes: Codes, line: int) -> dict[str, Any]:
    """A ``KeyValue`` list as a dict; a repeated key keeps its first value (the SDK never
    writes one twice)."""
    out: dict[str, Any] = {}
    for entry in as_list(raw, codes, "attributes", line):
        item = as_dict(entry, codes, "attributes[]", line)
        key = item.get("key")
        if not isinstance(key, str):
            schema_error(codes, "attributes[].key", line)
        if key not in out:
            out[key] = any_value(item.get("value"), codes, line)
    return out


def _count(value: Any, codes: Codes, name: str, line: int) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        schema_error(codes, name, line)
    return value


def spans_of(document: Any, line: int, codes: Codes, budget: Budget) -> list[Span]:
    """Every span of one ``ExportTraceServiceRequest`` (docs/formats.md, "OpenTelemetry
    GenAI", step 2); ``budget`` counts spans and events against the item limit."""
    top = as_dict(document, codes, "ExportTraceServiceRequest", line)
    if "resourceSpans" not in top:
        schema_error(codes, "ExportTraceServiceRequest.resourceSpans", line)
    out: list[Span] = []
    for resource_spans in as_list(top.get("resourceSpans"), codes, "resourceSpans", line):
        block = as_dict(resource_spans, codes, "resourceSpans[]", line)
        resource = attributes(as_dict(block.get("resource"), codes, "resource", line).get("attributes"), codes, line)
        for scope_spans in as_list(block.get("scopeSpans"), codes, "scopeSpans", line):
            scoped = as_dict(scope_spans, codes, "scopeSpans[]", line)
            scope = as_dict(scoped.get("scope"), codes, "scope", line)
            scope_name, scope_version = scope.get("name"), scope.get("version")
            for raw in as_list(scoped.get("spans"), codes, "spans", line):
                budget.take()
                out.append(_span(raw, codes, line, budget, resource, scope_name, scope_version))
    return out


def _span(
    raw: Any, codes: Codes, line: int, budget: Budget, resource: dict[str, Any], scope_name: Any, scope_version: Any
) -> Span:
    item = as_dict(raw, codes, "spans[]", line)
    trace_id = _id(item.get("traceId"), 16, codes, "Span.traceId", line)
    span_id = _id(item.get("spanId"), 8, codes, "Span.spanId", line)
    if trace_id is None or span_id is None:
        schema_error(codes, "Span.traceId", line)
    name = item.get("name", "")
    if not isinstance(name, str):
        schema_error(codes, "Span.name", line)
    start, start_text = _time(item.get("startTimeUnixNano"), codes, "Span.startTimeUnixNano", line)
    end, _ = _time(item.get("endTimeUnixNano"), codes, "Span.endTimeUnixNano", line)
    status = as_dict(item.get("status"), codes, "Span.status", line)
    events: list[Event] = []
    for raw_event in as_list(item.get("events"), codes, "Span.events", line):
        budget.take()
        event = as_dict(raw_event, codes, "Span.events[]", line)
        event_name = event.get("name", "")
        if not isinstance(event_name, str):
            schema_error(codes, "Event.name", line)
        when, _ = _time(event.get("timeUnixNano"), codes, "Event.timeUnixNano", line)
        events.append(Event(event_name, when, attributes(event.get("attributes"), codes, line)))
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=_id(item.get("parentSpanId"), 8, codes, "Span.parentSpanId", line),
        name=name,
        start=start,
        end=end,
        start_text=start_text,
        attributes=attributes(item.get("attributes"), codes, line),
        events=events,
        error=status.get("code") in _STATUS_ERROR,
        status_message=status.get("message") if isinstance(status.get("message"), str) else None,
        dropped_attributes=_count(item.get("droppedAttributesCount"), codes, "Span.droppedAttributesCount", line),
        dropped_events=_count(item.get("droppedEventsCount"), codes, "Span.droppedEventsCount", line),
        resource=resource,
        scope_name=scope_name if isinstance(scope_name, str) else None,
        scope_version=scope_version if isinstance(scope_version, str) else None,
        line=line,
    )


def log_spans_of(document: Any, line: int, codes: Codes, budget: Budget) -> list[Span]:
    """The log records of one ``ExportLogsServiceRequest`` (GenAI <= 1.36 events written as
    logs), one pseudo-span per (trace id, span id) holding them as events: each such group is
    the content of one inference call (docs/formats.md, "OpenTelemetry GenAI", step 2)."""
    top = as_dict(document, codes, "ExportLogsServiceRequest", line)
    if "resourceLogs" not in top:
        schema_error(codes, "ExportLogsServiceRequest.resourceLogs", line)
    groups: dict[tuple[str, str], Span] = {}
    for resource_logs in as_list(top.get("resourceLogs"), codes, "resourceLogs", line):
        block = as_dict(resource_logs, codes, "resourceLogs[]", line)
        resource = attributes(as_dict(block.get("resource"), codes, "resource", line).get("attributes"), codes, line)
        for scope_logs in as_list(block.get("scopeLogs"), codes, "scopeLogs", line):
            scoped = as_dict(scope_logs, codes, "scopeLogs[]", line)
            scope = as_dict(scoped.get("scope"), codes, "scope", line)
            for raw in as_list(scoped.get("logRecords"), codes, "logRecords", line):
                budget.take()
                record = as_dict(raw, codes, "logRecords[]", line)
                trace_id = _id(record.get("traceId"), 16, codes, "LogRecord.traceId", line)
                span_id = _id(record.get("spanId"), 8, codes, "LogRecord.spanId", line)
                if trace_id is None or span_id is None:
                    continue  # a record outside any trace belongs to no episode
                attrs = attributes(record.get("attributes"), codes, line)
                body = any_value(record.get("body"), codes, line) if record.get("body") is not None else None
                name = record.get("eventName", attrs.get("event.name"))
                if not isinstance(name, str):
                    continue
                when, text = _time(record.get("timeUnixNano") or record.get("observedTimeUnixNano"), codes, "LogRecord.timeUnixNano", line)
                merged = {**attrs, **body} if isinstance(body, dict) else attrs
                span = groups.get((trace_id, span_id))
                if span is None:
                    span = Span(trace_id, span_id, None, "", when, None, text, {}, resource=resource, line=line, from_logs=True)
                    version = scope.get("version")
                    span.scope_version = version if isinstance(version, str) else None
                    groups[(trace_id, span_id)] = span
                span.events.append(Event(name, when, merged))
    return list(groups.values())
