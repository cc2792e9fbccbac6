"""The sealer's frame plan: every bound ``bundle verify`` applies to a bundle's frames, checked
while the frames are planned and before any byte is written (docs/bundle-format.md, "Limits",
and docs/threat-model.md, "The sealer"), so a bundle ``seal`` writes always passes them.

The refusals carry the verifier's own codes. Bounds whose excess can only grow as planning goes
on (frames, total bytes, findings) refuse as soon as they are passed; a frame over its own size
bound is remembered and refused once planning ends, when its frame number is known.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tracekit.bundle.container import DIGEST_BYTES, HEADER, MAGIC, bad
from tracekit.bundle.limits import BundleLimits
from tracekit.kernel.errors import Code

FRAME_HEAD = HEADER.size


@dataclass(slots=True)
class FramePlan:
    """Counts the frames and bytes of a bundle being planned, against ``limits``."""

    limits: BundleLimits
    frames: int = 0
    size: int = len(MAGIC)
    blobs: int = 0
    records: int = 0
    oversized_blobs: list[bytes] = field(default_factory=list)
    """Digests of blobs over ``blob_bytes`` (their frame number needs the sorted order)."""
    oversized_record: int | None = None
    """The position of the first record frame over ``json_frame_bytes``."""

    def findings(self, count: int) -> None:
        if count > self.limits.findings:
            raise bad(Code.BUNDLE_TOO_MANY_FINDINGS, limit=self.limits.findings)

    def _frame(self, length: int) -> None:
        self.frames += 1
        if self.frames > self.limits.frames:
            raise bad(Code.BUNDLE_TOO_MANY_FRAMES, limit=self.limits.frames)
        self.size += FRAME_HEAD + length
        if self.size > self.limits.total_bytes:
            raise bad(Code.BUNDLE_TOO_LARGE, limit=self.limits.total_bytes)

    def blob(self, digest: bytes, length: int) -> None:
        """A new blob frame (a blob held already adds none)."""
        self._frame(DIGEST_BYTES + length)
        self.blobs += 1
        if length > self.limits.blob_bytes:
            self.oversized_blobs.append(digest)

    def record(self, length: int) -> None:
        self._frame(length)
        if length > self.limits.json_frame_bytes and self.oversized_record is None:
            self.oversized_record = self.records
        self.records += 1

    def record_batch(self, lengths: list[int]) -> None:
        """Record frames of these payload lengths, in order: as :meth:`record` for each, counted
        at once when the batch passes no bound (otherwise one by one, to refuse where
        :meth:`record` does)."""
        count, size = len(lengths), self.size + FRAME_HEAD * len(lengths) + sum(lengths)
        limits = self.limits
        if (
            self.frames + count > limits.frames
            or size > limits.total_bytes
            or max(lengths, default=0) > limits.json_frame_bytes
        ):
            for length in lengths:
                self.record(length)
            return
        self.frames += count
        self.size = size
        self.records += count

    def json_frame(self, length: int, number: int) -> None:
        """A JSON frame outside the records (header, proof, signature, end) at ``number``."""
        self._frame(length)
        if length > self.limits.json_frame_bytes:
            raise bad(Code.BUNDLE_FRAME_TOO_LARGE, frame=number, limit=self.limits.json_frame_bytes)

    def check_frames(self, digests: list[bytes]) -> None:
        """After the blobs and records are planned: the first frame over its size bound, by the
        number the verifier meets it at (``digests``: every blob's, in frame order)."""
        if self.oversized_blobs:
            first = min(self.oversized_blobs)
            limit = DIGEST_BYTES + self.limits.blob_bytes
            raise bad(Code.BUNDLE_FRAME_TOO_LARGE, frame=1 + digests.index(first), limit=limit)
        if self.oversized_record is not None:
            number = 1 + self.blobs + self.oversized_record
            raise bad(Code.BUNDLE_FRAME_TOO_LARGE, frame=number, limit=self.limits.json_frame_bytes)

