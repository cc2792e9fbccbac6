"""audit's spool: each file's report without its episodes, then its episodes one line each,
never one file's episodes held at once (docs/threat-model.md, "The Inspect archive reader").

A worker encodes each episode's audit as it is made (:class:`EpisodeLines`), in the order the
episodes come; once the file's stream ends it puts them in the file's order and sends back a
block: the head line (:class:`SpooledAudit`) followed by the episode lines, or, past
:data:`INLINE` bytes a batch, only the head, naming a file of the run's private folder
(:class:`SpillFolder`) that holds the lines. The parent spools the blocks in input order
(:class:`AuditSpool`) and the renderer reads each file's episodes back one at a time, as it
writes them.
"""

from __future__ import annotations

import io
import os
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import IO, TYPE_CHECKING, cast, overload

import msgspec

from tracekit.cli.spool import IN_MEMORY, Spool
from tracekit.judging.audit.model import AuditFinding, AuditReport, EpisodeAudit, FieldStatus

if TYPE_CHECKING:
    from tracekit.kernel.executors import Executor

INLINE = 1024 * 1024
"""Bytes of episode lines a worker's batch sends back inline; a file whose lines would pass
what is left of it is spilled to the run's folder (or, when the worker cannot see that
folder, sent back inline all the same)."""


class SpooledAudit(msgspec.Struct, frozen=True):
    """A file's audit in the spool: the report without its episodes, their count, where their
    lines are (the ``size`` bytes after this line, or the file ``spill``), and the table of
    pairs the lines name (:class:`EpisodeCodec`)."""

    report: AuditReport
    episodes: int
    size: int = 0
    spill: str | None = None
    pairs: tuple[msgspec.Raw, ...] = ()


@dataclass
class SpillFolder:
    """The run's private folder for the episode lines of large files. Made by the parent: up
    front (:meth:`make`) when workers run elsewhere, else on first use, in-process (a small run
    never makes one); removed with everything in it when the command ends (:meth:`remove`)."""

    path: str | None = None
    owner: int = field(default_factory=os.getpid)

    @classmethod
    def for_run(cls, chosen: Executor) -> SpillFolder:
        """The folder of a run on ``chosen``: made now when workers run in other processes
        (they spill into it before the parent sees any result), else on first use."""
        from tracekit.kernel.executors.local import LocalExecutor

        folder = cls()
        if not (isinstance(chosen, LocalExecutor) and chosen.jobs <= 1):
            folder.make()
        return folder

    def make(self) -> None:
        if self.path is None:
            import tempfile

            self.path = tempfile.mkdtemp(prefix="tracekit-audit-")

    def get(self) -> str | None:
        """The folder, made here when this is the parent; None for a worker that cannot see
        it (a Dask worker on another machine without that folder)."""
        if self.path is None and os.getpid() == self.owner:
            self.make()
        return self.path if self.path is not None and os.path.isdir(self.path) else None

    def holds(self, name: str) -> bool:
        """Whether ``name`` (a spill a worker named) is a file directly inside the folder."""
        return self.path is not None and os.path.dirname(name) == self.path

    def remove(self) -> None:
        if self.path is not None and os.getpid() == self.owner:
            import shutil

            shutil.rmtree(self.path, ignore_errors=True)
            self.path = None


KEPT_PAIRS = 1024
"""Distinct (completeness, findings) pairs an :class:`EpisodeCodec` keeps the text or the value
of (then it starts again): the spool's memory stays bounded whatever the episodes hold."""
TABLE_BYTES = 256 * 1024
"""A file's table of pairs, at most: past it, a new pair's text is written in its line."""
Pair = tuple[tuple[FieldStatus, ...], tuple[AuditFinding, ...]]
_ENCODE = msgspec.json.Encoder().encode
_DECODE_ID = msgspec.json.Decoder(str).decode
_DECODE_PAIR = msgspec.json.Decoder(Pair).decode


