"""Write canonical AgentGuard traces from plain values, re-chaining every hash.

Used by the corpus generator, the metamorphic transforms and the benchmark. It hashes with the
same functions the verifier uses (chain.py), on Python's canonical encoding (the exact path), so a
trace it writes is canonical and verifies. NOTE(threat-model): anyone can do what this module
does; a re-chained forgery is intact by construction, which is why integrity is not authenticity.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tracekit.canonical import agentguard_bytes
from tracekit.chain import (
    context_bytes_exact,
    header_identity,
    policy_snapshot_hash,
    root_hash,
    sha256_hex,
)
from tracekit.schema.agentguard import ZERO_HASH


@dataclass
class DraftEvent:
    """An event before hashing: what a transform edits."""

    event_type: str
    payload: dict[str, Any]
    relative_offset_seconds: int | float | None = None
    sequence: int | None = None
    """None means "its position"; a transform may force another value (invalid transforms)."""


@dataclass
class DraftTrace:
    """A header (without integrity fields) and its events."""

    header: dict[str, Any]
    events: list[DraftEvent] = field(default_factory=list)


def write_trace(draft: DraftTrace, *, keep_event_count: bool = False) -> bytes:
    """Return the canonical JSONL bytes of ``draft`` with every hash recomputed.

    ``event_count``, ``policy_snapshot_hash`` (v2/v3), the chain, ``integrity`` and ``trace_id``
    are all derived; ``keep_event_count`` leaves a deliberately wrong count in place.
    """
    header = {
        k: v for k, v in draft.header.items() if k not in ("trace_id", "integrity", "record_type")
    }
    version = header["schema_version"]
    if not keep_event_count:
        header["event_count"] = len(draft.events)
    if "policy_snapshot" in header:
        header["policy_snapshot_hash"] = policy_snapshot_hash(header["policy_snapshot"])
    previous = ZERO_HASH
    lines: list[bytes] = []
    for position, draft_event in enumerate(draft.events, start=1):
        record = event_record(draft_event, position, previous, version)
        lines.append(agentguard_bytes(record))
        previous = record["event_hash"]
    digest = root_hash(header_identity(header, version), previous)
    full = dict(header)
    full["record_type"] = "header"
    full["trace_id"] = digest
    full["integrity"] = {
        "final_event_hash": previous,
        "hash_algorithm": "sha256",
        "root_hash": digest,
    }
    return b"\n".join([agentguard_bytes(full), *lines]) + b"\n"


def event_record(event: DraftEvent, position: int, previous: str, version: int) -> dict[str, Any]:
    """The full event record with its hash, chained to ``previous``."""
    record: dict[str, Any] = {
        "record_type": "event",
        "sequence": event.sequence if event.sequence is not None else position,
        "event_type": event.event_type,
        "payload": event.payload,
        "previous_event_hash": previous,
        "relative_offset_seconds": event.relative_offset_seconds,
    }
    record["event_hash"] = sha256_hex(context_bytes_exact(record, version, previous))
    return record


def draft_from_values(header: dict[str, Any], events: Sequence[dict[str, Any]]) -> DraftTrace:
    """A draft from parsed header and event records (as json.loads gives them)."""
    return DraftTrace(
        header=dict(header),
        events=[
            DraftEvent(
                event_type=e["event_type"],
                payload=e["payload"],
                relative_offset_seconds=e.get("relative_offset_seconds"),
            )
            for e in events
        ],
    )


def read_draft(data: bytes) -> DraftTrace:
    """Parse a trace's bytes (already verified) into an editable draft."""
    import json

    # Split on "\n" only: str.splitlines() also splits at U+2028, U+0085 and other separators
    # that a valid record may hold raw inside a string (docs/threat-model.md, "Work budget").
    lines = data.decode("utf-8").split("\n")
    values = [json.loads(line) for line in lines if line]
    return draft_from_values(values[0], values[1:])
