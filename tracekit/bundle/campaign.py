"""Campaign inclusion proofs (docs/bundle-format.md section 9): one finding's blobs and records,
the RFC 9162 path of its leaf, and the campaign's signature frame unchanged."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator, Sequence
from typing import Any, BinaryIO

import msgspec

from tracekit.bundle import jcs, merkle
from tracekit.bundle.container import (
    BLOB,
    DIGEST_BYTES,
    END,
    HEADER_KIND,
    MAGIC,
    ORIGINAL,
    PROOF,
    RECORD,
    SIGNATURE,
    WITHHELD,
    frame,
    iter_frames,
)
from tracekit.bundle.limits import BundleLimits
from tracekit.bundle.records import from_json, refs
from tracekit.bundle.seal import finding_leaf, header
from tracekit.bundle.spooled import whole
from tracekit.bundle.subjects import finding_of

_DECODE: Any = msgspec.json.Decoder().decode
"""A record frame's JSON (canonical: the bundle verified), as ``json.loads`` gives it."""


def prove(
    handle: BinaryIO, limits: BundleLimits, index: int, finding_roots: Sequence[str], spool: BinaryIO | None = None
) -> Iterator[bytes]:
    """A ``proof`` bundle for finding ``index`` of the verified campaign read from ``handle``
    (seekable): a first pass appends the finding's record frames to ``spool`` (a read-write
    binary file the caller owns; in memory without one) and keeps the digests they reference
    and the signature frame, a second copies only the blob frames they reference, so memory
    holds one blob (a large one a chunk at a time) and no record."""
    spool = io.BytesIO() if spool is None else spool
    leaves = [finding_leaf(i, bytes.fromhex(r)) for i, r in enumerate(finding_roots)]
    path = merkle.inclusion_path(leaves, index)
    records = 0
    needed: set[bytes] = set()
    signed = b""
    subject = b""
    version = 1
    for raw in iter_frames(handle, limits):
        if raw.kind == HEADER_KIND:
            version = json.loads(raw.payload)["bundle_version"]
        elif raw.kind == RECORD:
            value = _DECODE(raw.payload)
            if value.get("finding") == index:
                spool.write(frame(RECORD, raw.payload))
                records += 1
                needed.update(bytes.fromhex(ref.digest) for ref in refs(from_json(value)))
        elif raw.kind == SIGNATURE:
            signed = raw.payload
        elif raw.kind == ORIGINAL and finding_of(json.loads(raw.payload)) == index:
            subject = raw.payload
    proof = jcs.dumps({"index": index, "size": len(leaves), "path": [p.hex() for p in path]})
    yield MAGIC
    yield frame(HEADER_KIND, header("proof", version))
    handle.seek(0)
    kept = 0
    for raw in iter_frames(handle, limits):
        if raw.kind == BLOB:
            digest = raw.payload[:DIGEST_BYTES]
        elif raw.kind == WITHHELD:
            digest = bytes.fromhex(json.loads(raw.payload)["digest"])
        elif raw.kind == HEADER_KIND:
            continue
        else:
            break  # the records: every blob frame is before them (section 2)
        if digest in needed:
            kept += 1
            yield from raw.chunks()
    yield from whole(spool)
    yield frame(PROOF, proof)
    yield frame(SIGNATURE, signed)
    if subject:  # version 3: the finding's original subject statement (section 6)
        yield frame(ORIGINAL, subject)
    yield frame(END, jcs.dumps({"frames": 3 + kept + records + (1 if subject else 0)}))
