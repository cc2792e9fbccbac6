"""Verification step 5 for record frames (docs/bundle-format.md sections 4-5): each record's
finding, sequence, references and counts checked, its payload a leaf of its finding's trees.

Runs of record frames, the bulk of a bundle, are read a block at a time
(:meth:`~tracekit.bundle.container.FrameReader.record_block`) and a block's payloads decoded,
proved canonical and checked with a few calls per block (:func:`_canonical_block`); anything the
block path cannot decide goes frame by frame through the general path, which reports it with the
finding it always had.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import msgspec

from tracekit.bundle import jcs, merkle
from tracekit.bundle.blob_table import BlobTable
from tracekit.bundle.container import RECORD, FrameHead, FrameReader, bad
from tracekit.bundle.limits import BundleLimits
from tracekit.bundle.records import Manifest, Record, from_json, refs
from tracekit.bundle.shape import FindingShape
from tracekit.bundle.subjects import OriginalCheck
from tracekit.bundle.templates import MAX_RUNS, MESSAGE_GROUPS, RUN, TEMPLATES
from tracekit.kernel.errors import Code


@dataclass(slots=True)
class State:
    """What the verifier keeps while it walks a bundle's frames."""

    limits: BundleLimits
    trusted: Sequence[bytes] = ()
    kind: str = ""
    version: int = 1
    blobs: BlobTable = field(default_factory=BlobTable)
    """Every blob and withheld entry read: length, held, referenced, SHA-256 and (version 2
    and later) plain BLAKE3 of a held blob's data (blob_table.py)."""
    reasons: dict[bytes, str] = field(default_factory=dict)
    """Each withheld blob's reason."""
    shapes: list[FindingShape] = field(default_factory=list)
    trees: list[merkle.DualTree] = field(default_factory=list)
    """Per finding, its BLAKE3 tree and the same with SHA-256 (section 5, "The SHA-256 root")."""
    records: int = 0
    proof: Any = None
    signed: Any = None
    signed_frame: int = 0
    last_digest: bytes = b""
    closed: Any = None
    """The signed part of the verdict (steps 5's closing checks, 6, 8, 9), once made."""
    roots: tuple[bytes, list[bytes], int | None] = (b"", [], None)
    """The bundle root, each finding's BLAKE3 root and a proof's index, once computed."""
    original_envelopes: list[Any] = field(default_factory=list)
    original_check: OriginalCheck | None = None


RECORD_DEPTH = 4
"""Deeper than any record can nest (a turn's input: record, runs, run); under a lower depth
limit every record takes the general path, which checks it."""
_RECORD_DECODER = msgspec.json.Decoder(Record, strict=True)


def record_run(reader: FrameReader, head: FrameHead | None, state: State) -> FrameHead | None:
    """A run of record frames from ``head`` on (one after another is always in order); returns
    the first head that is not a record's, None at the end of the file."""
    while head is not None and head.kind == RECORD:
        _block([reader.payload(head), *reader.record_block()], head.number, state)
        head = reader.next_head()
    return head


def _general(raw: bytes, head: FrameHead, state: State) -> None:
    """One record frame, by itself: canonical, typed and checked."""
    typed = canonical_record(raw)
    if typed is not None:
        record(typed, typed.finding is not None, raw, head, state)
    else:
        value = jcs.loads_canonical(raw, head.number, state.limits.depth)
        record(typed_record(value, head), isinstance(value, dict) and "finding" in value, raw, head, state)


def _block(payloads: list[bytes], first: int, state: State) -> None:
    """Record frames from frame ``first`` on, in order. A message or turn that matches its
    template (so is canonical and valid, :mod:`~tracekit.bundle.templates`) and passes its
    checks is accepted without a decode, a run of them at once where it can be
    (:func:`_message_run`, :func:`_turn_run`); a row that does not is refused or accepted by
    :func:`_general` as always."""
    count = len(payloads)
    joined = b"\n".join(payloads)
    if joined.count(b"\n") != count - 1:  # a frame holds a newline: not canonical
        rows: list[tuple[bytes, ...]] = [()] * count
        messages = turns = bytes(count)
        columns: list[tuple[bytes, ...]] = []
    else:
        rows = TEMPLATES.findall(joined)
        columns = list(zip(*rows, strict=True))
        messages, turns = bytes(map(bool, columns[0])), bytes(map(bool, columns[MESSAGE_GROUPS + 1]))
    start = fast = offset = 0  # the payloads before ``start`` are in their finding's trees
    while offset < count:
        same = messages if messages[offset] else turns if turns[offset] else None
        end = offset + 1 if same is None else _end(same, offset)
        if same is not None and state.shapes and (_message_run if same is messages else _turn_run)(columns, offset, end, state):
            fast, offset = fast + end - offset, end
            continue
        for row in rows[offset:end]:
            if state.shapes and row and (_message(row, state) if row[0] else row[8] != b"" and _turn(row, state)):
                fast += 1
            else:
                if start < offset:
                    state.trees[-1].extend(payloads[start:offset])
                start = offset + 1
                raw = payloads[offset]
                _general(raw, FrameHead(first + offset, RECORD, len(raw)), state)
            offset += 1
    if start < count:
        state.trees[-1].extend(payloads[start:])
    state.records += fast


