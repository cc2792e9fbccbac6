"""The one spool: per-trace results streamed to an anonymous temporary file as they arrive and
read back in order when the report is written, so a campaign's memory holds only its summary
(audit's reports, metamorphic's cases, check's suite entries; docs/threat-model.md, "Work
budget"). The first :data:`IN_MEMORY` bytes stay in memory: a small run never makes (or
imports the module that makes) a temporary file (docs/performance.md, "Start-up")."""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from typing import IO, Generic, TypeVar

import msgspec

S = TypeVar("S", bound=msgspec.Struct)

IN_MEMORY = 1024 * 1024
"""Bytes a spool keeps in memory before it moves them to an anonymous temporary file."""
PIECE = 64 * 1024
"""Bytes :meth:`Lines.text` reads at a time."""


class Lines:
    """Append-only bytes, in memory up to ``in_memory`` bytes (:data:`IN_MEMORY`) and then in
    an anonymous temporary file, read back in order: lines already encoded elsewhere (a
    worker's), or already the output (audit's table rows: :meth:`text`)."""

    def __init__(self, in_memory: int | None = None) -> None:
        # Closed by close(); a spool lives as long as its command, not one block.
        self._memory: io.BytesIO | None = io.BytesIO()
        self._handle: IO[bytes] = self._memory
        self._in_memory = IN_MEMORY if in_memory is None else in_memory

    def add_bytes(self, data: bytes) -> None:
        """Append ``data`` as it is, whatever was read since."""
        self._handle.seek(0, 2)
        self._write(data)

    def add_line(self, line: bytes) -> None:
        """Spool an item already encoded as :meth:`Spool.add` encodes it (by a worker), without
        its newline."""
        self.add_bytes(line + b"\n")

    def add_lines(self, lines: list[bytes]) -> None:
        """:meth:`add_line` for each of ``lines`` (a worker's batch), in one write."""
        if lines:
            self.add_bytes(b"\n".join(lines) + b"\n")

    def _write(self, data: bytes) -> None:
        """Append ``data`` (the handle is at its end), moving the spool to a temporary file
        once it would pass ``in_memory`` bytes."""
        if self._memory is not None and self._memory.tell() + len(data) > self._in_memory:
            import tempfile

            self._handle = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()
            self._handle.write(self._memory.getvalue())
            self._memory.close()
            self._memory = None
        self._handle.write(data)

    def text(self) -> Iterator[str]:
        """Everything spooled, as UTF-8 text in pieces of about :data:`PIECE` bytes, each ending
        at a newline (so never inside a character)."""
        handle = self.reader()
        handle.seek(0)
        while piece := handle.read(PIECE):
            yield (piece + handle.readline()).decode("utf-8", "surrogatepass")

    def reader(self) -> IO[bytes]:
        """The spool's handle, flushed, for a reader that seeks in it (audit_spool.py)."""
        self._handle.flush()
        return self._handle

    def close(self) -> None:
        self._handle.close()


class Spool(Lines, Generic[S]):
    """Append-only Structs of one type, one msgspec JSON line each, decoded back to that type:
    results stay typed from the worker to the renderer."""

    def __init__(self, kind: type[S]) -> None:
        super().__init__()
        self._encoder = msgspec.json.Encoder()
        self._decoder = msgspec.json.Decoder(kind)

    def add(self, item: S) -> int:
        """Spool ``item`` at the end, whatever was read since; its offset, for :meth:`at`."""
        offset = self._handle.seek(0, 2)
        self._write(self._encoder.encode(item) + b"\n")
        return offset

    def extend(self, items: Iterable[S]) -> None:
        for item in items:
            self.add(item)

    def read(self) -> Iterator[S]:
        """Every item, in the order spooled."""
        self._handle.flush()
        self._handle.seek(0)
        while line := self._handle.readline():
            item = self._decoder.decode(line)
            del line  # not held while the item is used (a file's audit can be tens of MB)
            yield item

    def at(self, offset: int) -> S:
        """The item spooled at ``offset``."""
        self._handle.flush()
        self._handle.seek(offset)
        return self._decoder.decode(self._handle.readline())
