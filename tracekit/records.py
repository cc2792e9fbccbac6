"""Decode one AgentGuard line into a typed record and the bytes its hash commits to.

Two paths produce identical results (docs/trace-format.md step 3):

* the **fast path** runs when a line is ASCII and short enough that its value count is provably
  within bounds. msgspec decodes the envelope (payload kept raw) and the payload into strict
  Structs, then re-encodes both in sorted order (non-ASCII escaped as Python escapes it, see
  :func:`_same_as_read`). When the re-encoding equals the bytes read and every float value is one
  msgspec and Python spell alike, the line *is* canonical, so the payload bytes as read are the
  canonical payload and are hashed directly: nothing is re-encoded for hashing.
  docs/performance.md lists the exact conditions and why each is needed.
* the **exact path** handles every other line, and every line the fast path refuses: strict UTF-8,
  Python's ``json`` with duplicate keys, NaN and lone surrogates refused, the generic bounds walk,
  then ``msgspec.convert`` into the same Structs and Python's canonical encoder for the hash.

Findings come only from the exact path, so both paths report the same codes.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Union

import msgspec
import msgspec.inspect as mi

from tracekit.canonical import agentguard_bytes
from tracekit.chain import context_bytes, context_bytes_exact, sha256_hex
from tracekit.errors import Code, Finding, finding
from tracekit.jsonscan import JsonProblem, check_prescan, strict_loads, values_may_exceed
from tracekit.limits import DEFAULT_LIMITS, Limits
from tracekit.schema import agentguard as ag

_ENCODE = msgspec.json.Encoder(order="sorted").encode


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
    if (
        raw.isascii()
        and (limits is DEFAULT_LIMITS or _schema_within(limits))
        and not values_may_exceed(raw, limits.values)
    ):
        fast = _decode_fast(raw, line, schema_version, previous)
        if fast is not None:
            return fast
    return _decode_exact(raw, line, schema_version, previous, limits)


# ---------------------------------------------------------------------------- the fast path
# Step 3. Each check below proves one part of "this line is already canonical"; a line that
# fails any of them is not rejected here but handed to the exact path, which decides.


def _schema_within(limits: Limits) -> bool:
    """True when the typed Structs bound strings, lists and keys at least as tightly as
    ``limits`` (step 2.5); with looser Structs a typed decode could accept what the walk refuses."""
    return (
        limits.string_chars >= DEFAULT_LIMITS.string_chars
        and limits.diff_chars >= DEFAULT_LIMITS.diff_chars
        and limits.list_items >= DEFAULT_LIMITS.list_items
        and limits.key_chars >= DEFAULT_LIMITS.key_chars
    )


def _escape_non_ascii(error: UnicodeError) -> tuple[str, int]:
    """Codec error handler: ``\\uXXXX`` as Python's json writes it (lowercase, surrogate pairs)."""
    assert isinstance(error, UnicodeEncodeError)
    run = error.object[error.start : error.end]
    escaped = _ESCAPED_RUNS.get(run)
    if escaped is None:
        parts = []
        for char in run:
            code = ord(char)
            if code > 0xFFFF:
                code -= 0x10000
                parts.append(f"\\u{0xD800 | (code >> 10):04x}\\u{0xDC00 | (code & 0x3FF):04x}")
            else:
                parts.append(f"\\u{code:04x}")
        escaped = "".join(parts)
        if len(_ESCAPED_RUNS) >= 4096:  # bounded: hostile input cannot grow it
            _ESCAPED_RUNS.clear()
        _ESCAPED_RUNS[run] = escaped
    return escaped, error.end


_ESCAPED_RUNS: dict[str, str] = {}
codecs.register_error("tracekit.json_ascii", _escape_non_ascii)


def _same_as_read(encoded: bytes, raw: bytes) -> bool:
    """True when msgspec's sorted encoding ``encoded``, escaped as Python escapes, equals ``raw``.

    msgspec and Python's ``ensure_ascii`` encoder escape ``"``, ``\\`` and U+0000-U+001F alike;
    from U+007F up msgspec writes raw UTF-8 where Python writes ``\\uXXXX``. Outside strings
    msgspec's output is printable ASCII, so escaping every non-ASCII character and U+007F of it
    gives exactly Python's bytes.
    """
    if b"\x7f" in encoded:  # ASCII, so it must be escaped before the first comparison
        encoded = encoded.replace(b"\x7f", b"\\u007f")
    if encoded == raw:
        return True
    if encoded.isascii():
        return False
    return encoded.decode("utf-8").encode("ascii", "tracekit.json_ascii") == raw