def _end(kinds: bytes, offset: int) -> int:
    """Where the run of rows of one kind that starts at ``offset`` ends."""
    end = kinds.find(0, offset)
    return len(kinds) if end < 0 else end


def _counting(column: tuple[bytes, ...], start: int) -> bool:
    """True when ``column`` spells ``start``, ``start + 1``, ... (canonical integers)."""
    return column == tuple(map(_DECIMAL, range(start, start + len(column))))


_DECIMAL = b"%d".__mod__


def _refs_held(digests: tuple[bytes, ...], lengths: tuple[bytes, ...], blobs: BlobTable) -> list[int] | None:
    """The ordinals of the blobs the references name (an empty digest is null, and names
    none) when each names a blob of its length; None otherwise."""
    if not all(digests):
        pairs = [(d, n) for d, n in zip(digests, lengths, strict=True) if d]
        digests, lengths = tuple(d for d, _ in pairs), tuple(n for _, n in pairs)
    places = blobs.places(digests)
    if None in places:
        return None
    held = cast("list[int]", places)
    return held if blobs.lengths_at(held) == list(map(int, lengths)) else None


def _message_run(columns: list[tuple[bytes, ...]], start: int, end: int, state: State) -> bool:
    """Message rows ``start`` to ``end``, accepted at once when each would be by
    :func:`_message`; False, nothing changed, otherwise."""
    _capture, episode, finding, index, seq, digest, length = (column[start:end] for column in columns[:MESSAGE_GROUPS])
    shape, count = state.shapes[-1], end - start
    current = shape.current_episode()
    named = _DECIMAL(shape.index) if state.kind != "finding" else b""
    if current is None or finding != (named,) * count or episode != (_DECIMAL(current.episode),) * count:
        return False
    if not shape.messages_fit(int(seq[0]), int(index[0]), count) or not _counting(seq, int(seq[0])):
        return False
    if not _counting(index, int(index[0])):
        return False
    places = _refs_held(digest, length, state.blobs)
    if places is None:
        return False
    shape.accept_messages(count)
    state.blobs.refer(places)
    return True


def _turn_run(columns: list[tuple[bytes, ...]], start: int, end: int, state: State) -> bool:
    """As :func:`_message_run`, for turn rows without input runs (with some, row by row)."""
    parts = [column[start:end] for column in columns[MESSAGE_GROUPS:]]
    episode, _error, finding, reason, reason_length, index, given, model, model_length, seq = parts
    shape, count = state.shapes[-1], end - start
    current = shape.current_episode()
    named = _DECIMAL(shape.index) if state.kind != "finding" else b""
    if current is None or finding != (named,) * count or episode != (_DECIMAL(current.episode),) * count:
        return False
    if given != (b"null",) * count or not shape.turns_fit(int(seq[0]), int(index[0]), count):
        return False
    if not _counting(seq, int(seq[0])) or not _counting(index, int(index[0])):
        return False
    places = _refs_held((*reason, *model), (*reason_length, *model_length), state.blobs)
    if places is None:
        return False
    shape.accept_turns(count)
    state.blobs.refer(places)
    return True


def _message(row: tuple[bytes, ...], state: State) -> bool:
    """A message row (the template's groups): accepted when its finding, text reference and
    place pass; False, nothing changed, otherwise."""
    _capture, episode, finding, index, seq, digest, length = row[:MESSAGE_GROUPS]
    shape = state.shapes[-1]
    if (finding != b"") != (state.kind != "finding") or (int(finding) if finding else 0) != shape.index:
        return False
    places = _refs_held((digest,), (length,), state.blobs)
    if places is None or not shape.accept_message(int(seq), int(episode), int(index)):
        return False
    state.blobs.refer(places)
    return True


