"""Step 3, the fast path: cheap proofs that an event line is already canonical.

docs/trace-format.md step 3 and docs/performance.md ("The fast path") state the conditions; this
module holds the pieces records.py combines. Each piece only ever says "proved" or "not proved":
a line it cannot prove canonical is handed to the exact path, which decides and reports. Tested
against the exact path in tests/property/test_fast_path.py.

* :func:`line_decoder` decodes a whole line into a tagged Struct (envelope + typed payload);
* :func:`same_as_read` says whether msgspec's sorted re-encoding, escaped as Python escapes,
  is the line as read;
* :data:`FLOAT_VALUES` and :func:`floats_alike` say whether every float is one msgspec and
  Python spell alike;
* :func:`schema_within` says whether the typed Structs bound strings and lists as tightly as the
  caller's limits.
"""

from __future__ import annotations

import codecs
import re
from functools import reduce
from operator import attrgetter, or_
from typing import Any

import msgspec
import msgspec.inspect as mi

from tracekit.formats.agentguard.schema import agentguard as ag
from tracekit.kernel.limits import DEFAULT_LIMITS, Limits

ENCODE = msgspec.json.Encoder(order="sorted").encode
"""msgspec's sorted encoder: keys in code-point order, like Python's ``sort_keys``."""


def schema_within(limits: Limits) -> bool:
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


def same_as_read(encoded: bytes, raw: bytes) -> bool:
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
    return python_escaped(encoded) == raw


_ASTRAL = re.compile(rb"\\U([0-9a-f]{8})")


def _surrogate_pair(match: re.Match[bytes]) -> bytes:
    code = int(match.group(1), 16) - 0x10000
    return b"\\u%04x\\u%04x" % (0xD800 | (code >> 10), 0xDC00 | (code & 0x3FF))


def python_escaped(encoded: bytes) -> bytes:
    """msgspec's UTF-8 output with every non-ASCII character escaped as Python's json escapes it.

    Done in C: ``backslashreplace`` writes ``\\xNN``, ``\\uNNNN`` and ``\\UNNNNNNNN`` in lowercase
    hex; ``\\xNN`` becomes ``\\u00NN`` and ``\\U...`` a surrogate pair, which is Python's
    spelling. A literal backslash is always ``\\\\`` in JSON text, so these rewrites can also hit
    an escaped backslash followed by ``x`` or ``U``; the result then decodes to a different value
    than the line does, so it can never equal the line: such a line only loses the fast path.
    The codec handler ``tracekit.json_ascii`` is the direct, slower reference (tested equal).
    """
    out = encoded.decode("utf-8").encode("ascii", "backslashreplace").replace(b"\\x", b"\\u00")
    if b"\\U" in out:
        out = _ASTRAL.sub(_surrogate_pair, out)
    return out


def floats_alike(value: Any) -> bool:
    """True when msgspec spells every float in ``value`` as Python's ``repr`` does.

    Both write the shortest round-trip digits, positionally (``X.0`` when integral) for 0.0,
    -0.0 and 1e-4 <= |x| < 1e16; outside that range they may differ (``1e-05``/``0.00001``,
    ``1e+16``/``1e16``), so any such float sends the line to the exact path. Only the fields
    whose type admits a float are visited (:data:`_FLOAT_FIELDS`).
    """
    kind = type(value)
    if kind is float:
        return bool(value == 0.0 or 1e-4 <= abs(value) < 1e16)
    if not _DECODE_LINE:
        _build_fast_path()
    names = _FLOAT_FIELDS.get(kind)
    if names is not None:
        for name in names:
            item = getattr(value, name)
            if item is not None and type(item) is not int and not floats_alike(item):
                return False
        return True
    if kind is list:
        return all(floats_alike(item) for item in value)
    if kind is dict:
        return all(floats_alike(item) for item in value.values())
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
    # One inspection of every payload type and the envelope: msgspec shares the nested Structs'
    # work across them (inspecting each line Struct again would redo its payload's).
    kinds = list(ag.PAYLOAD_TYPES.items())
    *infos, envelope_info = mi.multi_type_info([kind for _, kind in kinds] + [ag.EventEnvelope])
    assert isinstance(envelope_info, mi.StructType)
    _inspect(envelope_info, fields, free)
    envelope_floats = [
        f.name for f in envelope_info.fields
        if f.name in fields[ag.EventEnvelope] and f.name not in ("event_type", "payload")
    ]
    for (name, kind), info in zip(kinds, infos, strict=True):
        if _inspect(info, fields, free)[1]:
            continue
        line_type = msgspec.defstruct(
            f"{kind.__name__}Line",
            [*envelope, ("payload", kind)],
            tag_field="event_type",
            tag=name,
            forbid_unknown_fields=True,
            frozen=True,
        )
        assert isinstance(info, mi.StructType)
        payload_floats = [f"payload.{path}" for path in _float_paths(info, fields)]
        lines[line_type] = name
        floats[line_type] = _float_getter(envelope_floats + payload_floats)
    decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(reduce(or_, lines))
    _FLOAT_FIELDS.update((k, v) for k, v in fields.items() if v)
    FAST_EVENT_TYPES.update(lines)
    FLOAT_VALUES.update(floats)
    _DECODE_LINE.append(decoder.decode)
    return decoder.decode


def _float_paths(kind: mi.StructType, fields: dict[type, tuple[str, ...]]) -> list[str]:
    """Dotted paths to every float-bearing value, descending only through plain Struct fields
    (an optional Struct, a list or a dict is a leaf, checked by :func:`floats_alike`)."""
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
FAST_EVENT_TYPES: dict[type, str] = {}
"""The fast path's line Structs and their event types."""
FLOAT_VALUES: dict[type, Any] = {}
"""A getter of each line Struct's float-bearing values."""
_DECODE_LINE: list[Any] = []
"""The decoder of a whole line, once built."""


SMALL_TRACE_BYTES = 64 * 1024
"""A trace read whole and smaller than this takes the exact path for every line, until the
process has verified this many bytes that way (docs/performance.md, "Start-up")."""
_EXACT_BYTES: list[int] = [0]


def worth_building(size: int | None) -> bool:
    """Whether a trace of ``size`` bytes (None: a stream of unknown size) should try the fast
    path. Building its decoder costs about as much as the exact path spends on 100 KiB of
    lines, so a small trace skips it, unless it is built already or this process has verified
    ``SMALL_TRACE_BYTES`` of small traces (a campaign of small files builds it once)."""
    if _DECODE_LINE or size is None or size >= SMALL_TRACE_BYTES:
        return True
    _EXACT_BYTES[0] += size
    return _EXACT_BYTES[0] > SMALL_TRACE_BYTES


def line_decoder() -> Any:
    """The decoder of a whole event line into its tagged line Struct (built on first use).

    It raises ``msgspec.DecodeError`` or ``ValidationError`` for anything it cannot type, and
    ``RecursionError`` at worst (the caller's depth pre-scan runs first, step 2.1).
    """
    return _DECODE_LINE[0] if _DECODE_LINE else _build_fast_path()
PAYLOAD_KEY = b',"payload":'
"""In a canonical line, the first occurrence is the envelope's payload key (see records.py)."""
AFTER_PAYLOAD = b',"previous_event_hash":"'
"""In a canonical line, the last occurrence follows the payload."""
