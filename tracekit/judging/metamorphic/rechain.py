"""Re-chain a transformed draft into trace bytes, encoding each payload once.

The bytes are exactly :func:`tracekit.formats.agentguard.writer.write_trace`'s (tests/unit/metamorphic/
test_rechain.py holds the two equal on every corpus trace and every transform): an event's line
and its hash context are both Python's canonical JSON of a dict whose keys sort the same way
(docs/trace-format.md step 3), so each is the fixed keys joined with the canonical encoding of
each value. ``write_trace`` encodes the payload twice, once for the context and once for the
line; here it is encoded once and spliced into both, which halves the writing work of a
metamorphic case (docs/threat-model.md, "Work budget").
"""

from __future__ import annotations

from tracekit.formats.agentguard.chain import (
    header_identity,
    policy_snapshot_hash,
    root_hash,
    sha256_hex,
)
from tracekit.formats.agentguard.schema.agentguard import FORMAT_ID, ZERO_HASH
from tracekit.formats.agentguard.writer import DraftTrace
from tracekit.kernel.canonical import agentguard_bytes


def _text(value: object) -> str:
    return agentguard_bytes(value).decode("ascii")


def write_draft(draft: DraftTrace) -> bytes:
    """``write_trace(draft)`` (event count and policy hash derived), payloads encoded once."""
    header = {k: v for k, v in draft.header.items() if k not in ("trace_id", "integrity", "record_type")}
    version = header["schema_version"]
    header["event_count"] = len(draft.events)
    if "policy_snapshot" in header:
        header["policy_snapshot_hash"] = policy_snapshot_hash(header["policy_snapshot"])
    schema = ',"schema":' + _text(FORMAT_ID) + ',"schema_version":' + _text(version)
    previous = ZERO_HASH
    lines: list[bytes] = []
    for position, event in enumerate(draft.events, start=1):
        sequence = _text(event.sequence if event.sequence is not None else position)
        kind = _text(event.event_type)
        middle = ',"payload":' + _text(event.payload) + ',"previous_event_hash":"' + previous + '"'
        offset = ',"relative_offset_seconds":' + _text(event.relative_offset_seconds)
        context = '{"event_type":' + kind + middle + offset + schema + ',"sequence":' + sequence + "}"
        digest = sha256_hex(context.encode("ascii"))
        line = ('{"event_hash":"' + digest + '","event_type":' + kind + middle + ',"record_type":"event"'
                + offset + ',"sequence":' + sequence + "}")
        lines.append(line.encode("ascii"))
        previous = digest
    digest = root_hash(header_identity(header, version), previous)
    full = dict(header)
    full["record_type"] = "header"
    full["trace_id"] = digest
    full["integrity"] = {"final_event_hash": previous, "hash_algorithm": "sha256", "root_hash": digest}
    return b"\n".join([agentguard_bytes(full), *lines]) + b"\n"
