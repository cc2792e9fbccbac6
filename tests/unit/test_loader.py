"""The bounded loader at the real limits: each limit refused while streaming, in order."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest

from tracekit.formats.agentguard.loader import iter_lines
from tracekit.formats.agentguard.verify import verify_bytes, verify_stream
from tracekit.kernel.errors import Code, TracekitError
from tracekit.kernel.limits import DEFAULT_LIMITS, Limits


class CountingStream(io.RawIOBase):
    """An endless (or long) generated stream that records how many bytes were read from it."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks
        self._pending = b""
        self.consumed = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
        while not self._pending:
            self._pending = next(self._chunks, b"")
            if not self._pending:
                return 0
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        self.consumed += n
        return n


def _forever(block: bytes) -> Iterator[bytes]:
    while True:
        yield block


def _codes(data_or_stream: object) -> list[str]:
    if isinstance(data_or_stream, bytes):
        report = verify_bytes(data_or_stream)
    else:
        report = verify_stream(io.BufferedReader(data_or_stream))  # type: ignore[arg-type]
    return [f.code.value for f in report.findings if f.severity.value == "error"]


def test_endless_zero_stream_stops_after_one_line() -> None:
    raw = CountingStream(_forever(b"\0" * 65536))
    assert _codes(raw) == ["load.line_too_long"]
    # at most one line (limit + 1 bytes) plus one buffer of read-ahead
    assert raw.consumed <= DEFAULT_LIMITS.line_bytes + 1 + 1024 * 1024


def test_endless_short_lines_stop_at_the_line_count() -> None:
    header = b"x" * 10 + b"\n"
    lines = CountingStream(_forever(header * 4096))
    found: list[str] = []
    try:
        for _ in iter_lines(io.BufferedReader(lines), DEFAULT_LIMITS):  # type: ignore[arg-type]
            pass
    except TracekitError as error:
        found.append(error.finding.code.value)
    assert found == ["load.too_many_events"]
    assert lines.consumed < 10_002 * 11 + 1024 * 1024


def test_total_limit_is_checked_before_line_limit() -> None:
    line = b"a" * (1024 * 1024 - 1) + b"\n"  # exactly 1 MiB with its terminator: allowed
    stream = CountingStream(_forever(line))
    with pytest.raises(TracekitError) as caught:
        for _ in iter_lines(io.BufferedReader(stream), DEFAULT_LIMITS):  # type: ignore[arg-type]
            pass
    assert caught.value.finding.code is Code.LOAD_TOTAL_TOO_LARGE
    assert stream.consumed <= DEFAULT_LIMITS.total_bytes + DEFAULT_LIMITS.line_bytes + 1024 * 1024


def test_line_limit_counts_the_terminator() -> None:
    limits = Limits(line_bytes=8)
    ok = list(iter_lines(io.BytesIO(b"1234567\n"), limits))  # type: ignore[arg-type]
    assert ok[0].raw == b"1234567"
    with pytest.raises(TracekitError) as caught:
        list(iter_lines(io.BytesIO(b"123456\r\n1\n"), Limits(line_bytes=7)))  # type: ignore[arg-type]
    assert caught.value.finding.code is Code.LOAD_LINE_TOO_LONG


def test_crlf_is_stripped_once_and_flagged() -> None:
    lines = list(iter_lines(io.BytesIO(b"{}\r\n{}\n"), DEFAULT_LIMITS))  # type: ignore[arg-type]
    assert [(line.raw, line.crlf) for line in lines] == [(b"{}", True), (b"{}", False)]


def test_ten_thousand_and_one_events_are_refused_by_count() -> None:
    from gen import base

    from tracekit.formats.agentguard.writer import write_trace

    draft = base.clean_trace(2, "many")
    draft.events[2:2] = [base.command(["true"]) for _ in range(10_001 - len(draft.events))]
    assert len(draft.events) == 10_001
    assert _codes(write_trace(draft)) == ["load.too_many_events"]
    draft.events.pop(2)
    assert _codes(write_trace(draft)) == []


def test_a_line_of_exactly_the_limit_passes_framing_and_one_more_byte_fails() -> None:
    limits = DEFAULT_LIMITS
    body = b"x" * (limits.line_bytes - 1)
    assert [line.raw for line in iter_lines(io.BytesIO(body + b"\n"), limits)] == [body]  # type: ignore[arg-type]
    with pytest.raises(TracekitError) as caught:
        list(iter_lines(io.BytesIO(body + b"xx\n"), limits))  # type: ignore[arg-type]
    assert caught.value.finding.code is Code.LOAD_LINE_TOO_LONG
