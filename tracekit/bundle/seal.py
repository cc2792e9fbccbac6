"""Sealing: evidence and original bytes in, bundle frames out (docs/bundle-format.md sections
3-6). Pure: the caller reads the input and the key and writes the chunks this yields."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any, BinaryIO, Literal

import blake3
import msgspec

from tracekit import __version__
from tracekit.bundle import dsse, jcs, keys, merkle
from tracekit.bundle.blobs import BlobStore, argument_bytes, salt_key
from tracekit.bundle.container import (
    END,
    HEADER,
    HEADER_KIND,
    MAGIC,
    ORIGINAL,
    RECORD,
    SIGNATURE,
    blob_frame_head,
    frame,
)
from tracekit.bundle.limits import DEFAULT_BUNDLE_LIMITS, BundleLimits
from tracekit.bundle.plan import FramePlan
from tracekit.bundle.predicate import FindingResults, Predicate, Results
from tracekit.bundle.records import (
    CallRecord,
    EpisodeRecord,
    Manifest,
    MessageRecord,
    Original,
    Record,
    TurnRecord,
)
from tracekit.bundle.spooled import SpooledEvidence, SpooledOriginal, whole
from tracekit.bundle.subjects import original_frame, original_statement
from tracekit.kernel import collector
from tracekit.kernel.episode_id import episode_label
from tracekit.kernel.evidence import Episode, EvidenceFile, clip_runs

BUNDLE_VERSION = 3
"""2: salted blobs (section 3, "Salted blobs"); 3: each original named by a statement of its own
(section 6, "Original subjects"). A verifier still reads versions 1 and 2."""
_BATCH = 1 << 20
_RECORD_HEAD = HEADER.pack


@dataclass(frozen=True, slots=True)
class FindingInput:
    """One trace to seal: its exact bytes (held, or spooled) and the evidence its format importer
    read (whole, or spooled an episode at a time: :mod:`tracekit.bundle.spooled`)."""

    original: bytes | SpooledOriginal
    evidence: EvidenceFile | SpooledEvidence

    def totals(self) -> tuple[int, int, int]:
        """Messages, calls and turns over every episode."""
        if isinstance(self.evidence, SpooledEvidence):
            return self.evidence.totals
        episodes = self.evidence.episodes
        return sum(len(e.messages) for e in episodes), sum(len(e.calls) for e in episodes), sum(len(e.turns) for e in episodes)

    def labels(self) -> tuple[str, ...]:
        """Each episode's label, in the file's order."""
        if isinstance(self.evidence, SpooledEvidence):
            return self.evidence.labels
        return tuple(episode_label(e.id) for e in self.evidence.episodes)


@dataclass(frozen=True, slots=True)
class SealedFinding:
    """A planned finding: its input, the original's identity and the root of its records. The
    records themselves are not kept: they are made again, identically, as they are written."""

    item: FindingInput
    original: Original
    root: bytes
    root_sha256: bytes
    """The same tree with SHA-256 (section 5, "The SHA-256 root")."""
    index: int | None
    plain: tuple[str, str]
    """The original file's plain BLAKE3 and SHA-256, for its subject statement (section 6)."""

    @property
    def format(self) -> str:
        return self.item.evidence.format


def header(kind: str, version: int = BUNDLE_VERSION) -> bytes:
    """The header frame's payload (section 1)."""
    return jcs.dumps(
        {
            "bundle_version": version,
            "kind": kind,
            "hash": "blake3",
            "canonicalization": "rfc8785",
            "signature": "dsse-ed25519",
        }
    )


def _original(item: FindingInput, store: BlobStore) -> tuple[Original, tuple[str, str]]:
    """The manifest's original (blob digest and length only: section 3) and the file's plain
    BLAKE3 and SHA-256, which only its subject statement names (section 6)."""
    original = item.original
    if isinstance(original, SpooledOriginal):
        ref, plain = store.add_stream(original.chunks), (original.blake3, original.sha256)
    else:
        ref = store.add(original)
        plain = (blake3.blake3(original).hexdigest(), hashlib.sha256(original).hexdigest())
    return Original(digest=ref.digest, length=ref.length), plain


