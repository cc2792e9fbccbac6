"""Event hashes, the chain walk's arithmetic and the root digest: pure functions (docs step 7)."""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from tracekit.formats.agentguard.schema.agentguard import FORMAT_ID
from tracekit.kernel.canonical import agentguard_bytes

_ENCODE = msgspec.json.Encoder(order="sorted").encode

HEADER_UNCOMMITTED = ("record_type", "trace_id", "integrity")
POLICY_KEYS = ("policy_snapshot", "policy_snapshot_hash")


def sha256_hex(data: bytes) -> str:
    """Lowercase hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


_CONTEXT_HEAD = b'{"event_type":"%s","payload":'
_RECORD_TYPE = b',"record_type":"event"'
_SEQUENCE = b',"sequence":'
_SCHEMA = b',"schema":"' + FORMAT_ID.encode("ascii") + b'","schema_version":%d'


def context_hash_in_place(
    raw: bytes, payload_start: int, payload_end: int, event_type: str, schema_version: int
) -> str:
    """sha256 of the schema context (step 7.3) of a line already proved canonical (step 3),
    hashing its payload bytes where they lie instead of re-encoding or copying them.

    In a canonical event line the payload is followed by exactly
    ``,"previous_event_hash":"H","record_type":"event","relative_offset_seconds":X,"sequence":N}``
    and the context's canonical bytes are ``{"event_type":"T","payload":`` + payload +
    ``,"previous_event_hash":"H","relative_offset_seconds":X,"schema":...,"schema_version":V,
    "sequence":N}``: the same tail without ``record_type`` and with the schema keys inserted in
    their sorted place. The caller has checked that H is the hash the chain expects and T is a
    known event type; a line whose record_type is not "event" keeps it here, so its hash cannot
    match and the exact path reports it.
    """
    head = _HEADS.get(event_type)
    if head is None:
        head = _HEADS[event_type] = _CONTEXT_HEAD % event_type.encode("ascii")
    schema = _SCHEMAS.get(schema_version)
    if schema is None:
        schema = _SCHEMAS[schema_version] = _SCHEMA % schema_version
    digest = hashlib.sha256(head)
    digest.update(memoryview(raw)[payload_start:payload_end])
    tail = raw[payload_end:].replace(_RECORD_TYPE, b"", 1)
    cut = tail.rindex(_SEQUENCE)
    digest.update(tail[:cut] + schema + tail[cut:])
    return digest.hexdigest()


# Per event type and schema version; the callers pass only the ten event types and three
# versions, so these stay tiny.
_HEADS: dict[str, bytes] = {}
_SCHEMAS: dict[int, bytes] = {}


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
