"""The bundle container: a magic, then length-prefixed frames (docs/bundle-format.md sections
1-2 and verification steps 1-2).

Writing yields byte chunks (the CLI streams them to an atomic writer); reading walks a binary
handle once, checking each declared length against the limits before reading the payload, and
hands a blob's payload over in bounded chunks so a giant blob is never held.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO, NamedTuple

from tracekit.bundle.limits import BundleLimits
from tracekit.bundle.magic import (
    MAGIC as MAGIC,  # re-exported: the bundle modules take it from here
)
from tracekit.kernel.errors import Code, Finding, TracekitError, finding

HEADER = struct.Struct(">cQ")
_UNPACK_HEAD = HEADER.unpack_from
CHUNK = 1024 * 1024
RECORD_BLOCK = 256 * 1024
"""Record frames are read this many bytes at a time (:meth:`FrameReader.record_block`): few
calls per block, and what a block's records cost the verifier's memory (their text, their fields
as text, docs/performance.md) stays a few MiB."""
DIGEST_BYTES = 32

HEADER_KIND, BLOB, WITHHELD, RECORD, PROOF, SIGNATURE, ORIGINAL, END = (
    b"H", b"B", b"W", b"R", b"P", b"S", b"A", b"Z"
)
KINDS = frozenset({HEADER_KIND, BLOB, WITHHELD, RECORD, PROOF, SIGNATURE, ORIGINAL, END})


class BundleError(TracekitError):
    """The bundle is malformed or tampered; carries the finding (exit 2)."""

    def __init__(self, found: Finding) -> None:
        super().__init__(found)


def bad(code: Code, **params: int | str) -> BundleError:
    return BundleError(finding(code, **params))


def frame(kind: bytes, payload: bytes) -> bytes:
    """One frame: kind, u64 big-endian length, payload."""
    return HEADER.pack(kind, len(payload)) + payload


def blob_frame_head(digest: bytes, length: int) -> bytes:
    """The header of a blob frame and its digest; the blob's bytes follow."""
    return HEADER.pack(BLOB, DIGEST_BYTES + length) + digest


class FrameHead(NamedTuple):
    """A frame whose header was read; ``number`` counts from 0 after the magic (a tuple: one is
    made per frame, and a tuple is made at half a frozen dataclass's cost)."""

    number: int
    kind: bytes
    length: int


