"""Blobs: content addressed by BLAKE3 and stored once (docs/bundle-format.md section 3)."""

from __future__ import annotations

from collections.abc import Callable

import blake3

from tracekit.bundle import jcs
from tracekit.bundle.records import Ref
from tracekit.evidence import Arguments


def digest_of(data: bytes) -> bytes:
    return blake3.blake3(data).digest()


class BlobStore:
    """Blobs by digest; adding one that is held already stores nothing new (section 3), so the
    repeated history of an agent loop costs one reference per turn, not one copy."""

    def __init__(self, on_new: Callable[[bytes, int], None] | None = None) -> None:
        self._blobs: dict[bytes, bytes] = {}
        self._texts: dict[str, Ref] = {}
        """Each text's reference, so a text repeated over records is encoded and hashed once."""
        self._on_new = on_new
        """Called with the digest and length of each blob the first time it is added."""

    def add(self, data: bytes) -> Ref:
        digest = digest_of(data)
        if digest not in self._blobs:
            if self._on_new is not None:
                self._on_new(digest, len(data))
            self._blobs[digest] = data
        return Ref(digest=digest.hex(), length=len(data))

    def add_text(self, text: str | None) -> Ref | None:
        if text is None:
            return None
        ref = self._texts.get(text)
        if ref is None:
            ref = self._texts[text] = self.add(text.encode("utf-8", "surrogatepass"))
        return ref

    def merge(self, other: BlobStore) -> None:
        for digest, data in other._blobs.items():
            self._blobs.setdefault(digest, data)

    def sorted_items(self) -> list[tuple[bytes, bytes]]:
        """Blobs in ascending digest order, the order frames hold them (section 2)."""
        return sorted(self._blobs.items())

    def __len__(self) -> int:
        return len(self._blobs)


def argument_bytes(arguments: Arguments) -> tuple[str | None, bytes | None]:
    """``(encoding, bytes)`` of a tool call's arguments, verbatim (section 3 item 3): the string
    the format holds, or the RFC 8785 form of an object."""
    if arguments.shape in ("string", "repr") and arguments.text is not None:
        return arguments.shape, arguments.text.encode("utf-8", "surrogatepass")
    if arguments.shape == "object":
        return "jcs", jcs.dumps(arguments.value)
    return None, None