class EpisodeCodec:
    """An episode audit's spool line: its ``id`` in JSON, a tab, then its (completeness,
    findings) pair as the number of the pair in the file's table (:attr:`table`, which travels
    in the file's head: :class:`SpooledAudit`), or, once the table holds :data:`TABLE_BYTES`,
    the pair's JSON itself (JSON text never holds a raw tab; a pair starts with ``[``); a
    newline. A file's episodes repeat a few pairs, each the same objects
    (judging/audit/imported.py makes each distinct one once), so a pair is encoded once on the
    way in (by identity: the objects are held, so no other can take their ids) and decoded once
    on the way out, and the reader hands back the same objects for every episode sharing it."""

    def __init__(self, table: Sequence[bytes | msgspec.Raw] = ()) -> None:
        self._encode, self._decode_id, self._decode_pair = _ENCODE, _DECODE_ID, _DECODE_PAIR
        self.table: list[bytes | msgspec.Raw] = list(table)
        """The pairs' texts: the writer's, as it made them; the reader's, from the head."""
        self._table_bytes = 0
        self._texts: dict[tuple[int, int], tuple[Pair, bytes]] = {}
        self._pairs: dict[bytes, Pair] = {}

    def line(self, audit: EpisodeAudit) -> bytes:
        """The line of ``audit``."""
        key = (id(audit.completeness), id(audit.findings))
        kept = self._texts.get(key)
        if kept is None:
            if len(self._texts) >= KEPT_PAIRS:
                self._texts.clear()
            pair = (audit.completeness, audit.findings)
            text = self._encode(pair)
            if self._table_bytes + len(text) <= TABLE_BYTES:
                self.table.append(text)
                self._table_bytes += len(text)
                text = b"%d" % (len(self.table) - 1)
            kept = self._texts[key] = (pair, text)
        return b"%b\t%b\n" % (self._encode(audit.id), kept[1])

    def episode(self, line: bytes) -> EpisodeAudit:
        """The episode audit a :meth:`line` wrote (with or without its newline)."""
        ident, _, part = line.rstrip(b"\n").partition(b"\t")
        pair = self._pairs.get(part)
        if pair is None:
            if len(self._pairs) >= KEPT_PAIRS:
                self._pairs.clear()
            text = part if part[:1] == b"[" else self.table[int(part)]
            pair = self._pairs[part] = self._decode_pair(text)
        return EpisodeAudit(self._decode_id(ident), pair[0], pair[1])


class EpisodeCount:
    """An episode sink that only counts (:func:`~tracekit.cli.audit_io.audit_batch` when the
    campaign's table is all that is printed: a row shows a file's count of episodes)."""

    def __init__(self) -> None:
        self._count = 0

    def add(self, audit: object) -> None:
        self._count += 1

    def __len__(self) -> int:
        return self._count

    def discard(self) -> None:
        """Nothing held: as :meth:`EpisodeLines.discard`."""


class EpisodeLines:
    """One file's episode audits (or the store's rows of them: cli/store_io.py), each encoded as
    it is made and appended (in memory up to :data:`~tracekit.cli.spool.IN_MEMORY` bytes, then
    in a file of ``folder``, or an anonymous one without it); only each line's offset is kept."""

    def __init__(self, folder: SpillFolder) -> None:
        self._folder = folder
        self._handle: IO[bytes] = io.BytesIO()
        self._name: str | None = None
        self._offsets = array("q")
        self.size = 0
        self._encode = _ENCODE
        self._codec = EpisodeCodec()

    @property
    def pairs(self) -> tuple[msgspec.Raw, ...]:
        """The table of pairs the lines name, for the file's head."""
        return tuple(msgspec.Raw(text) for text in self._codec.table)

    def reader(self) -> EpisodeCodec:
        """A codec that reads these lines back (:meth:`lines`)."""
        return EpisodeCodec(self._codec.table)

    def add(self, audit: object) -> None:
        """Append ``audit``: an episode audit as :class:`EpisodeCodec` writes it, anything else
        (the store's rows of them) as one line of JSON."""
        line = self._codec.line(audit) if isinstance(audit, EpisodeAudit) else self._encode(audit) + b"\n"
        self._offsets.append(self.size)
        if self._name is None and isinstance(self._handle, io.BytesIO) and self.size + len(line) > IN_MEMORY:
            self._to_file()
        self._handle.write(line)
        self.size += len(line)

    def __len__(self) -> int:
        return len(self._offsets)

    def _to_file(self) -> None:
        import tempfile

        memory = cast(io.BytesIO, self._handle)
        folder = self._folder.get()
        if folder is not None:
            fd, self._name = tempfile.mkstemp(suffix=".lines", dir=folder)
            self._handle = os.fdopen(fd, "w+b")
        else:
            self._handle = tempfile.TemporaryFile()  # noqa: SIM115 - closed by finish() or discard()
        self._handle.write(memory.getbuffer())

    def finish(self, order: Sequence[int], inline: int) -> tuple[bytes, str | None]:
        """The lines in ``order`` (positions as they came): inline bytes when they fit in
        ``inline`` bytes (or there is no folder to spill to), else ``b""`` and the name of the
        spill file in the folder."""
        in_order = all(i == n for n, i in enumerate(order))
        if self.size > inline and isinstance(self._handle, io.BytesIO):
            self._to_file()
        if self._name is not None and self.size > inline:
            if not in_order:
                self._reorder(order)
            self._handle.close()
            name, self._name = self._name, None  # the parent's now: not removed by discard()
            return b"", name
        try:
            if in_order:
                self._handle.seek(0)
                return self._handle.read(), None
            return b"".join(self._line(i) for i in order), None
        finally:
            self.discard()

    def lines(self, order: Sequence[int]) -> Iterator[bytes]:
        """The lines in ``order`` (positions as they came), one at a time."""
        return (self._line(i) for i in order)

    def _line(self, index: int) -> bytes:
        start = self._offsets[index]
        end = self._offsets[index + 1] if index + 1 < len(self._offsets) else self.size
        self._handle.seek(start)
        return self._handle.read(end - start)

    def _reorder(self, order: Sequence[int]) -> None:
        """Rewrite the spill file in ``order``, one line at a time."""
        import tempfile

        fd, name = tempfile.mkstemp(suffix=".lines", dir=os.path.dirname(cast(str, self._name)))
        with os.fdopen(fd, "wb") as out:
            for index in order:
                out.write(self._line(index))
        self.discard()
        self._name = name

    def discard(self) -> None:
        """Let the lines go (a stream that failed, or lines already sent)."""
        self._handle.close()
        if self._name is not None:
            os.unlink(self._name)
            self._name = None


