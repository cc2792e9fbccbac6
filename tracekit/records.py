"""Decode one AgentGuard line into a typed record and the bytes its hash commits to.

Two paths produce identical results (docs/trace-format.md step 3):

* the **fast path** runs when a line is ASCII and short enough that its value count is provably
  within bounds. msgspec decodes the envelope (payload kept raw) and the payload into strict
  Structs, then re-encodes both in sorted order. When the re-encoding equals the bytes read and
  every float token is spelled as Python spells it, the line *is* canonical, so the payload bytes
  as read are the canonical payload and are hashed directly: nothing is re-encoded for hashing.
* the **exact path** handles every other line, and every line the fast path refuses: strict UTF-8,
  Python's ``json`` with duplicate keys, NaN and lone surrogates refused, the generic bounds walk,
  then ``msgspec.convert`` into the same Structs and Python's canonical encoder for the hash.

Findings come only from the exact path, so both paths report the same codes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import msgspec

from tracekit.canonical import agentguard_bytes, floats_spelled_canonically
from tracekit.chain import context_bytes, context_bytes_exact, sha256_hex
from tracekit.errors import Code, Finding, finding
from tracekit.jsonscan import JsonProblem, check_prescan, strict_loads, values_may_exceed
from tracekit.limits import Limits
from tracekit.schema import agentguard as ag

_ENCODE = msgspec.json.Encoder(order="sorted").encode
_ENVELOPE = msgspec.json.Decoder(ag.EventEnvelope).decode
_PAYLOAD_DECODERS = {name: msgspec.json.Decoder(t).decode for name, t in ag.PAYLOAD_TYPES.items()}


class RecordProblem(Exception):
    """A line cannot be accepted; carries the finding."""

    def __init__(self, found: Finding) -> None:
        super().__init__(found.code.value)
        self.finding = found


@dataclass(frozen=True, slots=True)
class HeaderRecord:
    """The decoded header line."""

    line: int
    header: ag.Header
    value: dict[str, Any]
    canonical: bool


@dataclass(frozen=True, slots=True)
class EventRecord:
    """A decoded event line with the hash computed over what was read."""

    line: int
    sequence: int
    event_type: str
    event_hash: str
    previous_event_hash: str
    relative_offset_seconds: int | float | None
    record_type: str
    payload: ag.Payload
    computed_hash: str
    canonical: bool


# ---------------------------------------------------------------------------- the exact path


def _parse_exact(raw: bytes, line: int, limits: Limits) -> tuple[dict[str, Any], bool]:
    """Strictly parse ``raw``; return the object and whether ``raw`` is canonical."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise RecordProblem(finding(Code.LOAD_INVALID_UTF8, line)) from None
    if line == 1 and text.startswith("\ufeff"):
        raise RecordProblem(finding(Code.LOAD_BOM, line))
    try:
        value = strict_loads(text, limits)
    except JsonProblem as problem:
        raise RecordProblem(finding(problem.code, line, **problem.params)) from None
    if type(value) is not dict:
        raise RecordProblem(finding(Code.JSON_NOT_AN_OBJECT, line))
    return value, agentguard_bytes(value) == raw


_SAFE_PATH = re.compile(r"^\$(?:\.[a-z_0-9]{1,64}|\[\d{1,6}\]|\[\.\.\.\])*$")
_LOCATION = re.compile(r" - at `([^`]*)`$")
_MISSING = re.compile(r"^Object missing required field `([a-z_0-9]{1,64})`")


def schema_finding(error: msgspec.ValidationError, line: int) -> Finding:
    """Map a msgspec validation error to a finding without repeating anything from the input.

    msgspec's text can hold an unknown key or an enum value taken from the input, so only the
    kind of error is kept, plus the location when it consists solely of our own field names.
    """
    text = str(error)
    if text.startswith("Object contains unknown field"):
        code = Code.SCHEMA_UNKNOWN_FIELD
    elif text.startswith("Object missing required field"):
        code = Code.SCHEMA_MISSING_FIELD
    elif text.startswith("Expected `") and ", got `" in text:
        code = Code.SCHEMA_WRONG_TYPE
    else:
        code = Code.SCHEMA_INVALID_VALUE
    found = finding(code, line)
    where = _LOCATION.search(text)
    detail = ""
    missing = _MISSING.match(text)
    if missing and missing.group(1) in ag.KNOWN_FIELD_NAMES:
        detail = f" Missing: {missing.group(1)}."
    if where and _SAFE_PATH.match(where.group(1)) and _names_known(where.group(1)):
        detail += f" At {where.group(1)}."
    if detail:
        found = Finding(found.code, found.severity, found.message + detail, line)
    return found


