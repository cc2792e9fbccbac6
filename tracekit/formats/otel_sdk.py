"""Spans as the OpenTelemetry Python SDK prints them (``ReadableSpan.to_json()``), gathered in a
``{"spans": [...]}`` document by agent SDKs and span-to-file exporters (docs/formats.md,
"OpenTelemetry GenAI", "SDK span lists").

Each span: ``name``; ``context.trace_id`` / ``context.span_id`` as ``0x``-prefixed hex or as
integers; ``parent_id`` likewise or null; ``kind`` (``SpanKind.CLIENT``) and
``status.status_code`` (``ERROR``, ``StatusCode.ERROR``) as strings; ``start_time`` /
``end_time`` as ISO 8601 UTC text; ``attributes`` as a plain object; ``events`` with ``name``,
``timestamp`` and ``attributes``; ``resource.attributes`` as a plain object.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from tracekit.formats.jsoninput import Budget, Codes, as_dict, as_list, schema_error
from tracekit.formats.otel_spans import Event, Span

_HEX = re.compile(r"(?:0x)?([0-9a-fA-F]{1,32})")
_ERROR = frozenset({"ERROR", "StatusCode.ERROR", "STATUS_CODE_ERROR"})
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _id(value: Any, size: int, codes: Codes, name: str, line: int) -> str | None:
    """An id as lower-case hex of ``size`` bytes: ``0x`` hex text or an integer; None for
    null, zero or empty (a root span's parent)."""
    if value is None or value == "" or value == 0:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and (match := _HEX.fullmatch(value)) is not None:
        number = int(match.group(1), 16)
    else:
        schema_error(codes, name, line)
    if not 0 < number < 1 << (8 * size):
        schema_error(codes, name, line)
    return format(number, f"0{2 * size}x")


def _time(value: Any, codes: Codes, name: str, line: int) -> tuple[int | None, str | None]:
    """ISO 8601 text as nanoseconds since the epoch (UTC when no offset), kept as the text."""
    if value is None:
        return None, None
    if not isinstance(value, str) or len(value) > 40:
        schema_error(codes, name, line)
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        schema_error(codes, name, line)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    delta = when - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1_000, value


def _plain(value: Any, codes: Codes, name: str, line: int) -> dict[str, Any]:
    return dict(as_dict(value, codes, name, line))


def sdk_spans_of(document: Any, line: int, codes: Codes, budget: Budget) -> list[Span]:
    """Every span of one ``{"spans": [...]}`` document."""
    top = as_dict(document, codes, "spans", line)
    out: list[Span] = []
    for raw in as_list(top.get("spans"), codes, "spans", line):
        budget.take()
        out.append(_span(as_dict(raw, codes, "spans[]", line), codes, line, budget))
    return out


def _span(item: dict[str, Any], codes: Codes, line: int, budget: Budget) -> Span:
    context = as_dict(item.get("context"), codes, "span.context", line)
    trace_id = _id(context.get("trace_id"), 16, codes, "span.context.trace_id", line)
    span_id = _id(context.get("span_id"), 8, codes, "span.context.span_id", line)
    if trace_id is None or span_id is None:
        schema_error(codes, "span.context.trace_id", line)
    name = item.get("name", "")
    if not isinstance(name, str):
        schema_error(codes, "span.name", line)
    start, start_text = _time(item.get("start_time"), codes, "span.start_time", line)
    end, _ = _time(item.get("end_time"), codes, "span.end_time", line)
    status = as_dict(item.get("status"), codes, "span.status", line)
    events: list[Event] = []
    for raw_event in as_list(item.get("events"), codes, "span.events", line):
        budget.take()
        event = as_dict(raw_event, codes, "span.events[]", line)
        event_name = event.get("name", "")
        if not isinstance(event_name, str):
            schema_error(codes, "span.events[].name", line)
        when, _ = _time(event.get("timestamp"), codes, "span.events[].timestamp", line)
        events.append(Event(event_name, when, _plain(event.get("attributes"), codes, "span.events[].attributes", line)))
    resource = as_dict(item.get("resource"), codes, "span.resource", line)
    description, code = status.get("description"), status.get("status_code")
    return Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_id=_id(item.get("parent_id"), 8, codes, "span.parent_id", line),
        name=name,
        start=start,
        end=end,
        start_text=start_text,
        attributes=_plain(item.get("attributes"), codes, "span.attributes", line),
        events=events,
        error=isinstance(code, str) and code in _ERROR,
        status_message=description if isinstance(description, str) else None,
        resource=_plain(resource.get("attributes"), codes, "span.resource.attributes", line),
        line=line,
    )