def _records(item: FindingInput, original: Original, store: BlobStore, finding: int | None) -> Iterator[Record]:
    """Section 4: manifest, then per episode its record, messages, calls and turns, one at a time."""
    evidence = item.evidence
    episodes = evidence.episodes
    messages, calls, turns = item.totals()
    yield Manifest(
        seq=0,
        finding=finding,
        tracekit_version=__version__,
        format=evidence.format,
        format_version=evidence.format_version,
        original=original,
        episodes=len(episodes),
        messages=messages,
        calls=calls,
        turns=turns,
    )
    seq = 1
    for number, episode in enumerate(episodes):
        yield EpisodeRecord(
            seq=seq,
            finding=finding,
            episode=number,
            id=store.add(episode.id.encode("utf-8", "surrogatepass")),
            messages=len(episode.messages),
            calls=len(episode.calls),
            turns=len(episode.turns),
        )
        yield from _episode_records(episode, store, finding, number, seq + 1)
        seq += 1 + len(episode.messages) + len(episode.calls) + len(episode.turns)


def _episode_records(
    episode: Episode, store: BlobStore, finding: int | None, number: int, seq: int
) -> Iterator[Record]:
    """An episode's message, call and turn records, numbered from ``seq``."""
    for position, message in enumerate(episode.messages):
        yield MessageRecord(
            seq=seq,
            finding=finding,
            episode=number,
            index=position,
            role=message.role,
            capture=message.capture,
            text=store.add_text(message.text),
        )
        seq += 1
    for position, call in enumerate(episode.calls):
        encoding, data = argument_bytes(call.arguments)
        result = call.result
        yield CallRecord(
            seq=seq,
            finding=finding,
            episode=number,
            index=position,
            turn=max(call.turn, 0),
            name=store.add(call.name.encode("utf-8", "surrogatepass")),
            call_id=store.add_text(call.call_id),
            arguments_shape=call.arguments.shape,
            arguments_encoding=encoding,  # type: ignore[arg-type]
            arguments=None if data is None else store.add(data),
            result=None if result is None else store.add_text(result.text),
            result_is_error=None if result is None else result.is_error,
            result_capture=None if result is None else result.capture,
        )
        seq += 1
    messages = len(episode.messages)
    for position, turn in enumerate(episode.turns):
        yield TurnRecord(
            seq=seq,
            finding=finding,
            episode=number,
            index=position,
            input=None if turn.input_runs is None else clip_runs(turn.input_runs, messages),
            model=store.add_text(turn.model),
            finish_reason=store.add_text(turn.finish_reason),
            error=turn.error,
        )
        seq += 1


_payload = jcs.dumps_record


def seal_finding(
    item: FindingInput, store: BlobStore, plan: FramePlan, finding: int | None, spool: BinaryIO | None = None
) -> SealedFinding:
    """Plan one finding: its blobs into ``store``, its record frames counted in ``plan``, its
    BLAKE3 and SHA-256 roots computed from the records as they pass (none is kept in memory; with a ``spool``,
    each record frame is appended to it, to be copied out instead of made again)."""
    original, plain = _original(item, store)
    trees = merkle.DualTree()
    batch: list[bytes] = []
    messages: list[Record] = []
    size = 0
    for record in _records(item, original, store, finding):
        small = _small(record)
        if small and len(messages) < merkle.BATCH_LEAVES:
            messages.append(record)  # of bounded size: encoded together
            continue
        if messages:
            batch += _payloads(messages)
            size += sum(map(len, batch[-len(messages) :]))
            messages = [record] if small else []
        if not messages:
            batch.append(payload := _payload(record))
            size += len(payload)
        if len(batch) >= merkle.BATCH_LEAVES or size >= merkle.BATCH_BYTES:  # bounded memory
            _planned(batch, plan, trees, spool)
            batch, size = [], 0
    _planned(batch + _payloads(messages), plan, trees, spool)
    root, root_sha256 = trees.roots()
    return SealedFinding(item, original, root, root_sha256, finding, plain)


SMALL_TURN_RUNS = 16
"""A turn record with at most this many input runs is of bounded size (a few hundred bytes, as a
message record is), so a batch of them stays about :data:`merkle.BATCH_BYTES`; a longer one is
encoded by itself and counted by its size."""


def _small(record: Record) -> bool:
    """Whether ``record`` is a message record, or a turn record of few input runs: encoded with
    its neighbours in one list (:func:`_payloads`)."""
    if type(record) is MessageRecord:
        return True
    if type(record) is TurnRecord:
        return record.input is None or len(record.input) <= SMALL_TURN_RUNS
    return False