class FrameReader:
    """Reads frames from ``handle`` under ``limits`` (steps 1-2)."""

    def __init__(self, handle: BinaryIO, limits: BundleLimits) -> None:
        self._handle = handle
        self._limits = limits
        self._ahead = b""
        """Bytes :meth:`record_block` read past the frames it returned; read before the handle."""
        self.consumed = 0
        self.count = 0
        if self._read_exact(len(MAGIC), allow_short=True) != MAGIC:
            raise bad(Code.BUNDLE_BAD_MAGIC)

    def _read(self, size: int) -> bytes:
        """Up to ``size`` bytes (fewer only at the end of the file): the read-ahead first."""
        ahead = self._ahead
        if not ahead:
            return self._handle.read(size)
        if size <= len(ahead):
            self._ahead = ahead[size:]
            return ahead[:size]
        self._ahead = b""
        return ahead + self._handle.read(size - len(ahead))

    def _read_exact(self, size: int, allow_short: bool = False) -> bytes:
        data = self._read(size)
        self.consumed += len(data)
        if len(data) != size and not allow_short:
            raise bad(Code.BUNDLE_TRUNCATED, frame=self.count)
        return data

    def next_head(self) -> FrameHead | None:
        """The next frame's header, or None at a clean end of file."""
        raw = self._read(HEADER.size)
        self.consumed += len(raw)
        if not raw:
            return None
        if len(raw) != HEADER.size:
            raise bad(Code.BUNDLE_TRUNCATED, frame=self.count)
        kind, length = HEADER.unpack(raw)
        number = self.count
        if kind not in KINDS:
            raise bad(Code.BUNDLE_UNKNOWN_FRAME, frame=number)
        self.count += 1
        if self.count > self._limits.frames:
            raise bad(Code.BUNDLE_TOO_MANY_FRAMES, limit=self._limits.frames)
        cap = DIGEST_BYTES + self._limits.blob_bytes if kind == BLOB else self._limits.json_frame_bytes
        if length > cap:
            raise bad(Code.BUNDLE_FRAME_TOO_LARGE, frame=number, limit=cap)
        if self.consumed + length > self._limits.total_bytes:
            raise bad(Code.BUNDLE_TOO_LARGE, limit=self._limits.total_bytes)
        return FrameHead(number, kind, length)

    def record_block(self) -> list[bytes]:
        """The payloads of the record frames that come next, read as one block of at most
        2 x :data:`RECORD_BLOCK` bytes (none when the next frame is not a record). Each frame returned passed every check
        :meth:`next_head` and :meth:`payload` make, and is counted as they count it; the block
        stops before a frame that is not a record, is not whole in the block, or would fail a
        check, which the next :meth:`next_head` then reads (and refuses) as it always did."""
        ahead = self._ahead
        if len(ahead) < RECORD_BLOCK:
            ahead += self._handle.read(RECORD_BLOCK)
        limits, unpack, size = self._limits, _UNPACK_HEAD, HEADER.size
        cap, end = limits.json_frame_bytes, len(ahead)
        bound = min(end, limits.total_bytes - self.consumed)  # a frame past it: not whole, or too large
        payloads: list[bytes] = []
        append, position = payloads.append, 0
        for _ in range(limits.frames - self.count):
            if position + size > end:
                break
            kind, length = unpack(ahead, position)
            stop = position + size + length
            if kind != RECORD or stop > bound or length > cap:
                break
            append(ahead[position + size : stop])
            position = stop
        self._ahead = ahead[position:]
        self.consumed += position
        self.count += len(payloads)
        return payloads

    def payload(self, head: FrameHead) -> bytes:
        """The whole payload of a (bounded) JSON frame."""
        return self._read_exact(head.length)

    def chunks(self, size: int) -> Iterator[bytes]:
        """``size`` bytes in chunks of at most 1 MiB."""
        left = size
        while left:
            chunk = self._read_exact(min(CHUNK, left))
            left -= len(chunk)
            yield chunk

    def at_end(self) -> bool:
        """True when no byte follows."""
        return self._read(1) == b""


@dataclass(frozen=True, slots=True)
class RawFrame:
    """A frame of a verified bundle: its kind and payload, whole, except a blob's over
    :data:`CHUNK` bytes: ``payload`` holds its first :data:`CHUNK` bytes (its digest first) and
    ``rest`` yields the others, at most :data:`CHUNK` at a time, until :func:`iter_frames` moves
    on to the next frame (what was not read by then is skipped)."""

    kind: bytes
    payload: bytes
    length: int
    """The whole payload's length."""
    rest: Iterator[bytes] = iter(())

    def chunks(self) -> Iterator[bytes]:
        """The frame's bytes (header and payload), at most about :data:`CHUNK` at a time."""
        yield HEADER.pack(self.kind, self.length) + self.payload
        yield from self.rest


def iter_frames(handle: BinaryIO, limits: BundleLimits) -> Iterator[RawFrame]:
    """Every frame of an already verified bundle (bounded by ``limits``; a large blob handed over
    in chunks, so none is held); for the commands that rewrite or select frames after
    verification."""
    reader = FrameReader(handle, limits)
    while (head := reader.next_head()) is not None:
        if head.kind != BLOB or head.length <= CHUNK:
            yield RawFrame(head.kind, reader.payload(head), head.length)
            continue
        first = reader.payload(FrameHead(head.number, head.kind, CHUNK))
        rest = reader.chunks(head.length - CHUNK)
        yield RawFrame(head.kind, first, head.length, rest)
        for _ in rest:  # what the caller left unread
            pass
