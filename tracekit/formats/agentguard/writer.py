"""Write canonical AgentGuard traces from plain values, re-chaining every hash.

Used by the corpus generator, the metamorphic transforms and the benchmark. It hashes with the
same functions the verifier uses (chain.py), on Python's canonical encoding (the exact path), so a
trace it writes is canonical and verifies. NOTE(threat-model): anyone can do what this module
does; a re-chained forgery is intact by construction, which is why integrity is not authenticity.
"""

from __future__ import annotations

import marshal
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tracekit.formats.agentguard.chain import (
    context_bytes_exact,
    header_identity,
    policy_snapshot_hash,
    root_hash,
    sha256_hex,
)
from tracekit.formats.agentguard.schema.agentguard import ZERO_HASH
from tracekit.kernel.canonical import agentguard_bytes


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
    owned: bool = field(default=False, compare=False)
    """True for a draft built for one transform alone (:func:`thaw`): the first
    ``metamorphic.edits.clone`` hands it over instead of copying it, so a sweep holds one
    editable copy of a large trace, not two."""


def freeze(draft: DraftTrace) -> bytes:
    """A compact, exact snapshot of ``draft`` (``marshal`` of its plain values; about a quarter
    of the parsed objects' size). Only ever read back by :func:`thaw` in the same process."""
    return marshal.dumps(
        (
            draft.header,
            [(e.event_type, e.payload, e.relative_offset_seconds, e.sequence) for e in draft.events],
        )
    )


def thaw(frozen: bytes) -> DraftTrace:
    """A fresh, owned draft from :func:`freeze`'s snapshot."""
    header, events = marshal.loads(frozen)
    return DraftTrace(
        header=header,
        events=[DraftEvent(kind, payload, offset, sequence) for kind, payload, offset, sequence in events],
        owned=True,
    )


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
    import io
    import json

    # Split on "\n" only (bytes lines do): str.splitlines() would also split at U+2028, U+0085
    # and other separators a valid record may hold raw inside a string. Lazily, line by line,
    # so no decoded copy of the whole trace is held next to the parsed values.
    values = [json.loads(line) for line in io.BytesIO(data) if line.strip(b"\r\n")]
    return draft_from_values(values[0], values[1:])
