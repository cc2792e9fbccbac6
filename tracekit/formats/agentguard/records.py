"""Decode one AgentGuard line into a typed record and the bytes its hash commits to.

Two paths produce identical results (docs/trace-format.md step 3):

* the **fast path** runs when a line is ASCII and short enough that its value count is provably
  within bounds. msgspec decodes the envelope (payload kept raw) and the payload into strict
  Structs, then re-encodes both in sorted order (non-ASCII escaped as Python escapes it, see
  :func:`same_as_read`). When the re-encoding equals the bytes read and every float value is one
  msgspec and Python spell alike, the line *is* canonical, so the payload bytes as read are the
  canonical payload and are hashed directly: nothing is re-encoded for hashing.
  docs/performance.md lists the exact conditions and why each is needed.
* the **exact path** handles every other line, and every line the fast path refuses: strict UTF-8,
  Python's ``json`` with duplicate keys, NaN and lone surrogates refused, the generic bounds walk,
  then ``msgspec.convert`` into the same Structs and Python's canonical encoder for the hash.

Findings come only from the exact path, so both paths report the same codes.
"""

from __future__ import annotations

import re
from math import copysign
from typing import Any

import msgspec

from tracekit.formats.agentguard.chain import context_bytes_exact, context_hash_in_place, sha256_hex
from tracekit.formats.agentguard.fastpath import (
    AFTER_PAYLOAD,
    ENCODE,
    FAST_EVENT_TYPES,
    FLOAT_VALUES,
    PAYLOAD_KEY,
    floats_alike,
    line_decoder,
    same_as_read,
    schema_within,
)
from tracekit.formats.agentguard.schema import agentguard as ag
from tracekit.kernel.canonical import agentguard_bytes
from tracekit.kernel.errors import Code, Finding, finding
from tracekit.kernel.jsonscan import JsonProblem, check_prescan, strict_loads, values_may_exceed
from tracekit.kernel.limits import DEFAULT_LIMITS, Limits


class RecordProblem(Exception):
    """A line cannot be accepted; carries the finding."""

    def __init__(self, found: Finding) -> None:
        super().__init__(found.code.value)
        self.finding = found


class HeaderRecord(msgspec.Struct, frozen=True):
    """The decoded header line."""

    line: int
    header: ag.Header
    value: dict[str, Any]
    canonical: bool


class EventRecord(msgspec.Struct, frozen=True):
    """A decoded event line with the hash computed over what was read.

    A frozen Struct rather than a frozen dataclass: it is built once per event, and a Struct
    is built in C (about 0.2 us against 4 us for a frozen dataclass of ten fields).
    """

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
    raw: bytes, line: int, schema_version: int, previous: str | None, limits: Limits
) -> EventRecord:
    """Decode an event line and hash its schema context with ``previous`` as the chain link.

    ``previous`` is the hash the chain expects (the previous event's ``event_hash``); the hash
    commits to it, so a mismatching ``previous_event_hash`` is reported by the caller first.
    None hashes with the ``previous_event_hash`` the line records (the parallel verifier's
    workers, which do not know the chain yet): the result is the same whenever the link holds,
    and when it does not the caller reports the broken link before it looks at the hash.
    """
    fast = decode_fast(raw, line, schema_version, previous, limits)
    if fast is not None:
        return fast
    return decode_exact(raw, line, schema_version, previous, limits)


def decode_fast(
    raw: bytes, line: int, schema_version: int, previous: str | None, limits: Limits
) -> EventRecord | None:
    """:func:`decode_event` when the fast path proves the line canonical (step 3), else None.

    A record from here also proves that no plain float field of the line (a field whose type
    is a number or null, read by fastpath.FLOAT_VALUES) holds a negative zero: such a line takes
    the exact path. So a caller may skip the payload rules that only refuse a negative zero in
    such fields (semantics._ZERO_ONLY; tests/unit/test_verify_parallel.py checks that those
    types have no other float fields).
    """
    # Step 2.1 (depth) guards the exact path's decoder; the fast path's decoder is typed, so it
    # refuses a container where the schema has none without descending into it, and a payload
    # type that admits free-form values never takes the fast path (fastpath.py).
    if (
        raw.isascii()
        and (limits is DEFAULT_LIMITS or schema_within(limits))
        and (len(raw) < 2 * limits.values - 1 or not values_may_exceed(raw, limits.values))
    ):
        return _decode_fast(raw, line, schema_version, previous)
    return None