def _turn(row: tuple[bytes, ...], state: State) -> bool:
    """As :func:`_message`, for a turn row: its finding, model and finish reason, input runs
    and place."""
    episode, _error, finding, reason, reason_length, index, given, model, model_length, seq = row[MESSAGE_GROUPS:]
    shape = state.shapes[-1]
    if (finding != b"") != (state.kind != "finding") or (int(finding) if finding else 0) != shape.index:
        return False
    places = _refs_held((reason, model), (reason_length, model_length), state.blobs)
    if places is None:
        return False
    runs = None if given == b"null" else [(int(start), int(count)) for start, count in RUN.findall(given)]
    if runs is not None and len(runs) > MAX_RUNS:
        return False
    if not shape.accept_turn(int(seq), int(episode), int(index), runs):
        return False
    state.blobs.refer(places)
    return True


def canonical_record(raw: bytes) -> Record | None:
    """Steps 3 and 5's schema at once, for a record frame in the form a sealer writes: decoded
    straight into its type, and accepted only if it encodes back to exactly ``raw`` (so it is
    canonical, repeats no key and holds no default spelled out). Anything else is None, and
    takes the general path, which reports it with the finding it always had."""
    try:
        typed = _RECORD_DECODER.decode(raw)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    return typed if jcs.dumps_record(typed) == raw else None


def typed_record(value: Any, head: FrameHead) -> Record:
    try:
        return from_json(value)
    except msgspec.ValidationError:
        raise bad(Code.BUNDLE_RECORD_INVALID, frame=head.number, rule="record schema") from None


def record(typed: Record, has_finding: bool, raw: bytes, head: FrameHead, state: State) -> None:
    """Step 5: finding and sequence, references, counts; the leaf into its tree. ``has_finding``:
    the frame names a finding index."""
    if has_finding != (state.kind != "finding"):
        raise bad(Code.BUNDLE_RECORD_INVALID, frame=head.number, rule="finding index")
    index = typed.finding or 0
    manifest = typed.seq == 0 and isinstance(typed, Manifest)
    if manifest:
        if state.shapes and state.shapes[-1].index == index:
            raise bad(Code.BUNDLE_RECORD_DUPLICATE, frame=head.number)
        expected = len(state.shapes) if state.kind == "campaign" or not state.shapes else -1
        if state.kind == "proof" and not state.shapes:
            expected = index
        if index != expected:
            raise bad(Code.BUNDLE_RECORD_INVALID, frame=head.number, rule="finding index")
        if len(state.shapes) >= state.limits.findings:
            raise bad(Code.BUNDLE_TOO_MANY_FINDINGS, limit=state.limits.findings)
        state.shapes.append(FindingShape(index))
        state.trees.append(merkle.DualTree())
    elif not state.shapes or state.shapes[-1].index != index:
        raise bad(Code.BUNDLE_RECORD_ORDER, frame=head.number)
    state.shapes[-1].accept(typed, head.number)
    blobs = state.blobs
    for ref in refs(typed):
        place = blobs.place(ref.digest)
        if place is None:
            raise bad(Code.BUNDLE_BLOB_MISSING, frame=head.number)
        if blobs.length_at(place) != ref.length:
            raise bad(Code.BUNDLE_BLOB_LENGTH_MISMATCH, frame=head.number)
        blobs.refer((place,))
    if manifest:
        assert isinstance(typed, Manifest)
        _original(typed, head, state)
    state.trees[-1].add(raw)
    state.records += 1


def _original(manifest: Manifest, head: FrameHead, state: State) -> None:
    """Step 5: a held original's SHA-256 (and plain BLAKE3 in version 2) equal the manifest's;
    the SHA-256 is there exactly before version 3, the plain BLAKE3 exactly in version 2."""
    original = manifest.original
    if (original.blake3 is not None) != (state.version == 2) or (original.sha256 is not None) != (
        state.version < 3
    ):
        raise bad(Code.BUNDLE_RECORD_INVALID, frame=head.number, rule="original digests")
    digest = bytes.fromhex(original.digest)
    sha = state.blobs.entry(digest)[2]
    if sha is not None and original.sha256 is not None and sha.hex() != original.sha256:
        raise bad(Code.BUNDLE_ORIGINAL_MISMATCH)
    plain = state.blobs.plain(digest)
    if plain is not None and original.blake3 is not None and plain.hex() != original.blake3:
        raise bad(Code.BUNDLE_ORIGINAL_MISMATCH)
