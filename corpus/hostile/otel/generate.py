#!/usr/bin/env python3
"""Hostile OTLP/JSON span files, generated deterministically (docs/formats.md,
"OpenTelemetry GenAI"). Each case keeps the OTLP envelope (so it is detected as ``otel``) and
breaks one rule inside it, with the code tracekit must give in expected.json. Every case carries
the canary where an importer could echo it; none may reach a diagnostic.

Usage: generate.py [--check]   (--check: exit 1 if a committed file differs from what is built)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from written import write_cases

CANARY = "CANARY-otel-hostile-4Kp-do-not-echo"
TRACE = "5b8efff798038103d269b633813fc60c"


def kv(key: str, value: object) -> dict[str, object]:
    return {"key": key, "value": {"stringValue": value}}


def span(**extra: object) -> dict[str, object]:
    base: dict[str, object] = {
        "traceId": TRACE,
        "spanId": "eee19b7ec3c1b174",
        "name": "chat m",
        "kind": 3,
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000001000000000",
        "attributes": [kv("gen_ai.operation.name", "chat"), kv("gen_ai.request.model", "m"), kv("note", CANARY)],
        "status": {},
    }
    base.update(extra)
    return base


def request(*spans: object) -> dict[str, object]:
    return {"resourceSpans": [{"resource": {"attributes": [kv("service.name", CANARY)]}, "scopeSpans": [{"scope": {"name": "s"}, "spans": list(spans)}]}]}


def line(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode() + b"\n"


def deep(levels: int) -> object:
    value: object = {"stringValue": CANARY}
    for _ in range(levels):
        value = {"kvlistValue": {"values": [{"key": CANARY, "value": value}]}}
    return value


CASES: dict[str, tuple[str, str | None, bytes]] = {
    "control__valid.otlp.jsonl": ("a valid chat span", None, line(request(span()))),
    "deep_kvlist.otlp.jsonl": (
        "an attribute nesting kvlistValue 200 levels deep",
        "otel.too_deep",
        line(request(span(attributes=[{"key": CANARY, "value": deep(200)}]))),
    ),
    "span_id_canary.otlp.jsonl": ("a span id that is neither hex nor base64", "otel.schema", line(request(span(spanId=CANARY)))),
    "trace_id_short_base64.otlp.jsonl": ("a base64 trace id of the wrong length", "otel.schema", line(request(span(traceId="AAAA")))),
    "int_value_canary.otlp.jsonl": (
        "an intValue that is not a number",
        "otel.schema",
        line(request(span(attributes=[{"key": "gen_ai.usage.input_tokens", "value": {"intValue": CANARY}}]))),
    ),
    "two_value_kinds.otlp.jsonl": (
        "an AnyValue with two kinds at once",
        "otel.schema",
        line(request(span(attributes=[{"key": "k", "value": {"stringValue": CANARY, "intValue": "1"}}]))),
    ),
    "events_not_list.otlp.jsonl": ("span events as an object", "otel.schema", line(request(span(events={CANARY: 1})))),
    "spans_not_list.otlp.jsonl": (
        "scopeSpans.spans as a string",
        "otel.schema",
        line({"resourceSpans": [{"scopeSpans": [{"spans": CANARY}]}]}),
    ),
    "start_time_canary.otlp.jsonl": ("a start time that is not a number", "otel.schema", line(request(span(startTimeUnixNano=CANARY)))),
    "dropped_negative.otlp.jsonl": ("a negative droppedAttributesCount", "otel.schema", line(request(span(droppedAttributesCount=-1)))),
    "second_line_invalid_utf8.otlp.jsonl": (
        "a second line that is not UTF-8",
        "otel.invalid_json",
        line(request(span())) + b'{"resourceSpans":["\xff\xfe' + CANARY.encode() + b'"]}\n',
    ),
    "second_line_nan.otlp.jsonl": (
        "a NaN literal on the second line",
        "otel.invalid_json",
        line(request(span())) + b'{"resourceSpans":[],"x":NaN,"' + CANARY.encode() + b'":1}\n',
    ),
    "second_line_not_request.otlp.jsonl": (
        "a second line without resourceSpans",
        "otel.schema",
        line(request(span())) + line({CANARY: []}),
    ),
    "sdk_span_id_canary.otlp.jsonl": (
        "an SDK span list whose span id is not hex",
        "otel.schema",
        line({"spans": [{"name": "s", "context": {"trace_id": "0x" + TRACE, "span_id": CANARY}, "attributes": {"note": CANARY}}]}),
    ),
    "sdk_deep_attribute.otlp.jsonl": (
        "an SDK span list with an attribute nested 200 levels deep",
        "otel.too_deep",
        line({"spans": [{"name": "s", "context": {"trace_id": "0x" + TRACE, "span_id": "0x1"}, "attributes": {"k": deep(200)}}]}),
    ),
    "pretty_body_invalid.otlp.jsonl": (
        "a pretty-printed request whose body is not JSON",
        "otel.invalid_json",
        b'{"resourceSpans": [\n  ' + CANARY.encode() + b"\n]}\n",
    ),
    "duplicate_key.otlp.jsonl": (
        "a span naming itself twice",
        "otel.duplicate_key",
        line(request(span())).replace(b'"name":"chat m"', b'"name":"chat m","name":"' + CANARY.encode() + b'"', 1),
    ),
}


def main() -> int:
    return write_cases(HERE, CASES, CANARY, sys.argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