def _payloads(records: list[Record]) -> list[bytes]:
    """Each record's payload (:func:`_payload`), from one encoding of the list: between two
    records it holds ``},{``, which no record holds inside (its strings are digests, literals and
    restricted names; its lists hold no object: a turn's input runs are pairs of integers), so
    the list splits there into the records' encodings (a newline put at each such comma, then
    split at newlines: compact JSON holds none of its own). When the split does not give one
    part per record, or :func:`_payload` would not take the encoding as it is, each record is
    encoded by itself."""
    if not records:
        return []
    encoded = jcs.ENCODER.encode(records)
    if encoded.isascii() and b"\\" not in encoded and b"\n" not in encoded:
        parts = encoded.replace(b"},{", b"}\n{").split(b"\n")
        if len(parts) == len(records):
            parts[0] = parts[0][1:]  # the list's brackets (one part may have both)
            parts[-1] = parts[-1][:-1]
            return parts
    return [_payload(record) for record in records]


def _planned(payloads: list[bytes], plan: FramePlan, trees: merkle.DualTree, spool: BinaryIO | None) -> None:
    """A batch of record payloads, in order: framed in ``plan``, hashed into ``trees``, and
    appended as frames to ``spool``."""
    lengths = list(map(len, payloads))
    plan.record_batch(lengths)
    trees.extend(payloads)
    if spool is not None:  # each frame's head, then its payload (heads and payloads interleaved)
        parts = payloads + payloads
        parts[0::2] = map(_RECORD_HEAD, repeat(RECORD), lengths)
        parts[1::2] = payloads
        spool.write(b"".join(parts))


def finding_leaf(index: int, root: bytes, h: merkle.Hash = merkle.b3) -> bytes:
    """A campaign tree's leaf for one finding (section 5); ``root`` is the finding root of the
    tree hashed with ``h``."""
    return merkle.leaf_hash(jcs.dumps({"type": "finding_root", "finding": index, "root": root.hex()}), h)


def campaign_root(roots: Sequence[bytes], h: merkle.Hash = merkle.b3) -> bytes:
    return merkle.root_of((finding_leaf(i, r, h) for i, r in enumerate(roots)), h)


def predicate(kind: Literal["finding", "campaign"], findings: Sequence[SealedFinding], results: Results | None) -> Predicate:
    """The statement's predicate (section 6): the same Struct ``bundle verify`` decodes."""
    fmt = findings[0].format if kind == "finding" else None
    episodes = tuple(f.item.labels() for f in findings)
    return Predicate(__version__, kind, len(findings), fmt, results, episodes)


def signature_frame(
    root: bytes,
    originals: list[tuple[str, str]],
    body: dict[str, Any],
    seed: bytes | None,
    root_sha256: bytes | None = None,
) -> bytes:
    """The ``S`` payload: the DSSE envelope over the statement, and the signer's public key."""
    payload = jcs.dumps(dsse.statement(root, originals, body, root_sha256))
    signatures: tuple[dsse.Signature, ...] = ()
    public_keys: list[dict[str, str]] = []
    if seed is not None:
        public = keys.public_of(seed)
        kid = keys.keyid(public)
        signatures = (dsse.Signature(kid, keys.sign(seed, dsse.pae(dsse.PAYLOAD_TYPE, payload))),)
        public_keys = [{"keyid": kid, "algorithm": "ed25519", "public_key": dsse.b64(public)}]
    envelope = dsse.Envelope(payload, dsse.PAYLOAD_TYPE, signatures)
    return jcs.dumps({"envelope": dsse.envelope_json(envelope), "public_keys": public_keys})


def seal(
    items: Sequence[FindingInput],
    seed: bytes | None,
    campaign: bool,
    results: list[FindingResults] | None = None,
    limits: BundleLimits = DEFAULT_BUNDLE_LIMITS,
) -> Iterator[bytes]:
    """The bundle's bytes, in chunks: one finding, or a campaign of ``items`` (section 9).
    ``results`` holds, per item, the checks' results at sealing time for the predicate. Raises
    :class:`~tracekit.bundle.container.BundleError` before yielding anything when the bundle
    would pass one of ``limits`` (the verifier's code; docs/bundle-format.md, "Limits")."""
    return seal_with_root(items, seed, campaign, results, limits)[1]