def decode_exact(
    raw: bytes, line: int, schema_version: int, previous: str | None, limits: Limits
) -> EventRecord:
    """:func:`decode_event` on the exact path: every finding comes from here."""
    try:
        check_prescan(raw, limits)
    except JsonProblem as problem:
        raise RecordProblem(finding(problem.code, line, **problem.params)) from None
    return _decode_exact(raw, line, schema_version, previous, limits)


# ---------------------------------------------------------------------------- the fast path
# Step 3. Each check below proves one part of "this line is already canonical"; a line that
# fails any of them is not rejected here but handed to the exact path, which decides.


def _decode_fast(raw: bytes, line: int, version: int, previous: str | None) -> EventRecord | None:
    try:
        record = (_DECODE or _decoder())(raw)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    if previous is None:
        # The recorded link stands in for the expected one; it dropped its hex pattern in the
        # line Struct, so prove it here (the exact path would refuse it otherwise).
        previous = record.previous_event_hash
        if _HEX64(previous) is None:
            return None
    encoded = ENCODE(record)
    if encoded != raw and not same_as_read(encoded, raw):
        return None
    for value in FLOAT_VALUES[type(record)](record):
        if type(value) is float:
            if value == 0.0:
                if copysign(1.0, value) < 0:  # -0.0: the exact path (see decode_fast)
                    return None
            elif not 1e-4 <= abs(value) < 1e16:  # as in floats_alike
                return None
        elif value is not None and type(value) is not int and not floats_alike(value):
            return None
    # The line is canonical, so its keys are sorted: event_hash (hex) and event_type come before
    # the payload, previous_event_hash, record_type, relative_offset_seconds and sequence after.
    # A canonical string never holds `,"` (a quote inside a string is always escaped), so the
    # first `,"payload":` and the last `,"previous_event_hash":"` are the envelope's own keys,
    # and the bytes between them are the canonical payload exactly as read (step 7.2).
    event_type = FAST_EVENT_TYPES[type(record)]
    computed = context_hash_in_place(
        raw, raw.index(PAYLOAD_KEY) + len(PAYLOAD_KEY), raw.rindex(AFTER_PAYLOAD), event_type, version
    )
    # Step 7.2-7.3 hold, which also proves both chain hashes are lowercase hex (they dropped
    # their pattern in fastpath._build_fast_path); a broken link or hash goes to the exact path, which
    # reports it after the schema checks.
    if record.previous_event_hash != previous or record.event_hash != computed:
        return None
    # Positional, in field order: this runs once per event on the hot path.
    return EventRecord(
        line,
        record.sequence,
        event_type,
        record.event_hash,
        record.previous_event_hash,
        record.relative_offset_seconds,
        record.record_type,
        record.payload,
        computed,
        True,
    )


_DECODE: Any = None
_HEX64 = re.compile(r"[0-9a-f]{64}\Z").match
"""The pattern of schema.common.Hex64."""


def _decoder() -> Any:
    global _DECODE
    _DECODE = line_decoder()
    return _DECODE


class _EnvelopeValue(ag.EventEnvelope, forbid_unknown_fields=True, frozen=True):
    """The envelope with the payload left as a parsed object (exact path)."""

    payload: dict[str, Any]  # type: ignore[assignment]


def _decode_exact(
    raw: bytes, line: int, version: int, previous: str | None, limits: Limits
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
        computed_hash=sha256_hex(
            context_bytes_exact(value, version, env.previous_event_hash if previous is None else previous)
        ),
        canonical=canonical,
    )
