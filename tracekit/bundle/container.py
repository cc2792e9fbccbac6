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
CHUNK = 1024 * 1024
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
        self.consumed = 0
        self.count = 0
        if self._read_exact(len(MAGIC), allow_short=True) != MAGIC:
            raise bad(Code.BUNDLE_BAD_MAGIC)

    def _read_exact(self, size: int, allow_short: bool = False) -> bytes:
        data = self._handle.read(size)
        self.consumed += len(data)
        if len(data) != size and not allow_short:
            raise bad(Code.BUNDLE_TRUNCATED, frame=self.count)
        return data

    def next_head(self) -> FrameHead | None:
        """The next frame's header, or None at a clean end of file."""
        raw = self._handle.read(HEADER.size)
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
        return self._handle.read(1) == b""


@dataclass(frozen=True, slots=True)
class RawFrame:
    """A frame read whole: its kind and payload (a blob's payload starts with its digest)."""

    kind: bytes
    payload: bytes

    def encode(self) -> bytes:
        return frame(self.kind, self.payload)


def iter_frames(handle: BinaryIO, limits: BundleLimits) -> Iterator[RawFrame]:
    """Every frame of an already verified bundle, each read whole (bounded by ``limits``); for
    the commands that rewrite or select frames after verification."""
    reader = FrameReader(handle, limits)
    while (head := reader.next_head()) is not None:
        yield RawFrame(head.kind, reader.payload(head))
