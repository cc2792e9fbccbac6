"""Payload digests: one demonstration is one digest, however many times it was recorded.

Digests are sha256 over RFC 8785 canonical JSON (tracekit.kernel.canonical.jcs_bytes) of a payload with
its volatile keys removed (ids, timestamps, latencies, order and retry counters), so two records
that differ only in when or how often they happened have the same digest. Values outside RFC
8785's domain (integers beyond 2**53) fall back to AgentGuard's canonical JSON, which is equally
deterministic.

Speed (docs/performance.md, "Audit"): the bytes are made by msgspec's C encoder with sorted keys
whenever they are provably RFC 8785's bytes (:func:`canonical_json`), and the volatile keys of
typed AgentGuard payloads are dropped at the places their schema puts them
(:func:`demonstration_digest`) instead of by a walk over every value.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import Any

import msgspec

from tracekit.formats.harness.view import (
    ID_KEYS,
    LATENCY_KEYS,
    ORDER_KEYS,
    RETRY_KEYS,
    START_KEYS,
)
from tracekit.kernel.canonical import agentguard_bytes, jcs_bytes

VOLATILE_KEYS = frozenset(
    {
        *ID_KEYS,
        *START_KEYS,
        *LATENCY_KEYS,
        *ORDER_KEYS,
        *RETRY_KEYS,
        "created_at",
        "ended_at",
        "duration_seconds",
        "time",
        "attempt_id",
        "run_id",
        "trace_id",
    }
)
"""Keys that say when, in what order or how often something happened, not what happened."""

DEMONSTRATION_TYPES = ("agent_command", "file_change", "test_result")
"""The event types whose payloads make an AgentGuard trace's demonstration digest."""

_ENCODER = msgspec.json.Encoder(order="sorted")
_NOT_PLAIN = re.compile(rb"[:\[,]-?[0-9]+[.eE]|[:\[,]-?[0-9]{16}|[\xf0-\xf4]")
"""Where msgspec's sorted output might differ from RFC 8785's (see :func:`canonical_json`)."""