def _names_known(path: str) -> bool:
    return all(name in ag.KNOWN_FIELD_NAMES for name in re.findall(r"\.([a-z_0-9]+)", path))


def _convert(value: Any, kind: type[Any], line: int, prefix: str = "") -> Any:
    try:
        return msgspec.convert(value, kind, strict=True)
    except msgspec.ValidationError as error:
        if prefix:
            error = msgspec.ValidationError(str(error).replace("`$", f"`${prefix}", 1))
        raise RecordProblem(schema_finding(error, line)) from None


# ---------------------------------------------------------------------------- header


def decode_header(raw: bytes, line: int, limits: Limits) -> HeaderRecord:
    """Decode line 1 (always on the exact path: one line, and the root hash needs its values)."""
    value, canonical = _parse_exact(raw, line, limits)
    if value.get("record_type") != "header":
        raise RecordProblem(finding(Code.SCHEMA_WRONG_RECORD_TYPE, line))
    header = _convert(value, ag.Header, line)
    return HeaderRecord(line, header, value, canonical)


# ---------------------------------------------------------------------------- events


def decode_event(
    raw: bytes, line: int, schema_version: int, previous: str, limits: Limits
) -> EventRecord:
    """Decode an event line and hash its schema context with ``previous`` as the chain link.

    ``previous`` is the hash the chain expects (the previous event's ``event_hash``); the hash
    commits to it, so a mismatching ``previous_event_hash`` is reported by the caller first.
    """
    try:
        check_prescan(raw, limits)
    except JsonProblem as problem:
        raise RecordProblem(finding(problem.code, line, **problem.params)) from None
    if raw.isascii() and not values_may_exceed(raw, limits.values):
        fast = _decode_fast(raw, line, schema_version, previous)
        if fast is not None:
            return fast
    return _decode_exact(raw, line, schema_version, previous, limits)


def _decode_fast(raw: bytes, line: int, version: int, previous: str) -> EventRecord | None:
    try:
        env = _ENVELOPE(raw)
        decode_payload = _PAYLOAD_DECODERS.get(env.event_type)
        if decode_payload is None:
            return None
        payload_raw = bytes(env.payload)
        payload = decode_payload(payload_raw)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    if _ENCODE(env) != raw or _ENCODE(payload) != payload_raw:
        return None
    if not floats_spelled_canonically(raw):
        return None
    ctx = context_bytes(
        event_type=env.event_type,
        canonical_payload=payload_raw,
        previous_event_hash=previous,
        relative_offset_seconds=env.relative_offset_seconds,
        schema_version=version,
        sequence=env.sequence,
    )
    return EventRecord(
        line=line,
        sequence=env.sequence,
        event_type=env.event_type,
        event_hash=env.event_hash,
        previous_event_hash=env.previous_event_hash,
        relative_offset_seconds=env.relative_offset_seconds,
        record_type=env.record_type,
        payload=payload,
        computed_hash=sha256_hex(ctx),
        canonical=True,
    )


class _EnvelopeValue(ag.EventEnvelope, forbid_unknown_fields=True, frozen=True):
    """The envelope with the payload left as a parsed object (exact path)."""

    payload: dict[str, Any]  # type: ignore[assignment]


def _decode_exact(
    raw: bytes, line: int, version: int, previous: str, limits: Limits
) -> EventRecord:
    value, canonical = _parse_exact(raw, line, limits)
    env = _convert(value, _EnvelopeValue, line)
    payload_type = ag.PAYLOAD_TYPES.get(env.event_type)
    if payload_type is None:
        raise RecordProblem(finding(Code.SCHEMA_UNKNOWN_EVENT_TYPE, line))
    payload = _convert(env.payload, payload_type, line, prefix=".payload")
    return EventRecord(
        line=line,
        sequence=env.sequence,
        event_type=env.event_type,
        event_hash=env.event_hash,
        previous_event_hash=env.previous_event_hash,
        relative_offset_seconds=env.relative_offset_seconds,
        record_type=env.record_type,
        payload=payload,
        computed_hash=sha256_hex(context_bytes_exact(value, version, previous)),
        canonical=canonical,
    )