def _floats_alike(value: Any) -> bool:
    """True when msgspec spells every float in ``value`` as Python's ``repr`` does.

    Both write the shortest round-trip digits, positionally (``X.0`` when integral) for 0.0,
    -0.0 and 1e-4 <= |x| < 1e16; outside that range they may differ (``1e-05``/``0.00001``,
    ``1e+16``/``1e16``), so any such float sends the line to the exact path. Only the fields
    whose type admits a float are visited (:data:`_FLOAT_FIELDS`).
    """
    kind = type(value)
    if kind is float:
        return value == 0.0 or 1e-4 <= abs(value) < 1e16
    if not _DECODE_LINE:
        _build_fast_path()
    names = _FLOAT_FIELDS.get(kind)
    if names is not None:
        for name in names:
            item = getattr(value, name)
            if item is not None and type(item) is not int and not _floats_alike(item):
                return False
        return True
    if kind is list:
        return all(_floats_alike(item) for item in value)
    if kind is dict:
        return all(_floats_alike(item) for item in value.values())
    return True


_LEAF_TYPES = (mi.StrType, mi.IntType, mi.BoolType, mi.NoneType, mi.LiteralType, mi.RawType)


def _inspect(kind: mi.Type, fields: dict[type, tuple[str, ...]], free: set[type]) -> tuple[bool, bool]:
    """(may hold a float, may hold a free-form value) for a type from ``msgspec.inspect``.

    Fills ``fields`` with the float-bearing field names of every Struct met; any type this does
    not know counts as free-form, which keeps its payload type off the fast path.
    """
    if isinstance(kind, _LEAF_TYPES):
        return False, False
    if isinstance(kind, mi.FloatType):
        return True, False
    if isinstance(kind, mi.UnionType):
        found = [_inspect(member, fields, free) for member in kind.types]
        return any(f for f, _ in found), any(a for _, a in found)
    if isinstance(kind, mi.ListType):
        return _inspect(kind.item_type, fields, free)
    if isinstance(kind, mi.DictType) and isinstance(kind.key_type, mi.StrType):
        return _inspect(kind.value_type, fields, free)
    if isinstance(kind, mi.StructType):
        if kind.cls not in fields:
            names = []
            for field in kind.fields:
                has_float, has_free = _inspect(field.type, fields, free)
                if has_float:
                    names.append(field.name)
                if has_free:
                    free.add(kind.cls)
            fields[kind.cls] = tuple(names)
        return bool(fields[kind.cls]), kind.cls in free
    return True, True


_CHAIN_FIELDS = ("event_hash", "previous_event_hash")


def _build_fast_path() -> Any:
    """Fill the fast path's tables on first use (kept out of import: ``tracekit --help``);
    return the decoder of a whole line.

    One tagged Struct per event type holds the envelope fields plus its typed payload, so a
    whole line decodes in one call (msgspec picks the Struct by ``event_type``) and re-encodes
    in one call. Payload types holding a free-form value (``Any``) get no Struct: such values
    are bounded only by the exact path's walk (step 2.5).
    """
    fields: dict[type, tuple[str, ...]] = {}
    free: set[type] = set()
    # The two chain hashes drop their hex pattern here (a regex per field is a third of the
    # decode): _decode_fast accepts a line only when both equal hashes it already trusts.
    envelope = [
        (f.name, str if f.name in _CHAIN_FIELDS else f.type)
        for f in msgspec.structs.fields(ag.EventEnvelope)
        if f.name not in ("event_type", "payload")
    ]
    lines: dict[type, str] = {}
    floats: dict[type, Any] = {}
    for name, kind in ag.PAYLOAD_TYPES.items():
        if _inspect(mi.type_info(kind), fields, free)[1]:
            continue
        line_type = msgspec.defstruct(
            f"{kind.__name__}Line",
            [*envelope, ("payload", kind)],
            tag_field="event_type",
            tag=name,
            forbid_unknown_fields=True,
            frozen=True,
        )
        info = mi.type_info(line_type)
        _inspect(info, fields, free)
        lines[line_type] = name
        assert isinstance(info, mi.StructType)
        floats[line_type] = _float_getter(_float_paths(info, fields))
    decoder = msgspec.json.Decoder(Union[tuple(lines)])  # type: ignore[valid-type]
    _FLOAT_FIELDS.update((k, v) for k, v in fields.items() if v)
    _FAST_EVENT_TYPES.update(lines)
    _FLOAT_VALUES.update(floats)
    _DECODE_LINE.append(decoder.decode)
    return decoder.decode


