"""An independent reader and writer of bundle frames for building hostile bundles in tests
(docs/bundle-format.md section 1, written again from the text, not imported)."""

from __future__ import annotations

import json
import struct
from typing import Any

import rfc8785

MAGIC = b"\x89TKB\r\n\x1a\n"
SALT = 16
"""Version 2 blob frames: digest, then a 16-byte salt, then the data (section 3)."""


def data_of(payload: bytes) -> bytes:
    """A version 2 blob frame's data: the payload after its digest and salt."""
    return payload[32 + SALT :]


def blob_payload(data: bytes, salt: bytes = bytes(SALT)) -> bytes:
    """A valid version 2 blob frame payload for ``data``: ``B3(salt || data) || salt || data``."""
    import blake3

    return blake3.blake3(salt + data).digest() + salt + data


def split(data: bytes) -> list[tuple[bytes, bytes]]:
    assert data.startswith(MAGIC)
    out, at = [], len(MAGIC)
    while at < len(data):
        kind, length = struct.unpack(">cQ", data[at : at + 9])
        out.append((kind, data[at + 9 : at + 9 + length]))
        at += 9 + length
    return out


def join(frames: list[tuple[bytes, bytes]], fix_count: bool = True) -> bytes:
    if fix_count and frames and frames[-1][0] == b"Z":
        frames = [*frames[:-1], (b"Z", rfc8785.dumps({"frames": len(frames) - 1}))]
    return MAGIC + b"".join(struct.pack(">cQ", k, len(p)) + p for k, p in frames)


def doc(payload: bytes) -> Any:
    return json.loads(payload)


def canon(value: Any) -> bytes:
    return rfc8785.dumps(value)


def index_of(frames: list[tuple[bytes, bytes]], kind: bytes, nth: int = 0) -> int:
    return [i for i, (k, _) in enumerate(frames) if k == kind][nth]
