"""Blobs: content addressed by BLAKE3 and stored once (docs/bundle-format.md section 3)."""

from __future__ import annotations

import io
from array import array
from collections.abc import Callable, Iterable, Iterator
from typing import BinaryIO

import blake3

from tracekit.bundle import jcs
from tracekit.bundle.container import CHUNK
from tracekit.bundle.records import Ref
from tracekit.bundle.spooled import region
from tracekit.kernel.evidence import Arguments

SALT_BYTES = 16
SALT_CONTEXT = "tracekit 2026-12-02 bundle blob salt v1"


def digest_of(data: bytes) -> bytes:
    return blake3.blake3(data).digest()


def salt_length(header: bytes) -> int:
    """Bytes of salt after a blob frame's digest, from the header frame's payload of a bundle
    that verified: 16 in versions 2 and 3, none in version 1."""
    import json

    return SALT_BYTES if json.loads(header).get("bundle_version") in (2, 3) else 0


def salt_key(seed: bytes | None) -> bytes:
    """The key of a bundle's blob salts (section 3, "Salted blobs"): derived from the signing
    key, so the same input and key give the same bundle; random for an unsigned bundle."""
    if seed is None:
        import os

        return os.urandom(32)
    return blake3.blake3(seed, derive_key_context=SALT_CONTEXT).digest()


KEPT_TEXTS = 65_536
"""Texts a store keeps the reference of, at most (then it starts again): a text repeated over an
agent loop's records is hashed once, and an input of distinct texts (each seen once) does not
hold a second copy of each (docs/threat-model.md, "seal")."""
KEPT_TEXT_CHARS = 4096
"""A longer text is hashed again when it repeats, never kept as a key beside its blob."""


class BlobStore:
    """Blobs by digest; adding one that is held already stores nothing new (section 3), so the
    repeated history of an agent loop costs one reference per turn, not one copy. With a
    ``key``, each blob is committed with a salt: ``salt = BLAKE3-keyed(key, data)[:16]``,
    ``digest = B3(salt || data)``, and the frame payload after the digest is ``salt || data``.

    Payloads are appended to ``spool`` (a read-write binary file the caller owns and keeps open
    while the store is used; in memory without one) and only each digest's place is held, so
    sealing a gigabyte of distinct text, or a large original, holds none of it
    (docs/threat-model.md, "seal")."""

    def __init__(
        self,
        key: bytes | None = None,
        on_new: Callable[[bytes, int], None] | None = None,
        spool: BinaryIO | None = None,
    ) -> None:
        self._places: dict[bytes, int] = {}
        """Each digest's ordinal in :attr:`_starts` and :attr:`_lengths`."""
        self._starts, self._lengths = array("q"), array("q")
        self._spool: BinaryIO = io.BytesIO() if spool is None else spool
        self._end = self._spool.seek(0, 2)
        """Where the next payload goes: the spool's end, once :attr:`_pending` is written."""
        self._pending = bytearray()
        """New payloads not yet written: appended in about 1 MiB writes, not one per blob."""
        self._key = key
        self._texts: dict[str, Ref] = {}
        """Recent texts' references, so a text repeated over records is encoded and hashed once
        (bounded: :data:`KEPT_TEXTS`, :data:`KEPT_TEXT_CHARS`)."""
        self._on_new = on_new
        """Called with the digest and payload length (salt and data) of each blob the first time
        it is added: the frame the sealer plans for it."""

    @property
    def salted(self) -> bool:
        return self._key is not None

    def add(self, data: bytes) -> Ref:
        if self._key is None:
            digest, payload = digest_of(data), data
        else:
            payload = blake3.blake3(data, key=self._key).digest(length=SALT_BYTES) + data
            digest = digest_of(payload)
        if digest not in self._places:
            self._new(digest, len(payload))
            self._pending += payload
            self._end += len(payload)
            if len(self._pending) >= CHUNK:
                self._flush()
        return Ref(digest=digest.hex(), length=len(data))

    def _flush(self) -> None:
        """Write the pending payloads at the spool's end."""
        if self._pending:
            self._spool.seek(self._end - len(self._pending))
            self._spool.write(self._pending)
            self._pending = bytearray()

    def add_stream(self, chunks: Callable[[], Iterable[bytes]]) -> Ref:
        """As :meth:`add`, for data too large to hold: ``chunks()`` yields it in pieces, and is
        called once to salt it and once more to hash and store it."""
        salt = b""
        if self._key is not None:
            keyed = blake3.blake3(key=self._key)
            for chunk in chunks():
                keyed.update(chunk)
            salt = keyed.digest(length=SALT_BYTES)
        self._flush()
        start, hashed, length = self._end, blake3.blake3(salt), 0
        self._spool.seek(start)
        self._spool.write(salt)
        for chunk in chunks():
            hashed.update(chunk)
            self._spool.write(chunk)
            length += len(chunk)
        digest = hashed.digest()
        if digest not in self._places:
            self._new(digest, len(salt) + length)
            self._end += len(salt) + length
        return Ref(digest=digest.hex(), length=length)

    def _new(self, digest: bytes, length: int) -> None:
        if self._on_new is not None:
            self._on_new(digest, length)
        self._places[digest] = len(self._starts)
        self._starts.append(self._end)
        self._lengths.append(length)

    def add_text(self, text: str | None) -> Ref | None:
        if text is None:
            return None
        ref = self._texts.get(text)
        if ref is None:
            ref = self.add(text.encode("utf-8", "surrogatepass"))
            if len(text) <= KEPT_TEXT_CHARS:
                if len(self._texts) >= KEPT_TEXTS:
                    self._texts.clear()
                self._texts[text] = ref
        return ref

    def sorted_digests(self) -> list[bytes]:
        """The digests in ascending order, the order frames hold blobs (section 2)."""
        return sorted(self._places)

    def payload_length(self, digest: bytes) -> int:
        """The payload's length (salt and data) of a blob held."""
        return self._lengths[self._places[digest]]

    def payload(self, digest: bytes) -> Iterator[bytes]:
        """The payload (salt and data) of a blob held, read back in pieces of at most
        :data:`CHUNK` bytes."""
        self._flush()
        place = self._places[digest]
        return region(self._spool, self._starts[place], self._lengths[place])

    def __len__(self) -> int:
        return len(self._places)


def argument_bytes(arguments: Arguments) -> tuple[str | None, bytes | None]:
    """``(encoding, bytes)`` of a tool call's arguments, verbatim (section 3 item 3): the string
    the format holds, or the RFC 8785 form of an object."""
    if arguments.shape in ("string", "repr") and arguments.text is not None:
        return arguments.shape, arguments.text.encode("utf-8", "surrogatepass")
    if arguments.shape == "object":
        return "jcs", jcs.dumps(arguments.value)
    return None, None