def strip_volatile(value: Any, depth: int = 0) -> Any:
    """``value`` with :data:`VOLATILE_KEYS` removed from every object (to a bounded depth)."""
    if depth > 64:
        return value
    if isinstance(value, Mapping):
        return {k: strip_volatile(v, depth + 1) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [strip_volatile(v, depth + 1) for v in value]
    return value


def canonical_json(value: Any) -> bytes:
    """RFC 8785 bytes of ``value``, else AgentGuard's canonical bytes.

    ``value`` is a JSON value as tracekit's parsers return it: string keys, finite numbers
    (they refuse NaN and infinities; msgspec would write those as ``null`` where the exact
    encoders refuse them).

    msgspec's encoder with sorted keys writes exactly RFC 8785's bytes when the output holds no
    float token (ECMAScript and msgspec spell some floats differently), no integer of 16 digits
    or more (RFC 8785 refuses those beyond 2**53 - 1: the whole value then takes AgentGuard's
    form), and no character beyond the BMP (keys sort by code point in msgspec and by UTF-16
    unit in RFC 8785; they differ only against astral characters). Both escape ``"``, ``\\`` and
    U+0000-U+001F alike (short forms, lowercase ``\\u00XX``) and write everything else as raw
    UTF-8; both refuse lone surrogates. The guard pattern is checked on the output, where every
    number token follows ``:``, ``[`` or ``,``; a match inside a string only sends the value to
    the exact encoder, so the result is always the exact encoder's.
    """
    try:
        data = _ENCODER.encode(value)
    except (UnicodeEncodeError, TypeError, OverflowError):
        data = None
    if data is not None and _NOT_PLAIN.search(data) is None:
        return data
    try:
        return jcs_bytes(value)
    except ValueError:
        return agentguard_bytes(value)


def payload_digest(value: Any) -> str:
    """sha256 hex of ``value``'s canonical JSON (volatile keys removed)."""
    return hashlib.sha256(canonical_json(strip_volatile(value))).hexdigest()


_Path = tuple[str, ...]


class _Plan(msgspec.Struct, frozen=True):
    """Where a typed payload's volatile keys and integers are, from its schema alone."""

    volatile: tuple[_Path, ...] = ()
    """Key paths to drop (each key named in :data:`VOLATILE_KEYS`)."""
    integers: tuple[_Path, ...] = ()
    """Key paths of integer fields, to check against RFC 8785's integer domain."""


_EMPTY = _Plan()
_SCALARS = (
    msgspec.inspect.StrType,
    msgspec.inspect.BoolType,
    msgspec.inspect.NoneType,
    msgspec.inspect.LiteralType,
)


def _nested(name: str, plan: _Plan) -> _Plan:
    return _Plan(tuple((name, *p) for p in plan.volatile), tuple((name, *p) for p in plan.integers))


def _plain(info: Any, seen: frozenset[type]) -> _Plan | None:
    """The plan of a value of this msgspec type, or None when the schema does not fix it: a
    free-form value, a dict (free keys), a float that stays, a non-ASCII field name, a list of
    anything but strings, booleans and nulls, a union of differently planned types."""
    ti = msgspec.inspect
    if isinstance(info, ti.Metadata):
        return _plain(info.type, seen)
    if isinstance(info, _SCALARS):
        if isinstance(info, ti.LiteralType) and not all(isinstance(v, str) for v in info.values):
            return None
        return _EMPTY
    if isinstance(info, ti.IntType):
        return _Plan(integers=((),))
    if isinstance(info, ti.StructType):
        if info.cls in seen:
            return None
        volatile: list[_Path] = []
        integers: list[_Path] = []
        for field in info.fields:
            name = field.encode_name
            if not name.isascii():
                return None
            if name in VOLATILE_KEYS:
                volatile.append((name,))
                continue
            inner = _plain(field.type, seen | {info.cls})
            if inner is None:
                return None
            nested = _nested(name, inner)
            volatile += nested.volatile
            integers += nested.integers
        return _Plan(tuple(volatile), tuple(integers))
    if isinstance(info, ti.UnionType):
        plans = {_plain(t, seen) for t in info.types}
        if None in plans:
            return None
        plans.discard(_EMPTY)
        return plans.pop() if len(plans) == 1 else _EMPTY if not plans else None
    if isinstance(info, ti.ListType):
        return _EMPTY if _plain(info.item_type, seen) == _EMPTY else None
    return None


@cache
def _plan(cls: type) -> _Plan | None:
    return _plain(msgspec.inspect.type_info(cls), frozenset())


_INT_LIMIT = 2**53 - 1


def _prepared(payload: Any, plan: _Plan) -> Any:
    """``payload`` (a Struct whose type's plan is ``plan``) with its top-level volatile fields
    unset (msgspec omits them), or None when the plan reaches inside or an integer is outside
    RFC 8785's domain."""
    for path in plan.integers:
        value: Any = payload
        for key in path:
            value = getattr(value, key, None)
        if isinstance(value, int) and not -_INT_LIMIT <= value <= _INT_LIMIT:
            return None
    if not plan.volatile:
        return payload
    cls: type[msgspec.Struct] = type(payload)
    unset = _unset(cls)
    return None if unset is None else msgspec.structs.replace(payload, **unset)


@cache
def _unset(cls: type) -> dict[str, Any] | None:
    """The top-level volatile fields of ``cls``'s plan set to UNSET (kept per type, the key a
    cache hashes cheaply); None when one is nested."""
    plan = _plan(cls)
    if plan is None or any(len(path) != 1 for path in plan.volatile):
        return None
    return {path[0]: msgspec.UNSET for path in plan.volatile}


class Demonstration:
    """The demonstration digest as a fold: ``[{"event_type": t, "payload": p}, ...]`` digested
    exactly as :func:`payload_digest` makes it, one payload at a time as the events pass.

    Each payload is an AgentGuard payload (a msgspec Struct, or a plain value). When the schema
    of every payload fixes where its volatile keys and integers are (:func:`_plain`), the
    volatile fields are unset (msgspec omits them), and msgspec's sorted encoding of the Structs
    is RFC 8785's bytes: field names are ASCII (code-point order is UTF-16 order), no float is
    left, every integer was checked to be within +/-(2**53 - 1), and strings are escaped alike
    (see :func:`canonical_json`). msgspec writes a list as ``[``, its items joined by ``,``, and
    ``]``, so the items are hashed as they come. Anything else takes the generic walk and encoder
    over every payload (held for that case: references to the decoded payloads)."""

    __slots__ = ("_hash", "_plain", "payloads")

    def __init__(self) -> None:
        self.payloads: list[tuple[str, Any]] = []
        self._hash = hashlib.sha256()
        self._plain = True

    def add(self, kind: str, payload: Any) -> None:
        """Take the next demonstration event's type and payload."""
        self._hash.update(b"," if self.payloads else b"[")
        self.payloads.append((kind, payload))
        if not self._plain:
            return
        plan = _plan(type(payload)) if isinstance(payload, msgspec.Struct) else None
        ready = None if plan is None else _prepared(payload, plan)
        if ready is None:
            self._plain = False
            return
        try:  # {"event_type": kind, "payload": ready} with sorted keys, as the encoder writes it
            item = b'{"event_type":%b,"payload":%b}' % (_ENCODER.encode(kind), _ENCODER.encode(ready))
        except UnicodeEncodeError:
            self._plain = False
            return
        self._hash.update(item)

    def hexdigest(self) -> str:
        """The digest of every payload taken so far."""
        if self._plain:
            whole = self._hash.copy()
            whole.update(b"]" if self.payloads else b"[]")
            return whole.hexdigest()
        evidence = msgspec.to_builtins([{"event_type": t, "payload": p} for t, p in self.payloads])
        return payload_digest(evidence)


def demonstration_digest(payloads: Sequence[tuple[str, Any]]) -> str:
    """The digest of ``[{"event_type": t, "payload": p}, ...]``, exactly as :func:`payload_digest`
    makes it (:class:`Demonstration` over ``payloads``)."""
    digest = Demonstration()
    for kind, payload in payloads:  # the caller bounds the number of payloads
        digest.add(kind, payload)
    return digest.hexdigest()


def distinct(digests: Iterable[str]) -> int:
    """How many different demonstrations a list of digests stands for."""
    return len(set(digests))
