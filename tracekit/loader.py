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

from tracekit.errors import Code, TracekitError, finding
from tracekit.limits import Limits

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
    total = 0
    max_lines = limits.events + 1
    chunks = _chunks(stream, limits.line_bytes + 1, limits.total_bytes + 1)
    for number, (length, body, ended) in enumerate(chunks, 1):
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


def _chunks(stream: BinaryIO, size: int, cap: int) -> Iterator[tuple[int, bytes, bool]]:
    """Physical lines cut at ``size`` bytes, exactly as ``readline(size)`` returns them, as
    (length with terminator, bytes without the ``\n``, whether it ended in ``\n``).

    A regular file is read in one bounded call (at most ``cap`` bytes, the total limit plus one)
    and cut in memory, which is several times cheaper per line and copies each line once; a pipe
    or terminal is read line by line so that a hostile stream is refused as early as possible.
    Either way the caller sees the same chunks up to the point where the total limit fails.
    """
    if not _is_regular(stream):
        while raw := stream.readline(size):
            ended = raw.endswith(b"\n")
            yield len(raw), raw[:-1] if ended else raw, ended
        return
    data = stream.read(cap)
    end = len(data)
    find = data.find
    pos = 0
    while pos < end:
        newline = find(b"\n", pos, pos + size)
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

    Raises :class:`TracekitError` (``load.unreadable``) when the file cannot be opened or is not a
    regular file, FIFO or character stream: a directory or a socket is never read.
    """
    if str(path) == STDIN:
        yield sys.stdin.buffer
        return
    try:
        handle = open(path, "rb", buffering=1024 * 1024)  # noqa: SIM115
    except OSError:
        raise TracekitError(finding(Code.LOAD_UNREADABLE)) from None
    try:
        try:
            mode = os.fstat(handle.fileno()).st_mode
        except OSError:
            raise TracekitError(finding(Code.LOAD_UNREADABLE)) from None
        import stat

        if stat.S_ISDIR(mode) or stat.S_ISSOCK(mode):
            raise TracekitError(finding(Code.LOAD_UNREADABLE))
        yield handle
    finally:
        handle.close()
