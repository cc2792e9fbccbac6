"""Detection over every corpus file: each trace is its own format and no other sniffer accepts
it (docs/formats.md, "Detection")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tracekit.formats import registry
from tracekit.formats.base import SNIFF_BYTES

CORPUS = Path(__file__).resolve().parents[3] / "corpus"
THIRD_PARTY = CORPUS / "third_party"
TOOL_FORMAT = {
    "agentguard": "agentguard",
    "owasp-harness": "harness",
    "inspect": "inspect",
    "otel": "otel",
    "agentdojo": "agentdojo",
    "garak": "garak",
    "claude_code": "claude_code",
    "codex": "codex",
    "atif": "atif",
}


def _is_trace(path: Path) -> bool:
    """A file the tool wrote (not its ground truth, notes, scripts or schemas)."""
    name = path.name
    if name.endswith(".expected.json") or "make" in path.parts or "schemas" in path.parts:
        return False
    if path.parent.name == "owasp-harness":  # observed-results.json, NOTICE
        return False
    return path.suffix in (".json", ".jsonl", ".eval")


def _accepting(path: Path) -> tuple[str, ...]:
    with path.open("rb") as handle:
        return registry.accepting(handle.read(SNIFF_BYTES), path.suffix)


def _files(base: Path) -> list[Path]:
    """Every file of the corpus below ``base``; not the bytecode Python leaves beside the
    corpus's generators (untracked, so a clean clone would test fewer files)."""
    return sorted(p for p in base.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


THIRD_PARTY_TRACES = [p for p in _files(THIRD_PARTY) if _is_trace(p)]


def test_the_corpus_has_every_tool() -> None:
    tools = {p.relative_to(THIRD_PARTY).parts[0] for p in THIRD_PARTY_TRACES}
    assert {"agentguard", "owasp-harness", "inspect", "otel", "agentdojo", "garak"} <= tools


@pytest.mark.parametrize("path", THIRD_PARTY_TRACES, ids=lambda p: str(p.relative_to(CORPUS)))
def test_third_party_trace_is_its_own_format_and_nothing_else(path: Path) -> None:
    fmt = TOOL_FORMAT[path.relative_to(THIRD_PARTY).parts[0]]
    accepted = _accepting(path)
    if fmt in registry.FORMAT_NAMES:
        assert accepted == (fmt,)
    else:  # its importer is not on this branch: at least no other format may claim it
        assert accepted == ()


@pytest.mark.parametrize("path", _files(CORPUS), ids=lambda p: str(p.relative_to(CORPUS)))
def test_no_corpus_file_is_claimed_by_two_formats(path: Path) -> None:
    assert len(_accepting(path)) <= 1


def test_agentguard_corpus_is_agentguard_or_nothing() -> None:
    """Invalid AgentGuard traces may be unrecognisable (an empty file), never another format."""
    paths = [
        p
        for d in ("valid", "invalid", "noncanonical", "replay", "forgery", "audit/agentguard")
        for p in _files(CORPUS / d)
        if p.suffix == ".jsonl"
    ]
    assert len(paths) > 100
    for path in paths:
        assert _accepting(path) in (("agentguard",), ())
    assert all(
        _accepting(p) == ("agentguard",) for p in _files(CORPUS / "valid") if p.suffix == ".jsonl"
    )


def test_harness_corpus_is_harness() -> None:
    paths = [
        p
        for p in _files(CORPUS / "harness")
        if p.suffix == ".json" and p.parent != CORPUS / "harness"
    ]
    paths += [p for p in _files(CORPUS / "audit" / "harness") if p.name != "expected.json"]
    assert len(paths) > 30
    assert all(_accepting(p) == ("harness",) for p in paths)


@pytest.mark.parametrize(
    ("data", "suffix"),
    [
        (b'{"entry_type": "start_run setup", "_config.version": "0.17.1"}\n', ".jsonl"),
        (b'{"entry_type": "attempt", "status": 2, "messages": [], "uuid": "x"}\n', ".jsonl"),
        (b'{"resourceSpans": [{"resource": {}, "scopeSpans": []}]}\n', ".jsonl"),
        (b'{"goal": "x", "prompt": "y", "probe": "p", "detector": "d", "score": 1.0}\n', ".jsonl"),
    ],
)
def test_garak_and_otlp_lines_are_not_agentguard(data: bytes, suffix: str) -> None:
    assert "agentguard" not in registry.accepting(data, suffix)


@pytest.mark.parametrize(
    "data",
    [
        b'{"suite_name": "workspace", "pipeline_name": "m", "messages": [], "error": null}',
        b'{"version": 2, "status": "success", "eval": {"task": "t"}, "samples": '
        b'[{"messages": [], "events": []}]}',
        b'{"id": "s", "epoch": 1, "messages": [{"role": "user", "content": "x"}]}',
    ],
)
def test_inspect_and_agentdojo_documents_are_not_harness(data: bytes) -> None:
    assert "harness" not in registry.accepting(data, ".json")


def test_harness_sniff_reads_its_own_envelope() -> None:
    assert registry.accepting(b'{"events": []}', ".json") == ("harness",)
    assert registry.accepting(b'{"run": 1, "messages": [], "tool_calls": []}', ".json") == (
        "harness",
    )
    assert registry.accepting(b'{"run": 1, "tool_calls": []}', ".json") == ()
    assert registry.accepting(b'{"run": 1, "note": "\\"messages\\": []"}', ".json") == ()


def test_suffix_alone_never_decides() -> None:
    assert registry.detect(b"", ".jsonl") is None
    assert registry.detect(b"not json", ".eval") is None
    assert registry.detect(b"PK\x03\x04" + b"\x00" * 22 + b"\x05\x00\x00\x00other", ".eval") is None


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
_KEYS = st.sampled_from(["type", "payload", "sessionId", "version", "eval", "samples", "resourceSpans",
                         "entry_type", "role", "messages", "schema_version", "trace_id", "event_type"])


@settings(max_examples=300, deadline=None)
@given(first=st.dictionaries(_KEYS, _JSON, max_size=5), suffix=st.sampled_from([".jsonl", ".json", ".eval", ""]))
def test_no_sniffer_raises_on_a_first_line_of_any_json_values(first: dict[str, object], suffix: str) -> None:
    """A sniffer reads a first line anyone wrote: an object where a string is expected (a
    Codex ``type``) was once hashed into a set lookup (TypeError, internal.error)."""
    line = json.dumps(first).encode()
    for prefix in (line, line + b"\n" + line + b"\n"):
        for name in registry.DETECTION_ORDER:
            registry.get(name).sniff(prefix, suffix)
