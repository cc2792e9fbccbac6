"""Bundle records: the typed documents the Merkle tree is built over (docs/bundle-format.md
section 4). Each names our schema's fields only; every byte of input text is a blob, referenced
by digest and length."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta, Struct

Hex64 = Annotated[str, Meta(pattern="^[0-9a-f]{64}$")]
Count = Annotated[int, Meta(ge=0, le=2**53)]
FormatName = Annotated[str, Meta(pattern="^[a-z0-9_]{1,32}$")]
VersionText = Annotated[str, Meta(pattern="^[A-Za-z0-9._+-]{1,64}$")]


class Ref(Struct, frozen=True, forbid_unknown_fields=True):
    """A blob reference: its BLAKE3 digest and byte length."""

    digest: Hex64
    length: Count


class Original(Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """The original file: its blob digest and length; in version 1 also its SHA-256, in version 2
    its SHA-256 and plain BLAKE3; in version 3 neither (its plain digests are in its original
    subject statement, which redaction can withhold: docs/bundle-format.md section 3, "Salted
    blobs")."""

    digest: Hex64
    length: Count
    sha256: Hex64 | None = None
    blake3: Hex64 | None = None


class _Record(
    Struct,
    frozen=True,
    forbid_unknown_fields=True,
    tag_field="type",
    omit_defaults=True,
    kw_only=True,
):
    seq: Count
    finding: Count | None = None
    """The finding index, in a campaign only (section 4)."""


class Manifest(_Record, tag="manifest", frozen=True):
    tracekit_version: VersionText
    format: FormatName
    format_version: VersionText | None
    original: Original
    episodes: Count
    messages: Count
    calls: Count
    turns: Count = 0
    """Model turns over all episodes; absent when 0 (section 4)."""


class EpisodeRecord(_Record, tag="episode", frozen=True):
    episode: Count
    id: Ref
    messages: Count
    calls: Count
    turns: Count = 0


class MessageRecord(_Record, tag="message", frozen=True):
    episode: Count
    index: Count
    role: Literal["system", "user", "assistant", "tool", "developer", "other"]
    capture: Literal["captured", "not_captured", "not_carried"]
    text: Ref | None


class CallRecord(_Record, tag="call", frozen=True):
    episode: Count
    index: Count
    turn: Count
    name: Ref
    call_id: Ref | None
    arguments_shape: Literal["string", "object", "repr", "absent"]
    arguments_encoding: Literal["string", "repr", "jcs"] | None
    arguments: Ref | None
    result: Ref | None
    result_is_error: bool | None
    result_capture: Literal["captured", "not_captured", "not_carried"] | None


Run = tuple[Count, Annotated[int, Meta(ge=1, le=2**53)]]
"""``[start, count]``: the messages ``start`` to ``start + count - 1`` of the episode."""


class TurnRecord(_Record, tag="turn", frozen=True):
    """One model turn: which of the episode's messages went in, as runs of message indices
    (an agent loop that resends its history is one run per turn: linear, section 4), and the
    model and finish reason the format names, by reference."""

    episode: Count
    index: Count
    input: Annotated[tuple[Run, ...], Meta(max_length=1_000_000)] | None
    model: Ref | None
    finish_reason: Ref | None
    error: bool


Record = Manifest | EpisodeRecord | MessageRecord | CallRecord | TurnRecord


def to_json(record: Record) -> object:
    """The record as JSON values, ready for RFC 8785."""
    return msgspec.to_builtins(record)


def from_json(value: object) -> Record:
    """Typed record from a decoded frame; raises ``msgspec.ValidationError``."""
    typed: Record = msgspec.convert(value, Record, strict=True)
    return typed


def refs(record: Record) -> list[Ref]:
    """Every blob a record references."""
    if type(record) is MessageRecord:  # the most frequent first
        return [record.text] if record.text else []
    if isinstance(record, Manifest):
        return [Ref(digest=record.original.digest, length=record.original.length)]
    if isinstance(record, EpisodeRecord):
        return [record.id]
    if isinstance(record, MessageRecord):
        return [record.text] if record.text else []
    if isinstance(record, TurnRecord):
        return [ref for ref in (record.model, record.finish_reason) if ref is not None]
    found = [record.name, record.call_id, record.arguments, record.result]
    return [ref for ref in found if ref is not None]
