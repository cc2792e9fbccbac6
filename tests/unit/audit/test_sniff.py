"""Format detection from the first bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import CORPUS, FIXTURE
from tracekit.audit.sniff import SNIFF_BYTES, sniff

HARNESS = CORPUS / "third_party" / "owasp-harness"


@pytest.mark.parametrize(
    ("prefix", "name", "fmt", "basis"),
    [
        (b'{"messages": []}', "t.json", "harness", "first_key"),
        (b'\n  {\n  "tool_calls" : [', "t.json", "harness", "first_key"),
        (b'{"events":[{"type":"goal"}]}', "", "harness", "first_key"),
        (b'{"meta": {"a": 1}, "events": [', "t.json", "harness", "harness_keys"),
        (
            b'{"agent_adapter":"x","record_type":"header","schema":"agentguard.execution-trace"}\n{',
            "t.json",
            "agentguard",
            "header_line",
        ),
        (b'\xef\xbb\xbf{"record_type": "header"}\n', "t", "agentguard", "header_line"),
        (b'{"schema":"agentguard.execution-trace"', "t", "agentguard", "header_line"),
        (b'{"pairs": [], "about": "results"}', "observed.json", "unknown", "none"),
        (b'{"properties": {"events": {"type": "array"}}}', "s.json", "unknown", "none"),
        (b"", "empty.jsonl", "agentguard", "file_name"),
        (b"\xff\xfe garbage", "x.JSONL", "agentguard", "file_name"),
        (b"not json at all", "notes.txt", "unknown", "none"),
        (b"[1, 2, 3]", "list.json", "unknown", "none"),
    ],
)
def test_sniff(prefix: bytes, name: str, fmt: str, basis: str) -> None:
    found = sniff(prefix, name)
    assert (found.format, found.basis) == (fmt, basis)


def test_a_harness_value_mentioning_the_header_is_still_harness() -> None:
    prefix = b'{"messages": [{"role": "user", "content": "{\\"record_type\\":\\"header\\"}"}]}'
    assert sniff(prefix).format == "harness"


def test_only_the_prefix_is_looked_at() -> None:
    late = b'{"x": "' + b"a" * SNIFF_BYTES + b'", "events": []}'
    assert sniff(late, "late.json").format == "unknown"


def test_every_corpus_trace_sniffs_as_its_format() -> None:
    agentguard = [*CORPUS.glob("valid/*.jsonl"), *CORPUS.glob("invalid/*.jsonl"), FIXTURE]
    for path in agentguard:
        assert sniff(path.read_bytes()[:SNIFF_BYTES], path.name).format == "agentguard", path
    harness = [
        *HARNESS.glob("examples/**/*.json"),
        *HARNESS.glob("docs/**/*.json"),
        *CORPUS.glob("audit/harness/*.json"),
    ]
    harness = [p for p in harness if p.name != "expected.json"]
    assert len(harness) > 30
    for path in harness:
        assert sniff(path.read_bytes()[:SNIFF_BYTES], path.name).format == "harness", path
    for path in [
        HARNESS / "observed-results.json",
        *HARNESS.glob("schemas/*.json"),
        *CORPUS.glob("**/expected.json"),
    ]:
        assert sniff(Path(path).read_bytes()[:SNIFF_BYTES], path.name).format == "unknown", path
