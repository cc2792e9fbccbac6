"""The format layer's one file-reading edge (docs/formats.md, "Reading a file").

Opens a regular file (or spools standard input into a bounded temporary file), hands a
:class:`~tracekit.formats.base.Source` to the registry, and closes it. Nothing else in
``tracekit.formats`` touches the filesystem; no path is ever put in a diagnostic.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, TypeVar

from tracekit.formats import registry
from tracekit.formats.base import (
    DEFAULT_FORMAT_LIMITS,
    EpisodeStream,
    FormatError,
    FormatLimits,
    Source,
)
from tracekit.kernel.errors import Code, finding
from tracekit.kernel.evidence import EvidenceFile

STDIN = "-"
_CHUNK = 1024 * 1024
T = TypeVar("T")


def _suffix(path: str | Path) -> str:
    return Path(path).suffix.lower() if str(path) != STDIN else ""


@contextmanager
def open_source(path: str | Path, limits: FormatLimits = DEFAULT_FORMAT_LIMITS) -> Iterator[Source]:
    """A :class:`Source` for ``path``: a regular file opened read-only, or ``-`` (standard
    input) copied into an anonymous temporary file of at most ``limits.total_bytes`` bytes so
    that importers can seek (a .eval archive's directory is at its end).

    Raises :class:`FormatError`: ``format.unreadable`` for a file that is missing, cannot be
    opened or is not a regular file (a directory, FIFO, socket or device is never read),
    ``format.empty`` for an input of no bytes, ``format.too_large`` for input beyond the total
    limit (docs/cli.md, "One code per mistake").
    """
    from tracekit.formats.agentdojo import path_context  # an importer's: off verify's start-up

    if str(path) == STDIN:
        with spooled(sys.stdin.buffer, limits) as copy:
            if copy.size == 0:
                raise FormatError(finding(Code.FORMAT_EMPTY))
            yield copy
        return
    handle, info = _open(path)
    try:
        if not stat.S_ISREG(info.st_mode):
            raise FormatError(finding(Code.FORMAT_UNREADABLE))
        if info.st_size > limits.total_bytes:
            raise FormatError(finding(Code.FORMAT_TOO_LARGE, limit=limits.total_bytes))
        if info.st_size == 0:
            raise FormatError(finding(Code.FORMAT_EMPTY))
        yield Source(handle, info.st_size, _suffix(path), path_context(Path(path).parts))
    finally:
        handle.close()


def _open(path: str | Path) -> tuple[BinaryIO, os.stat_result]:
    """``path`` opened read-only, with its status; ``format.unreadable`` when it cannot be."""
    try:
        handle = open(path, "rb")  # noqa: SIM115 - the caller closes it
    except OSError:
        raise FormatError(finding(Code.FORMAT_UNREADABLE)) from None
    try:
        return handle, os.fstat(handle.fileno())
    except OSError:
        handle.close()
        raise FormatError(finding(Code.FORMAT_UNREADABLE)) from None


def read_capped(path: str | Path, cap: int) -> bytes:
    """The whole of ``path`` (``-``: standard input) as bytes, for a reader that needs a document
    at once (a harness scenario or trace, docs/harness.md "Loading a trace"). At most ``cap + 1``
    bytes are ever read, so an endless or oversized input is refused without being buffered
    whole. A FIFO or character device named by the user is read as a stream (process
    substitution, ``/dev/stdin``); a folder or socket never is.

    Raises :class:`FormatError`: ``format.unreadable`` for what is missing or cannot be opened or
    read, ``format.empty`` for no bytes at all, ``format.too_large`` (``limit`` = ``cap``) beyond
    ``cap`` bytes."""
    too_large = FormatError(finding(Code.FORMAT_TOO_LARGE, limit=cap))
    if str(path) == STDIN:
        data = read_upto(sys.stdin.buffer, cap + 1)
    else:
        handle, info = _open(path)
        with handle:
            if stat.S_ISDIR(info.st_mode) or stat.S_ISSOCK(info.st_mode):
                raise FormatError(finding(Code.FORMAT_UNREADABLE))
            if stat.S_ISREG(info.st_mode) and info.st_size > cap:
                raise too_large
            try:
                data = read_upto(handle, cap + 1)
            except OSError:
                raise FormatError(finding(Code.FORMAT_UNREADABLE)) from None
    if len(data) > cap:
        raise too_large
    if not data:
        raise FormatError(finding(Code.FORMAT_EMPTY))
    return data


def read_upto(stream: BinaryIO, most: int) -> bytes:
    """At most ``most`` bytes of ``stream``, read in chunks: a small file never costs a buffer
    of ``most`` bytes (``read(n)`` allocates ``n`` before it knows the size)."""
    parts: list[bytes] = []
    size = 0
    while size < most and (chunk := stream.read(min(_CHUNK, most - size))):
        parts.append(chunk)
        size += len(chunk)
    return b"".join(parts)


@contextmanager
def spooled(stream: BinaryIO, limits: FormatLimits) -> Iterator[Source]:
    """``stream`` (standard input, a FIFO: read once, not seekable) copied into a temporary
    file that importers can seek in, refused once it passes the total limit."""
    import tempfile  # standard input only: off the start-up of a file's verify

    with tempfile.TemporaryFile() as spool:
        size = 0
        while chunk := stream.read(_CHUNK):
            size += len(chunk)
            if size > limits.total_bytes:
                raise FormatError(finding(Code.FORMAT_TOO_LARGE, limit=limits.total_bytes))
            spool.write(chunk)
        spool.seek(0)
        yield Source(spool, size, "")


def load_file(
    path: str | Path,
    input_format: str | None = None,
    limits: FormatLimits = DEFAULT_FORMAT_LIMITS,
) -> EvidenceFile:
    """The evidence in the file at ``path`` (``-`` for standard input), detected by structure
    unless ``input_format`` names the format; raises :class:`FormatError`."""
    with open_source(path, limits) as source:
        return registry.load(source, input_format, limits)


def consume_file(
    path: str | Path,
    use: Callable[[EpisodeStream], T],
    input_format: str | None = None,
    limits: FormatLimits = DEFAULT_FORMAT_LIMITS,
) -> T:
    """What ``use`` makes of the file's episodes, handed over one at a time as they are read
    (docs/formats.md, "Streaming episodes"): the file stays open while ``use`` runs. Detection
    and errors as :func:`load_file`; a broken file's :class:`FormatError` reaches ``use``'s
    caller from inside the stream."""
    with open_source(path, limits) as source:
        fmt = registry.detected(source, input_format, limits)
        return use(registry.stream_as(fmt, source, limits))
