"""The registry and the reading edge (docs/formats.md, "Detection" and "Reading a file")."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest

from tracekit.formats import registry
from tracekit.formats.base import FormatError, FormatLimits, Source
from tracekit.formats.reading import load_file, open_source
from tracekit.kernel.errors import Code, Severity

CORPUS = Path(__file__).resolve().parents[3] / "corpus"
CANARY = "CANARY-registry-q8Zt"


def test_every_registered_format_loads_and_names_itself() -> None:
    for name in registry.FORMAT_NAMES:
        fmt = registry.get(name)
        assert fmt.name == name


def test_unknown_file_names_the_supported_formats(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"' + CANARY + '": 1}')
    with pytest.raises(FormatError) as raised:
        load_file(path)
    found = raised.value.finding
    assert found.code is Code.FORMAT_UNKNOWN and found.severity is Severity.ERROR
    for name in registry.FORMAT_NAMES:
        assert name in found.message
    assert CANARY not in found.message and str(tmp_path) not in found.message


def test_unknown_input_format_name() -> None:
    with pytest.raises(FormatError) as raised:
        load_file(CORPUS / "valid" / "v1__minimal_run.jsonl", input_format=CANARY)
    assert raised.value.finding.code is Code.FORMAT_UNKNOWN_NAME
    assert CANARY not in raised.value.finding.message


def test_input_format_overrides_detection_and_reports_that_format_s_error() -> None:
    path = CORPUS / "valid" / "v1__minimal_run.jsonl"
    assert load_file(path).format == "agentguard"
    with pytest.raises(FormatError) as raised:
        load_file(path, input_format="inspect")
    assert raised.value.finding.code.value.startswith("inspect.")
    with pytest.raises(FormatError) as raised:
        load_file(path, input_format="harness")
    assert raised.value.finding.code.value.startswith(("harness.", "json."))


def test_envelope_match_with_a_broken_schema_gets_the_format_s_own_error() -> None:
    with pytest.raises(FormatError) as raised:
        load_file(CORPUS / "hostile" / "harness" / "trace__events_not_list.json")
    assert raised.value.finding.code is Code.HARNESS_TRACE_INVALID
    with pytest.raises(FormatError) as raised:
        load_file(CORPUS / "invalid" / "chain__tampered_payload.jsonl")
    assert raised.value.finding.code.value.startswith("chain.")


def test_directories_and_missing_files_are_unreadable(tmp_path: Path) -> None:
    for path in (tmp_path, tmp_path / "missing.json"):
        with pytest.raises(FormatError) as raised:
            load_file(path)
        assert raised.value.finding.code is Code.FORMAT_UNREADABLE


def test_an_empty_file_is_format_empty_whatever_the_forced_format(tmp_path: Path) -> None:
    """docs/cli.md, "One code per mistake": decided at the open, before any reader."""
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    for forced in (None, "otel", "agentdojo", "harness"):
        with pytest.raises(FormatError) as raised:
            load_file(empty, forced)
        assert raised.value.finding.code is Code.FORMAT_EMPTY


def test_fifo_is_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    fd = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # a writer exists, so open() does not block
    try:
        with pytest.raises(FormatError) as raised:
            load_file(fifo)
        assert raised.value.finding.code is Code.FORMAT_UNREADABLE
    finally:
        os.close(fd)


def test_total_size_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b'{"events": []}' + b" " * 100)
    with pytest.raises(FormatError) as raised:
        load_file(path, limits=FormatLimits(total_bytes=50))
    assert raised.value.finding.code is Code.FORMAT_TOO_LARGE


class _Stdin:
    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)


def test_stdin_is_spooled_and_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    data = (CORPUS / "audit" / "harness" / "complete.json").read_bytes()
    monkeypatch.setattr(sys, "stdin", _Stdin(data))
    with open_source("-") as source:
        assert source.size == len(data) and source.name_suffix == ""
        assert registry.load(source).format == "harness"
    monkeypatch.setattr(sys, "stdin", _Stdin(data))
    with pytest.raises(FormatError) as raised:
        load_file("-", limits=FormatLimits(total_bytes=10))
    assert raised.value.finding.code is Code.FORMAT_TOO_LARGE


def test_registry_load_checks_the_declared_size() -> None:
    with pytest.raises(FormatError) as raised:
        registry.load(Source(io.BytesIO(b"{}"), 10**12, ".json"))
    assert raised.value.finding.code is Code.FORMAT_TOO_LARGE
