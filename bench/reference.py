"""BASELINE, not tracekit: the straightforward verifier the benchmark compares tracekit against.

It verifies as upstream AgentGuard does (docs/trace-format.md steps 1-7, leniently): a bounded
``readline`` loader, stdlib ``json.loads`` per line, an iterative bounds walk, the exact key sets
of header and events, and ``json.dumps(ensure_ascii=True, sort_keys=True, separators=(",", ":"))``
as the canonical form for every SHA-256 of the chain and the root. It checks nothing beyond the
chain and the structure (no payload schema, no duplicate keys, no canonical-form notices), so it
is *less* strict than tracekit; the benchmark only uses it for timing and for agreement on the
chain verdict and the root hash.

Usage: ``python bench/reference.py TRACE...`` exits 0 when every trace verifies, 2 otherwise.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from typing import Any, BinaryIO

FORMAT_ID = "agentguard.execution-trace"
ZERO_HASH = "0" * 64
TOTAL_BYTES, LINE_BYTES, EVENTS = 16 * 1024 * 1024, 1024 * 1024, 10_000
DEPTH, VALUES, STRING_CHARS, DIFF_CHARS, LIST_ITEMS, KEY_CHARS = 64, 100_000, 4096, 32_768, 4096, 4096
HEADER_KEYS = {
    "record_type", "trace_id", "integrity", "execution_id", "created_at", "source_execution_type",
    "agentguard_version", "agentguard_commit", "benchmark_id", "benchmark_version", "task_id",
    "agent_adapter", "agent_name", "agent_model", "agent_version", "configuration_hash",
    "policy_summary", "sandbox_summary", "source_report_id", "source_manifest_id",
    "source_artifacts", "event_count", "schema", "schema_version",
}
POLICY_KEYS = {"policy_snapshot", "policy_snapshot_hash"}
EVENT_KEYS = {"record_type", "sequence", "event_type", "payload", "previous_event_hash",
              "event_hash", "relative_offset_seconds"}


class Invalid(Exception):
    """The trace does not verify; the message says why."""


@dataclass
class Result:
    ok: bool
    reason: str = ""
    root: str | None = None
    events: int = 0


def canonical(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=True, sort_keys=True, separators=(",", ":")).encode()


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_bounds(value: Any) -> None:
    """Upstream's iterative bounds walk (docs/trace-format.md step 2.5)."""
    nodes = 0
    stack = [(value, 0, False)]
    while stack:
        item, depth, is_diff = stack.pop()
        nodes += 1
        if nodes > VALUES:
            raise Invalid("node limit")
        if depth > DEPTH:
            raise Invalid("depth limit")
        if isinstance(item, str):
            if len(item) > (DIFF_CHARS if is_diff else STRING_CHARS):
                raise Invalid("string limit")
        elif isinstance(item, list):
            if len(item) > LIST_ITEMS:
                raise Invalid("list limit")
            stack.extend((child, depth + 1, is_diff) for child in item)
        elif isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str) or len(key) > KEY_CHARS:
                    raise Invalid("key limit")
                stack.append((child, depth + 1, key == "unified_diff"))


def read_records(stream: BinaryIO) -> list[dict[str, Any]]:
    """Upstream's loader (docs/trace-format.md steps 1-2); keeps every record, as upstream does."""
    records = []
    total = 0
    number = 0
    while True:
        raw = stream.readline(LINE_BYTES + 1)
        if not raw:
            break
        number += 1
        total += len(raw)
        if total > TOTAL_BYTES:
            raise Invalid("total bytes")
        if number > EVENTS + 1:
            raise Invalid("event limit")
        if len(raw) > LINE_BYTES:
            raise Invalid("line too long")
        if not raw.endswith(b"\n"):
            raise Invalid("final newline missing")
        body = raw[:-1]
        if body.endswith(b"\r"):
            body = body[:-1]
        try:
            value = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            raise Invalid(f"invalid JSON on line {number}") from None
        if not isinstance(value, dict):
            raise Invalid(f"line {number} not an object")
        check_bounds(value)
        records.append(value)
    if len(records) < 2:
        raise Invalid("header and events required")
    return records


def verify_records(records: list[dict[str, Any]]) -> str:
    """Structure, chain and root (docs/trace-format.md steps 4, 6 and 7); returns the root hash."""
    header, events = records[0], records[1:]
    version = header.get("schema_version")
    expected = HEADER_KEYS | (POLICY_KEYS if version in (2, 3) else set())
    if header.get("record_type") != "header" or set(header) != expected:
        raise Invalid("header keys")
    if header["schema"] != FORMAT_ID or version not in (1, 2, 3):
        raise Invalid("schema")
    integrity = header["integrity"]
    if not isinstance(integrity, dict) or integrity.get("hash_algorithm") != "sha256":
        raise Invalid("hash algorithm")
    if version in (2, 3) and sha256_hex(canonical(header["policy_snapshot"])) != header[
        "policy_snapshot_hash"
    ]:
        raise Invalid("policy snapshot hash")
    if header["event_count"] != len(events):
        raise Invalid("event count")
    previous = ZERO_HASH
    for position, event in enumerate(events, start=1):
        if set(event) != EVENT_KEYS or event["record_type"] != "event":
            raise Invalid(f"event {position} keys")
        if event["sequence"] != position or not isinstance(event["payload"], dict):
            raise Invalid(f"event {position} sequence")
        if event["previous_event_hash"] != previous:
            raise Invalid(f"chain broken at event {position}")
        context = {
            "schema": FORMAT_ID,
            "schema_version": version,
            "sequence": event["sequence"],
            "event_type": event["event_type"],
            "payload": event["payload"],
            "previous_event_hash": previous,
            "relative_offset_seconds": event["relative_offset_seconds"],
        }
        if sha256_hex(canonical(context)) != event["event_hash"]:
            raise Invalid(f"event {position} hash")
        previous = event["event_hash"]
    if integrity.get("final_event_hash") != previous:
        raise Invalid("final event hash")
    dropped = {"record_type", "trace_id", "integrity"} | (POLICY_KEYS if version == 1 else set())
    identity = {k: v for k, v in header.items() if k not in dropped}
    root = sha256_hex(canonical({"header": identity, "final_event_hash": previous}))
    if integrity.get("root_hash") != root or header["trace_id"] != root:
        raise Invalid("root hash")
    return root


def verify_path(path: str) -> Result:
    """Verify one trace file; never raises on bad data."""
    try:
        with open(path, "rb") as stream:
            records = read_records(stream)
        root = verify_records(records)
    except Invalid as error:
        return Result(False, str(error))
    except (KeyError, TypeError, AttributeError):
        return Result(False, "malformed record")
    return Result(True, root=root, events=len(records) - 1)


def main(argv: list[str]) -> int:
    worst = 0
    for path in argv:
        result = verify_path(path)
        print(f"{path}: {'intact' if result.ok else 'invalid: ' + result.reason}")
        worst = max(worst, 0 if result.ok else 2)
    return worst


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
