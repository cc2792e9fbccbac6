"""Bounded streaming reader: bytes in, physical lines out, every limit checked as bytes arrive.

docs/trace-format.md step 1. A stream is read with ``readline(limit+1)``, so an oversized line is
rejected having read at most ``line_bytes + 1`` bytes of it; a regular file is read with one
bounded ``read(total_bytes + 1)`` and cut the same way in memory. The total is checked before the
per-line limit, so hostile input is refused after reading at most ``total_bytes`` plus one line.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

import msgspec

from tracekit.kernel.errors import Code, TracekitError, finding
from tracekit.kernel.limits import Limits

STDIN = "-"


class RawLine(msgspec.Struct, frozen=True):
    """One physical line without its terminator (a Struct: built in C, once per line)."""

    number: int
    offset: int
    raw: bytes
    crlf: bool


def iter_lines(stream: BinaryIO, limits: Limits) -> Iterator[RawLine]:
    """Yield the lines of ``stream``; raise :class:`TracekitError` at the first broken limit.

    Order per line (step 1.1-1.6): total bytes, line count, line length, final newline, then the
    terminator is stripped (``\\n`` and one optional ``\\r``) and an empty line is refused.
    """
    return read_lines(stream, limits)[1]


def read_lines(stream: BinaryIO, limits: Limits) -> tuple[int | None, Iterator[RawLine]]:
    """:func:`iter_lines`, with the size of a regular file (read whole); None for a stream."""
    data = read_regular(stream, limits)
    if data is not None:
        return len(data), iter_buffer(data, limits)
    return None, _framed(_stream_chunks(stream, limits.line_bytes + 1), limits, 1, 0)


def read_regular(stream: BinaryIO, limits: Limits) -> bytes | None:
    """The whole of a regular file, in one bounded read (at most the total limit plus one byte),
    or None for a pipe or terminal, which must be read line by line (:func:`iter_lines`).

    A regular file read at once is cut in memory (:func:`iter_buffer`), several times cheaper
    per line than ``readline``, and each line is copied once.
    """
    if not _is_regular(stream):
        return None
    return stream.read(limits.total_bytes + 1)


def iter_buffer(
    data: bytes, limits: Limits, start: int = 0, stop: int | None = None, number: int = 1
) -> Iterator[RawLine]:
    """The lines of ``data[start:stop]`` exactly as :func:`iter_lines` yields them from a stream
    holding ``data``, numbered from ``number``, every limit checked as if the stream had been
    read from its first byte (the total counts the ``start`` bytes before).

    ``start`` must be the first byte of a line (0, or just after a ``\\n``): the parallel
    verifier cuts a trace into byte ranges at line boundaries and frames each range here.
    """
    end = len(data) if stop is None else stop
    return _framed(_buffer_chunks(data, start, end, limits.line_bytes + 1), limits, number, start)


def _framed(
    chunks: Iterator[tuple[int, bytes, bool]], limits: Limits, first: int, total: int
) -> Iterator[RawLine]:
    max_lines = limits.events + 1
    for number, (length, body, ended) in enumerate(chunks, first):
        offset = total
        total += length
        if total > limits.total_bytes:
            raise TracekitError(finding(Code.LOAD_TOTAL_TOO_LARGE, number, limit=limits.total_bytes))
        if number > max_lines:
            raise TracekitError(finding(Code.LOAD_TOO_MANY_EVENTS, number, limit=limits.events))
        if length > limits.line_bytes:
            raise TracekitError(finding(Code.LOAD_LINE_TOO_LONG, number, limit=limits.line_bytes))
        if not ended:
            raise TracekitError(finding(Code.LOAD_MISSING_FINAL_NEWLINE, number))
        crlf = body.endswith(b"\r")
        if crlf:
            body = body[:-1]
        if not body:
            raise TracekitError(finding(Code.LOAD_EMPTY_LINE, number))
        if number == 1 and body.startswith(b"\xef\xbb\xbf"):
            raise TracekitError(finding(Code.LOAD_BOM, number))
        yield RawLine(number, offset, body, crlf)


def _stream_chunks(stream: BinaryIO, size: int) -> Iterator[tuple[int, bytes, bool]]:
    """Physical lines cut at ``size`` bytes by ``readline(size)``, as (length with terminator,
    bytes without the ``\\n``, whether it ended in ``\\n``): a pipe or terminal is read line by
    line so that a hostile stream is refused as early as possible."""
    while raw := stream.readline(size):
        ended = raw.endswith(b"\n")
        yield len(raw), raw[:-1] if ended else raw, ended


def _buffer_chunks(data: bytes, pos: int, end: int, size: int) -> Iterator[tuple[int, bytes, bool]]:
    """The same chunks cut from ``data[pos:end]`` in memory, exactly as ``readline(size)`` would
    return them from a stream positioned at ``pos`` that ends at ``end``."""
    find = data.find
    while pos < end:
        newline = find(b"\n", pos, min(pos + size, end))
        if newline >= 0:
            yield newline + 1 - pos, data[pos:newline], True
            pos = newline + 1
        else:
            stop = min(pos + size, end)
            yield stop - pos, data[pos:stop], False
            pos = stop


def _is_regular(stream: BinaryIO) -> bool:
    import stat

    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (AttributeError, OSError, ValueError):
        return False


@contextmanager
def open_trace(path: str | Path) -> Iterator[BinaryIO]:
    """Open a trace for bounded reading; ``-`` is standard input.

    Raises :class:`TracekitError` (``format.unreadable``) when the file cannot be opened or is not a
    regular file, FIFO or character stream: a directory or a socket is never read.
    """
    if str(path) == STDIN:
        yield sys.stdin.buffer
        return
    try:
        handle = open(path, "rb", buffering=1024 * 1024)  # noqa: SIM115
    except OSError:
        raise TracekitError(finding(Code.FORMAT_UNREADABLE)) from None
    try:
        try:
            mode = os.fstat(handle.fileno()).st_mode
        except OSError:
            raise TracekitError(finding(Code.FORMAT_UNREADABLE)) from None
        import stat

        if stat.S_ISDIR(mode) or stat.S_ISSOCK(mode):
            raise TracekitError(finding(Code.FORMAT_UNREADABLE))
        yield handle
    finally:
        handle.close()
