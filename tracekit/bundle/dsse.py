"""The in-toto Statement v1 and its DSSE envelope (docs/bundle-format.md section 6)."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from msgspec import Struct

PAYLOAD_TYPE = "application/vnd.in-toto+json"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "urn:tracekit:predicate:bundle:v1"
"""tracekit's own detailed predicate (docs/bundle-format.md section 6): a URN, so it names no host
anyone could register, and is documented there."""
LEGACY_PREDICATE_TYPE = "https://tracekit.invalid/bundle-predicate/v1"
"""The type bundles sealed before the SHA-256 root carry: their root subject has only ``blake3``
(section 7, step 8); they keep verifying."""
ROOT_SUBJECT = "tracekit-bundle-root"


def pae(payload_type: str, payload: bytes) -> bytes:
    """DSSE v1 pre-authentication encoding: ``DSSEv1 SP LEN(type) SP type SP LEN(body) SP body``.

    Signing the type with the body stops a signature over one payload type being replayed as
    another."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def unb64(text: object) -> bytes | None:
    """Strict standard base64: None unless ``text`` re-encodes to itself (docs/bundle-format.md,
    "Notation"), so no two texts decode to one value."""
    if not isinstance(text, str) or not text.isascii():
        return None
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    return data if b64(data) == text else None


class Signature(Struct, frozen=True):
    keyid: str
    sig: bytes


class Envelope(Struct, frozen=True):
    payload: bytes
    payload_type: str
    signatures: tuple[Signature, ...]


def envelope_json(envelope: Envelope) -> dict[str, Any]:
    """Standard DSSE JSON: any DSSE implementation reads it."""
    return {
        "payload": b64(envelope.payload),
        "payloadType": envelope.payload_type,
        "signatures": [{"keyid": s.keyid, "sig": b64(s.sig)} for s in envelope.signatures],
    }


def root_subject(root: bytes, root_sha256: bytes | None) -> dict[str, Any]:
    """The root subject: both roots (section 5), or only BLAKE3 in a legacy bundle."""
    digest = {"blake3": root.hex()}
    if root_sha256 is not None:
        digest["sha256"] = root_sha256.hex()
    return {"name": ROOT_SUBJECT, "digest": digest}


def statement(
    root: bytes,
    originals: list[tuple[str, str]],
    predicate: dict[str, Any],
    root_sha256: bytes | None = None,
) -> dict[str, Any]:
    """The Statement v1: the bundle root, then each finding's original (BLAKE3, SHA-256)."""
    subject: list[dict[str, Any]] = [root_subject(root, root_sha256)]
    for index, (b3, sha) in enumerate(originals):
        subject.append({"name": f"original-{index}", "digest": {"blake3": b3, "sha256": sha}})
    return {
        "_type": STATEMENT_TYPE,
        "subject": subject,
        "predicateType": PREDICATE_TYPE if root_sha256 is not None else LEGACY_PREDICATE_TYPE,
        "predicate": predicate,
    }