def _float_paths(kind: mi.StructType, fields: dict[type, tuple[str, ...]]) -> list[str]:
    """Dotted paths to every float-bearing value, descending only through plain Struct fields
    (an optional Struct, a list or a dict is a leaf, checked by :func:`_floats_alike`)."""
    paths = []
    for field in kind.fields:
        if field.name in fields[kind.cls]:
            if isinstance(field.type, mi.StructType):
                paths += [f"{field.name}.{sub}" for sub in _float_paths(field.type, fields)]
            else:
                paths.append(field.name)
    return paths


def _float_getter(paths: list[str]) -> Any:
    """A C-level getter returning the tuple of values at ``paths``."""
    if len(paths) == 1:
        single = attrgetter(paths[0])
        return lambda value: (single(value),)
    return attrgetter(*paths)


_FLOAT_FIELDS: dict[type, tuple[str, ...]] = {}
"""Float-bearing field names per Struct (filled by :func:`_build_fast_path`)."""
_FAST_EVENT_TYPES: dict[type, str] = {}
"""The fast path's line Structs and their event types."""
_FLOAT_VALUES: dict[type, Any] = {}
"""A getter of each line Struct's float-bearing values."""
_DECODE_LINE: list[Any] = []
"""The decoder of a whole line, once built."""
_PAYLOAD_KEY = b',"payload":'
_AFTER_PAYLOAD = b',"previous_event_hash":"'


def _decode_fast(raw: bytes, line: int, version: int, previous: str) -> EventRecord | None:
    decode = _DECODE_LINE[0] if _DECODE_LINE else _build_fast_path()
    try:
        record = decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    if not _same_as_read(_ENCODE(record), raw):
        return None
    for value in _FLOAT_VALUES[type(record)](record):
        if type(value) is float:
            if not (value == 0.0 or 1e-4 <= abs(value) < 1e16):  # as in _floats_alike
                return None
        elif value is not None and type(value) is not int and not _floats_alike(value):
            return None
    # The line is canonical, so its keys are sorted: event_hash (hex) and event_type come before
    # the payload, previous_event_hash, record_type, relative_offset_seconds and sequence after.
    # A canonical string never holds `,"` (a quote inside a string is always escaped), so the
    # first `,"payload":` and the last `,"previous_event_hash":"` are the envelope's own keys,
    # and the bytes between them are the canonical payload exactly as read (step 7.2).
    payload_raw = raw[raw.index(_PAYLOAD_KEY) + len(_PAYLOAD_KEY) : raw.rindex(_AFTER_PAYLOAD)]
    event_type = _FAST_EVENT_TYPES[type(record)]
    ctx = context_bytes(
        event_type=event_type,
        canonical_payload=payload_raw,
        previous_event_hash=previous,
        relative_offset_seconds=record.relative_offset_seconds,
        schema_version=version,
        sequence=record.sequence,
    )
    computed = sha256_hex(ctx)
    # Step 7.2-7.3 hold, which also proves both chain hashes are lowercase hex (they dropped
    # their pattern in _build_fast_path); a broken link or hash goes to the exact path, which
    # reports it after the schema checks.
    if record.previous_event_hash != previous or record.event_hash != computed:
        return None
    return EventRecord(
        line=line,
        sequence=record.sequence,
        event_type=event_type,
        event_hash=record.event_hash,
        previous_event_hash=record.previous_event_hash,
        relative_offset_seconds=record.relative_offset_seconds,
        record_type=record.record_type,
        payload=record.payload,
        computed_hash=computed,
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
