"""How every command that reads a trace opens it and decides its format (docs/formats.md, "Using
it from the command line").

One rule for verify, show, replayability, replay and audit:

1. ``--input-format NAME`` decides the format. The first bytes are still sniffed, and a file
   they show to be of another format carries ``format.forced_other`` (a warning): what that
   format records beyond the forced one was not read.
2. Otherwise the first bytes decide, through ``tracekit.formats.registry.detect`` (structure, never
   the name alone). A regular file is read from its start again afterwards; standard input and a
   FIFO named on the command line are read once, their first bytes put back in front of the rest.
3. A file no format accepts is ``format.unknown`` (exit 2), naming the supported formats. When it
   was found by walking a folder and its name ends in ``.json`` it is skipped instead (a results
   file or a manifest kept next to the traces), and counted; a ``.jsonl`` or ``.eval`` file no
   format accepts is always reported, so a damaged trace never vanishes from a campaign.
4. A sealed bundle (``.tkb``) is no trace: ``cli.bundle_input`` points to the bundle commands.

AgentGuard traces go to the verifier (it streams them, and its codes are AgentGuard's); every
other format is loaded through its importer from a seekable :class:`Source`: the file itself, or
standard input spooled into a bounded temporary file.
"""

from __future__ import annotations

import io
import os
import stat
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, TypeVar

import msgspec

from tracekit.formats.base import (
    DEFAULT_FORMAT_LIMITS,
    SNIFF_BYTES,
    EpisodeStream,
    FormatError,
    FormatLimits,
    Source,
)
from tracekit.formats.reading import read_upto, spooled
from tracekit.kernel.errors import Code, Finding, TracekitError, finding

if TYPE_CHECKING:
    from tracekit.formats.agentguard.verify import VerifyOptions, VerifyReport

STDIN = "-"
T = TypeVar("T")
SKIPPABLE_UNKNOWN = (".json",)
"""Suffixes of walked files that are skipped, not reported, when no format accepts them (rule 3)."""