class SpooledEpisodes(Sequence[EpisodeAudit]):
    """A spooled file's episodes, read back one at a time whenever they are iterated."""

    def __init__(
        self, count: int, read: IO[bytes] | None, start: int, size: int, spill: str | None, codec: EpisodeCodec
    ) -> None:
        self._count, self._read, self._start, self._size, self._spill = count, read, start, size, spill
        self._decode = codec.episode

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[EpisodeAudit]:
        if self._spill is not None:
            with open(self._spill, "rb") as lines:
                for line in lines:
                    yield self._decode(line)
            return
        if self._read is None or not self._count:
            return
        self._read.seek(self._start)
        data = self._read.read(self._size)  # at most INLINE bytes
        for line in data.splitlines():
            yield self._decode(line)

    @overload
    def __getitem__(self, index: int) -> EpisodeAudit: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[EpisodeAudit]: ...

    def __getitem__(self, index: int | slice) -> EpisodeAudit | Sequence[EpisodeAudit]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._count)
            return tuple(islice(self, start, stop, step)) if step > 0 else tuple(self)[index]
        position = index + self._count if index < 0 else index
        if not 0 <= position < self._count:
            raise IndexError(index)
        return next(islice(self, position, None))


class AuditSpool:
    """Each file's block in input order (:class:`SpooledAudit` then its inline episode lines),
    read back as reports whose ``episodes`` are a :class:`SpooledEpisodes`."""

    def __init__(self, folder: SpillFolder) -> None:
        self._spool: Spool[SpooledAudit] = Spool(SpooledAudit)
        self._folder = folder
        self._decode = msgspec.json.Decoder(SpooledAudit).decode

    def add(self, block: bytes) -> None:
        """Spool one file's block (a worker's, :func:`block`) as it came."""
        self._spool.add_line(block)

    def read(self) -> Iterator[AuditReport]:
        """Every file's report, in the order spooled, its episodes read only when iterated:
        each head line read, then its ``size`` bytes of episode lines skipped."""
        handle = self._spool.reader()
        position = 0
        while True:
            handle.seek(position)
            line = handle.readline()
            if not line:
                return
            head = self._decode(line)
            start = position + len(line)
            position = start + head.size
            spill = head.spill if head.spill is not None and self._folder.holds(head.spill) else None
            episodes = SpooledEpisodes(head.episodes, handle, start, head.size, spill, EpisodeCodec(head.pairs))
            # The renderers read ``episodes`` as a sequence; it is never encoded as the Struct.
            yield msgspec.structs.replace(head.report, episodes=cast("tuple[EpisodeAudit, ...]", episodes))

    def close(self) -> None:
        self._spool.close()


def block(head: SpooledAudit, lines: bytes) -> bytes:
    """One file's block for :meth:`AuditSpool.add`: the head line, then ``lines`` (its
    ``size`` bytes of episode lines, each ending in a newline) without the last newline."""
    encoded = msgspec.json.encode(head)
    return encoded + b"\n" + lines[:-1] if lines else encoded
