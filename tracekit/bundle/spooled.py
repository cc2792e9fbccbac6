"""A file's evidence for the sealer, spooled one episode at a time (docs/threat-model.md, "The
sealer"; docs/bundle-format.md section 4).

The records follow the file's episode order, the stable order of the keys a reader hands its
episodes over with (docs/formats.md, "Streaming episodes"), which is known only once the file is
read; and the manifest, the first record, counts every episode's messages, calls and turns. So
:class:`SpooledEvidence` writes each episode to a spool file as it is read and keeps only its
key, its place in the spool, its id and its counts; the sealer reads the episodes back in the
file's order, one at a time, as often as it walks them. Pure: the caller owns the spool (an
anonymous temporary file) and keeps it open while the evidence is used.
"""

from __future__ import annotations

import hashlib
import pickle
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO, overload

import blake3
import msgspec

from tracekit.bundle.container import CHUNK
from tracekit.formats.base import EpisodeStream
from tracekit.kernel.episode_id import episode_label
from tracekit.kernel.evidence import Episode


@dataclass(frozen=True, slots=True)
class SpooledOriginal:
    """An input file's exact bytes, copied to a spool the caller owns (at ``start``, ``length``
    bytes), with the plain BLAKE3 and SHA-256 taken as they were copied: the sealer streams the
    original into its blob and never holds it (docs/threat-model.md, "seal")."""

    spool: BinaryIO
    start: int
    length: int
    blake3: str
    sha256: str

    @classmethod
    def copy(cls, handle: BinaryIO, spool: BinaryIO, most: int) -> SpooledOriginal:
        """``handle``'s bytes from where it is, appended to ``spool``: at most ``most + 1`` are
        copied, so a caller refuses a longer file by its ``length`` without copying all of it."""
        start = spool.seek(0, 2)
        plain, sha, length = blake3.blake3(), hashlib.sha256(), 0
        while length <= most and (chunk := handle.read(min(CHUNK, most + 1 - length))):
            plain.update(chunk)
            sha.update(chunk)
            spool.write(chunk)
            length += len(chunk)
        return cls(spool, start, length, plain.hexdigest(), sha.hexdigest())

    def __len__(self) -> int:
        return self.length

    def chunks(self) -> Iterator[bytes]:
        """The bytes, read back in pieces of at most 1 MiB."""
        return region(self.spool, self.start, self.length)


def region(spool: BinaryIO, start: int, length: int) -> Iterator[bytes]:
    """``length`` bytes of ``spool`` from ``start``, read in pieces of at most 1 MiB (an
    :class:`OSError` if the file is shorter: what was written to it is gone)."""
    spool.seek(start)
    left = length
    while left:
        chunk = spool.read(min(CHUNK, left))
        if not chunk:
            raise OSError("the spool is shorter than what was written to it")
        left -= len(chunk)
        yield chunk


def whole(spool: BinaryIO) -> Iterator[bytes]:
    """Everything written to ``spool``, from its start, as :func:`region` reads it."""
    return region(spool, 0, spool.seek(0, 2))


class SpooledEvidence:
    """The evidence an :class:`EpisodeStream` yields, as the sealer reads it: ``format``,
    ``format_version``, ``episodes`` (in the file's order, read back from the spool), their
    ``totals`` and ``labels``."""

    def __init__(self, stream: EpisodeStream, spool: BinaryIO) -> None:
        self.format = stream.format
        self.format_version = stream.format_version
        at = spool.seek(0, 2)
        keys: list[Any] = []
        ids: list[str] = []
        starts, ends = array("q"), array("q")
        messages = calls = turns = 0
        for key, episode in stream.pairs:
            data = encode(episode)
            spool.write(data)
            starts.append(at)
            at += len(data)
            ends.append(at)
            keys.append(key)
            ids.append(episode.id)
            messages += len(episode.messages)
            calls += len(episode.calls)
            turns += len(episode.turns)
        order = sorted(range(len(keys)), key=keys.__getitem__)  # stable: as formats.base.in_order
        self._spool = spool
        self._at = -1
        """Where the spool was last read to: an episode there is read without a seek."""
        self._starts = array("q", (starts[i] for i in order))
        self._ends = array("q", (ends[i] for i in order))
        self.labels = tuple(episode_label(ids[i]) for i in order)
        """Each episode's label (docs/cli.md, "Episode ids"), in the file's order."""
        self.totals = (messages, calls, turns)
        """Messages, calls and turns over every episode."""
        self.episodes = _Episodes(self)

    def read(self, index: int) -> Episode:
        """The episode at ``index`` in the file's order."""
        start, end = self._starts[index], self._ends[index]
        if start != self._at:
            self._spool.seek(start)
        self._at = end
        return decode(self._spool.read(end - start))

    def __len__(self) -> int:
        return len(self._starts)


_MSGPACK, _PICKLE = b"m", b"p"
_TO_MSGPACK = msgspec.msgpack.Encoder().encode
_FROM_MSGPACK = msgspec.msgpack.Decoder(Episode).decode
_NOT_MSGPACK = (msgspec.EncodeError, msgspec.DecodeError, msgspec.ValidationError, OverflowError, TypeError, ValueError)


def encode(episode: Episode) -> bytes:
    """The episode's bytes in the spool: MessagePack (a few times cheaper than pickle both ways)
    when it decodes back to an equal episode, else pickle, which restores any episode exactly
    (lone surrogates, integers past 64 bits, a tuple inside a JSON value, a value its schema's
    constraints would refuse on decoding), as the sealer must; a first byte says which."""
    try:
        data = _TO_MSGPACK(episode)
        if _FROM_MSGPACK(data) == episode:
            return _MSGPACK + data
    except _NOT_MSGPACK:
        pass
    # NOTE(threat-model): the spool holds only what this process wrote to its own anonymous
    # temporary file, and only this process reads it back.
    return _PICKLE + pickle.dumps(episode, pickle.HIGHEST_PROTOCOL)


def decode(data: bytes) -> Episode:
    """The episode :func:`encode` gave ``data`` for."""
    body = memoryview(data)[1:]
    if data[:1] == _MSGPACK:
        return _FROM_MSGPACK(body)
    episode: Episode = pickle.loads(body)
    return episode


class _Episodes(Sequence[Episode]):
    """The episodes, each read back when it is reached: none is held."""

    def __init__(self, evidence: SpooledEvidence) -> None:
        self._evidence = evidence

    def __len__(self) -> int:
        return len(self._evidence)

    @overload
    def __getitem__(self, index: int) -> Episode: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Episode]: ...

    def __getitem__(self, index: int | slice) -> Episode | Sequence[Episode]:
        if isinstance(index, slice):
            return [self._evidence.read(i) for i in range(len(self))[index]]
        if not -len(self) <= index < len(self):
            raise IndexError(index)
        return self._evidence.read(index % len(self))

    def __iter__(self) -> Iterator[Episode]:
        return map(self._evidence.read, range(len(self)))