def seal_with_root(
    items: Sequence[FindingInput],
    seed: bytes | None,
    campaign: bool,
    results: list[FindingResults] | None = None,
    limits: BundleLimits = DEFAULT_BUNDLE_LIMITS,
    spool: BinaryIO | None = None,
    blob_spool: BinaryIO | None = None,
) -> tuple[bytes, Iterator[bytes]]:
    """As :func:`seal`, with the bundle root (section 5) the signed statement names. Every
    frame is planned and checked against ``limits`` before this returns. ``spool``, an empty
    read-write binary file the caller owns (and keeps open until the chunks are consumed),
    holds the record frames between planning and writing; without one they are made again.
    ``blob_spool``, another, holds the blobs' payloads (:class:`BlobStore`); without one they
    are held in memory."""
    kind: Literal["finding", "campaign"] = "campaign" if campaign else "finding"
    plan = FramePlan(limits)
    plan.findings(len(items))
    plan.json_frame(len(header(kind)), plan.frames)
    store = BlobStore(salt_key(seed), plan.blob, blob_spool)
    with collector.paused():  # records and frames die as they pass: no cycle to collect
        findings = [
            seal_finding(item, store, plan, index if campaign else None, spool) for index, item in enumerate(items)
        ]
    digests = store.sorted_digests()
    plan.check_frames(digests)
    root = campaign_root([f.root for f in findings]) if campaign else findings[0].root
    roots256 = [f.root_sha256 for f in findings]
    root_sha256 = campaign_root(roots256, merkle.sha256) if campaign else roots256[0]
    summary: Results | None = None
    if results is not None:
        summary = Results(per_finding=tuple(results)) if campaign else Results(**msgspec.structs.asdict(results[0]))
    body: dict[str, Any] = msgspec.to_builtins(predicate(kind, findings, summary))
    signed = signature_frame(root, [], body, seed, root_sha256)
    plan.json_frame(len(signed), plan.frames)
    subjects = _original_frames(findings, dsse.root_subject(root, root_sha256)["digest"], seed, plan)
    end = jcs.dumps({"frames": plan.frames})
    plan.json_frame(len(end), plan.frames)
    records = whole(spool) if spool is not None else _made(findings, store)
    return root, _frames(kind, _blob_frames(store, digests), records, [signed, *subjects], end)


def _original_frames(
    findings: list[SealedFinding], root: dict[str, str], seed: bytes | None, plan: FramePlan
) -> list[bytes]:
    """Each finding's original subject statement (section 6, "Original subjects"), planned."""
    frames = []
    signer = None if seed is None else (keys.keyid(keys.public_of(seed)), keys.signer(seed))
    for index, sealed in enumerate(findings):
        original = (sealed.original.digest, sealed.original.length)
        frames.append(original_frame(index, original_statement(index, sealed.plain, root, original), signer))
        plan.json_frame(len(frames[-1]), plan.frames)
    return frames


def _made(findings: list[SealedFinding], store: BlobStore) -> Iterator[bytes]:
    """The record frames made again from the evidence as planned, in chunks of about 1 MiB;
    every blob they name is held already."""
    held = len(store)
    batch: list[bytes] = []
    size = 0
    for sealed in findings:
        for record in _records(sealed.item, sealed.original, store, sealed.index):
            batch.append(frame(RECORD, _payload(record)))
            size += len(batch[-1])
            if size >= _BATCH:
                yield b"".join(batch)
                batch, size = [], 0
    yield b"".join(batch)
    assert len(store) == held, "the records name only the blobs planned"  # frozen evidence


def _blob_frames(store: BlobStore, digests: list[bytes]) -> Iterator[bytes]:
    """The blob frames in ``digests``' order, read back from the store, in chunks of about
    1 MiB (a write per blob would cost a system call each)."""
    batch: list[bytes] = []
    size = 0
    for digest in digests:
        batch.append(blob_frame_head(digest, store.payload_length(digest)))
        size += len(batch[-1])
        for chunk in store.payload(digest):
            batch.append(chunk)
            size += len(chunk)
            if size >= _BATCH:
                yield b"".join(batch)
                batch, size = [], 0
    yield b"".join(batch)


def _frames(kind: str, blobs: Iterator[bytes], records: Iterator[bytes], signed: list[bytes], end: bytes) -> Iterator[bytes]:
    """Section 2's order: magic, header, blobs by digest, records, the signature and the
    original subject statements, end."""
    yield MAGIC
    yield frame(HEADER_KIND, header(kind))
    yield from blobs
    yield from records
    yield frame(SIGNATURE, signed[0])
    for subject in signed[1:]:
        yield frame(ORIGINAL, subject)
    yield frame(END, end)
