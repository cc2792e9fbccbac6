"""OpenTelemetry variants (docs/formats.md, "OpenTelemetry GenAI"): a pretty-printed OTLP/JSON
document whatever its first line holds, the public example of the OTLP repository, and the SDK's
``ReadableSpan.to_json()`` span lists read into the same evidence as their OTLP export."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tracekit.formats import registry
from tracekit.formats.base import DEFAULT_FORMAT_LIMITS, FormatError, FormatLimits, Source
from tracekit.formats.jsoninput import Codes
from tracekit.formats.otel import FORMAT
from tracekit.formats.otel_spans import any_value
from tracekit.formats.reading import load_file
from tracekit.kernel.errors import Code
from tracekit.kernel.evidence import EvidenceFile

OTEL = Path(__file__).resolve().parents[3] / "corpus" / "third_party" / "otel"
PUBLIC = OTEL / "public"
EXPECTED: dict[str, dict[str, Any]] = json.loads((PUBLIC / "counts.expected.json").read_text())
CANARY = "CANARY-otel-variant-do-not-echo"


def _load(raw: bytes, limits: FormatLimits = DEFAULT_FORMAT_LIMITS) -> EvidenceFile:
    return FORMAT.load(Source(io.BytesIO(raw), len(raw), ".json"), limits)


def test_public_files_are_listed_in_sources() -> None:
    sources = (PUBLIC / "SOURCES").read_text()
    files = sorted(p.name for p in PUBLIC.glob("*.json") if not p.name.endswith(".expected.json"))
    assert files == sorted(EXPECTED)
    assert all(f"\n{name} | open-telemetry/opentelemetry-proto | " in sources for name in files)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_public_file_is_otel_with_expected_counts(name: str) -> None:
    raw = (PUBLIC / name).read_bytes()
    assert registry.accepting(raw[:65536], ".json") == ("otel",)
    want = EXPECTED[name]
    assert raw.count(b"\n") > 1 and want["pretty_printed"]
    evidence = load_file(PUBLIC / name)
    assert len(evidence.episodes) == want["episodes"]
    for key in ("messages", "turns", "calls"):
        assert sum(len(getattr(e, key)) for e in evidence.episodes) == want[key]


@pytest.mark.parametrize("indent", [None, 1, 4])
def test_a_pretty_printed_request_reads_whatever_its_first_line_holds(indent: int | None) -> None:
    lines = (OTEL / "genai_content.otlp.jsonl").read_bytes().splitlines()
    expected = _load(b"\n".join(lines) + b"\n")
    merged = {"resourceSpans": [block for line in lines for block in json.loads(line)["resourceSpans"]]}
    inner = json.dumps(merged["resourceSpans"], indent=indent)
    text = '{"resourceSpans": ' + inner.replace("\n", "\n  ") + "\n}\n"
    assert text.splitlines()[0].startswith('{"resourceSpans": [')
    assert _load(text.encode()) == expected


def _nanos_text(value: str) -> str:
    nanos = int(value)
    when = datetime.fromtimestamp(nanos // 1_000_000_000, UTC).replace(microsecond=(nanos // 1000) % 1_000_000)
    return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _status(status: dict[str, Any]) -> dict[str, Any]:
    if status.get("code") in (2, "STATUS_CODE_ERROR"):
        return {"status_code": "ERROR", "description": status.get("message")}
    return {"status_code": "UNSET"}


def _sdk_span(span: dict[str, Any], resource: dict[str, Any], as_int: bool) -> dict[str, Any]:
    """One OTLP span as ``ReadableSpan.to_json()`` prints it."""
    codes = Codes.of("otel")

    def ident(text: str) -> Any:
        return int(text, 16) if as_int else "0x" + text

    attrs = {a["key"]: any_value(a["value"], codes, 0) for a in span.get("attributes", [])}
    return {
        "name": span["name"],
        "context": {"trace_id": ident(span["traceId"]), "span_id": ident(span["spanId"]), "trace_state": "[]"},
        "kind": "SpanKind.CLIENT",
        "parent_id": ident(span["parentSpanId"]) if span.get("parentSpanId") else None,
        "start_time": _nanos_text(span["startTimeUnixNano"]),
        "end_time": _nanos_text(span["endTimeUnixNano"]),
        "status": _status(span.get("status", {})),
        "attributes": attrs,
        "events": [
            {"name": e["name"], "timestamp": _nanos_text(e["timeUnixNano"]), "attributes": {a["key"]: any_value(a["value"], codes, 0) for a in e.get("attributes", [])}}
            for e in span.get("events", [])
        ],
        "links": [],
        "resource": {"attributes": resource, "schema_url": ""},
    }


def _sdk_document(as_int: bool) -> dict[str, Any]:
    codes = Codes.of("otel")
    spans = []
    for line in (OTEL / "genai_content.otlp.jsonl").read_text().splitlines():
        for block in json.loads(line)["resourceSpans"]:
            resource = {a["key"]: any_value(a["value"], codes, 0) for a in block["resource"]["attributes"]}
            spans += [_sdk_span(s, resource, as_int) for scoped in block["scopeSpans"] for s in scoped["spans"]]
    return {"spans": spans}


@pytest.mark.parametrize("as_int", [False, True], ids=["hex", "integers"])
def test_sdk_span_lists_read_like_their_otlp_export(as_int: bool) -> None:
    otlp = load_file(OTEL / "genai_content.otlp.jsonl")
    raw = json.dumps(_sdk_document(as_int), indent=4).encode()
    assert registry.accepting(raw[:65536], ".json") == ("otel",)
    sdk = _load(raw)
    assert [e.id for e in sdk.episodes] == [e.id for e in otlp.episodes]
    for mine, theirs in zip(sdk.episodes, otlp.episodes, strict=True):
        assert mine.messages == theirs.messages
        # The SDK prints times to the microsecond: started_at and latency differ in the digits.
        assert [(c.name, c.call_id, c.arguments, c.result and c.result.text) for c in mine.calls] == [
            (c.name, c.call_id, c.arguments, c.result and c.result.text) for c in theirs.calls
        ]
        assert len(mine.turns) == len(theirs.turns) and mine.errors == theirs.errors
    one_line = json.dumps(_sdk_document(as_int)).encode() + b"\n"
    assert [e.messages for e in _load(one_line).episodes] == [e.messages for e in sdk.episodes]


def test_other_span_lists_are_not_otel() -> None:
    assert registry.accepting(b'{"spans": [{"id": 1, "trace_id": "x"}]}\n', ".json") == ()
    assert registry.accepting(b'{"spans": []}\n', ".json") == ()


@pytest.mark.parametrize(
    "change",
    [
        {"context": {"trace_id": CANARY, "span_id": "0x1"}},
        {"context": {"trace_id": 1 << 130, "span_id": "0x1"}},
        {"start_time": CANARY},
        {"attributes": [CANARY]},
        {"status": {"status_code": [CANARY]}},
    ],
)
def test_hostile_sdk_spans_are_schema_errors_that_echo_nothing(change: dict[str, Any]) -> None:
    span = {"name": "s", "context": {"trace_id": "0x1", "span_id": "0x2"}, "attributes": {}, **change}
    raw = json.dumps({"spans": [span]}).encode() + b"\n"
    try:
        _load(raw)
    except FormatError as error:
        assert error.finding.code == Code.OTEL_SCHEMA and CANARY not in str(error.finding.as_dict())
    else:
        assert change == {"status": {"status_code": [CANARY]}}  # not an error status: read


def test_sdk_span_lists_are_bounded() -> None:
    span = {"name": "s", "context": {"trace_id": "0x1", "span_id": "0x2"}, "events": [{"name": "e"}] * 50}
    with pytest.raises(FormatError) as caught:
        _load(json.dumps({"spans": [span]}).encode() + b"\n", FormatLimits(items_per_episode=20))
    assert caught.value.finding.code == Code.OTEL_TOO_MANY_ITEMS