class _Prefixed(io.RawIOBase):
    """A stream's first bytes, already read, followed by the rest of the stream."""

    def __init__(self, prefix: bytes, rest: BinaryIO) -> None:
        self._prefix = memoryview(prefix)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if self._prefix.nbytes:
            n = min(len(buffer), self._prefix.nbytes)
            buffer[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
            return n
        data = self._rest.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


class Opened(msgspec.Struct, frozen=True):
    """An input, opened once, with the format it holds (None: no format accepts it)."""

    format: str | None
    stream: BinaryIO
    """Positioned at the first byte."""
    regular: bool
    """A regular file (seekable, sized); else standard input or a FIFO, readable once."""
    size: int
    detected: str | None = None
    """The format the first bytes show (with ``--input-format``, possibly another)."""

    def forced_loss(self) -> Finding | None:
        """``format.forced_other`` when ``--input-format`` read the file as a format other than
        the one its first bytes show (rule 1; docs/cli.md, "Inputs and folders")."""
        if self.detected is None or self.format is None or self.detected == self.format:
            return None
        return finding(Code.FORMAT_FORCED_OTHER, detected=self.detected)


@contextmanager
def opened(path: str, input_format: str | None = None) -> Iterator[Opened]:
    """Open ``path`` (``-``: standard input) and decide its format (rules 1-2).

    Raises :class:`TracekitError` ``format.unreadable`` for a file that is missing or cannot be
    opened, a folder or a socket, and ``format.empty`` for an input of no bytes: the one code of
    each mistake in every command (docs/cli.md, "One code per mistake")."""
    from tracekit.formats import registry

    handle: BinaryIO | None = None
    try:
        if path == STDIN:
            raw: BinaryIO = sys.stdin.buffer
            regular, size = False, 0
        else:
            try:
                handle = open(path, "rb")  # noqa: SIM115 - closed below
                mode = os.fstat(handle.fileno()).st_mode
            except OSError:
                raise TracekitError(finding(Code.FORMAT_UNREADABLE)) from None
            if stat.S_ISDIR(mode) or stat.S_ISSOCK(mode):
                raise TracekitError(finding(Code.FORMAT_UNREADABLE))
            raw, regular = handle, stat.S_ISREG(mode)
            size = os.fstat(handle.fileno()).st_size if regular else 0
        try:
            prefix = read_upto(raw, SNIFF_BYTES)
        except OSError:
            raise TracekitError(finding(Code.FORMAT_UNREADABLE)) from None
        if not prefix:
            raise TracekitError(finding(Code.FORMAT_EMPTY))
        if regular:
            raw.seek(0)
            stream = raw
        else:
            stream = io.BufferedReader(_Prefixed(prefix, raw))
        found = registry.detect(prefix, "" if path == STDIN else Path(path).suffix)
        detected = None if found is None else found.name
        name = input_format if input_format is not None else detected
        if name is None and _sealed(prefix):
            raise TracekitError(finding(Code.CLI_BUNDLE_INPUT))
        yield Opened(name, stream, regular, size, detected)
    finally:
        if handle is not None:
            handle.close()


def _sealed(prefix: bytes) -> bool:
    """The first bytes are a sealed bundle's (rule 4): pointed to the bundle commands."""
    from tracekit.bundle.magic import MAGIC

    return prefix.startswith(MAGIC)


def read_whole(source: Opened, limit: int, too_large: Code) -> bytes:
    """Every byte of an opened input, at most ``limit`` of them: a regular file whose size is
    over the limit is refused before any byte is read, a stream once it passes the limit
    (``too_large``, filled with the limit). The one whole-file read of every command that
    parses a trace in memory (harness traces: audit, check)."""
    if source.regular and source.size > limit:
        raise TracekitError(finding(too_large, limit=limit))
    try:
        data = read_upto(source.stream, limit + 1)
    except OSError:
        raise TracekitError(finding(Code.FORMAT_UNREADABLE)) from None
    if len(data) > limit:
        raise TracekitError(finding(too_large, limit=limit))
    return data


def unknown() -> FormatError:
    """``format.unknown``, naming the supported formats (rule 3)."""
    from tracekit.formats import registry

    return FormatError(finding(Code.FORMAT_UNKNOWN, formats=registry.supported()))


def skipped(path: str, named: bool) -> bool:
    """Rule 3: a walked ``.json`` file no format accepts is not a trace; skip it."""
    return not named and path.lower().endswith(SKIPPABLE_UNKNOWN)


def consume_evidence(
    path: str, source: Opened, use: Callable[[EpisodeStream], T], limits: FormatLimits = DEFAULT_FORMAT_LIMITS
) -> T:
    """What ``use`` makes of an opened input's episodes, handed over one at a time as its
    importer reads them (docs/formats.md, "Streaming episodes"); raises :class:`FormatError`
    with the format's code (``format.unknown`` when none accepts it), a broken file's from
    inside the stream."""
    from tracekit.formats import registry
    from tracekit.formats.agentdojo import path_context

    if source.format is None:
        raise unknown()
    fmt = registry.get(source.format)
    if source.regular:
        if source.size > limits.total_bytes:
            raise FormatError(finding(Code.FORMAT_TOO_LARGE, limit=limits.total_bytes))
        context = () if path == STDIN else path_context(Path(path).parts)
        opened_source = Source(source.stream, source.size, Path(path).suffix.lower(), context)
        return use(registry.stream_as(fmt, opened_source, limits))
    with spooled(source.stream, limits) as copy:
        return use(registry.stream_as(fmt, copy, limits))


def verify_opened(path: str, source: Opened, options: VerifyOptions, jobs: int = 1) -> VerifyReport:
    """Verify an opened AgentGuard trace: a regular file by its path (the fast reader; with
    ``jobs`` > 1 on several cores, docs/performance.md), standard input or a FIFO as the stream
    already opened. The report names ``path``."""
    from tracekit.formats.agentguard.verify import verify_file, verify_stream

    if source.regular and jobs > 1:
        from tracekit.formats.agentguard import verify_parallel

        return verify_parallel.verify_file(path, options, jobs=jobs)
    if source.regular:
        return verify_file(path, options)
    trace_dir = None if path == STDIN else Path(path).resolve().parent
    report = verify_stream(source.stream, options, trace_dir)
    report.path = path
    return report
