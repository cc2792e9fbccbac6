"""Event hashes, the chain walk's arithmetic and the root digest: pure functions (docs step 7)."""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from tracekit.canonical import agentguard_bytes
from tracekit.schema.agentguard import FORMAT_ID

_ENCODE = msgspec.json.Encoder(order="sorted").encode

HEADER_UNCOMMITTED = ("record_type", "trace_id", "integrity")
POLICY_KEYS = ("policy_snapshot", "policy_snapshot_hash")


class _Context(msgspec.Struct):
    """The schema context an event hash commits to; fields encode in sorted order."""

    event_type: str
    payload: msgspec.Raw
    previous_event_hash: str
    relative_offset_seconds: int | float | None
    schema: str
    schema_version: int
    sequence: int


def sha256_hex(data: bytes) -> str:
    """Lowercase hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def context_bytes(
    *,
    event_type: str,
    canonical_payload: bytes,
    previous_event_hash: str,
    relative_offset_seconds: float | None,
    schema_version: int,
    sequence: int,
) -> bytes:
    """Canonical bytes of an event's schema context (step 7.2), from a canonical payload.

    Every argument other than the payload is ASCII-only and already validated (hex digests, a
    known event type, integers, a finite offset whose spelling step 3 checked), so msgspec's
    sorted encoding of the context equals Python's canonical encoding.
    """
    return _ENCODE(
        _Context(
            event_type=event_type,
            payload=msgspec.Raw(canonical_payload),
            previous_event_hash=previous_event_hash,
            relative_offset_seconds=relative_offset_seconds,
            schema=FORMAT_ID,
            schema_version=schema_version,
            sequence=sequence,
        )
    )


def context_bytes_exact(record: dict[str, Any], schema_version: int, previous: str) -> bytes:
    """The same context built from parsed values with Python's canonical encoder (exact path)."""
    return agentguard_bytes(
        {
            "schema": FORMAT_ID,
            "schema_version": schema_version,
            "sequence": record.get("sequence"),
            "event_type": record.get("event_type"),
            "payload": record.get("payload"),
            "previous_event_hash": previous,
            "relative_offset_seconds": record.get("relative_offset_seconds"),
        }
    )


def header_identity(header: dict[str, Any], schema_version: int) -> dict[str, Any]:
    """The header fields the root hash commits to (step 7.4)."""
    dropped = HEADER_UNCOMMITTED + (POLICY_KEYS if schema_version == 1 else ())
    return {key: value for key, value in header.items() if key not in dropped}


def root_hash(identity: dict[str, Any], final_event_hash: str) -> str:
    """sha256 of the canonical ``{"final_event_hash": ..., "header": identity}``."""
    return sha256_hex(agentguard_bytes({"header": identity, "final_event_hash": final_event_hash}))


def policy_snapshot_hash(snapshot: dict[str, Any]) -> str:
    """sha256 of the canonical policy snapshot (step 7.1)."""
    return sha256_hex(agentguard_bytes(snapshot))
