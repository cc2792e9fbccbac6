"""The blobs a bundle's verifier has read (docs/bundle-format.md steps 4-5), held compactly.

A bundle within its limits may hold hundreds of thousands of distinct blobs (a million frames,
most of them blobs), and the verifier keeps, for each, what step 5 and the report read: its
length, whether it is held, whether a record names it, and for a held blob its SHA-256 (and in
version 2 its plain BLAKE3), which only an original's check reads. Kept as a dict entry and a
tuple per fact, that was about 720 bytes a blob (310 MiB to verify the bundle of an ``.eval``
of 40,000 samples of 8 distinct messages); here a blob is one entry of a dict from its digest
(32 bytes; records spell it in 64 lowercase hex characters, which their schema and templates
check) to its ordinal, and its facts are that ordinal's place in flat arrays
(docs/threat-model.md, "seal").
"""

from __future__ import annotations

from array import array
from binascii import unhexlify
from collections.abc import Iterable

_NONE = bytes(32)
_HELD, _PLAIN = 1, 2


class BlobTable:
    """Each blob's length, whether held and referenced, its SHA-256 and plain BLAKE3, by the
    order the frames gave them (ascending digests: a digest is added once)."""

    __slots__ = ("_flags", "_index", "_lengths", "_plain", "_referenced", "_sha256")

    def __init__(self) -> None:
        self._index: dict[bytes, int] = {}
        self._lengths = array("q")
        self._flags = bytearray()
        self._referenced = bytearray()
        self._sha256 = bytearray()
        self._plain = bytearray()

    def __len__(self) -> int:
        return len(self._lengths)

    def add(self, digest: bytes, length: int, sha256: bytes | None = None, plain: bytes | None = None) -> None:
        """A blob frame (``sha256`` given: held) or a withheld entry (neither given)."""
        self._index[digest] = len(self._lengths)
        self._lengths.append(length)
        self._flags.append((_HELD if sha256 is not None else 0) | (_PLAIN if plain is not None else 0))
        self._referenced.append(0)
        self._sha256 += sha256 or _NONE
        self._plain += plain or _NONE

    def place(self, digest: str) -> int | None:
        """The ordinal of the blob of this hex digest (a record's ``Ref``); None when there is
        none."""
        return self._index.get(bytes.fromhex(digest))

    def places(self, digests: Iterable[bytes]) -> list[int | None]:
        """Each hex digest's ordinal, the digest as the ASCII bytes a record frame holds (None:
        no such blob), for :meth:`lengths_at` and :meth:`refer`."""
        return list(map(self._index.get, map(unhexlify, digests)))

    def lengths_at(self, places: list[int]) -> list[int]:
        return list(map(self._lengths.__getitem__, places))

    def length_at(self, place: int) -> int:
        return self._lengths[place]

    def refer(self, places: Iterable[int]) -> None:
        """Mark the blobs at these ordinals as named by a record."""
        referenced = self._referenced
        for place in places:
            referenced[place] = 1

    def unreferenced(self) -> int:
        """How many blobs no record names."""
        return self._referenced.count(0)

    def entry(self, digest: bytes) -> tuple[int, bool, bytes | None]:
        """(length, held, SHA-256 when held) of the blob of this digest (KeyError: none)."""
        at = self._index[digest]
        held = bool(self._flags[at] & _HELD)
        return self._lengths[at], held, bytes(self._sha256[32 * at : 32 * at + 32]) if held else None

    def plain(self, digest: bytes) -> bytes | None:
        """The plain BLAKE3 of the blob of this digest, when it was kept (version 2 and later,
        held); None otherwise, or when there is no such blob."""
        at = self._index.get(digest)
        if at is None or not self._flags[at] & _PLAIN:
            return None
        return bytes(self._plain[32 * at : 32 * at + 32])
