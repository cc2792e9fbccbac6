"""Sealing: evidence and original bytes in, bundle frames out (docs/bundle-format.md sections
3-6). Pure: the caller reads the input and the key and writes the chunks this yields."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import blake3
import msgspec

from tracekit import __version__
from tracekit.bundle import dsse, jcs, keys, merkle
from tracekit.bundle.blobs import BlobStore, argument_bytes, salt_key
from tracekit.bundle.container import (
    END,
    HEADER_KIND,
    MAGIC,
    PROOF,
    RECORD,
    SIGNATURE,
    blob_frame_head,
    frame,
)
from tracekit.bundle.predicate import FindingResults, Predicate, Results
from tracekit.bundle.records import (
    CallRecord,
    EpisodeRecord,
    Manifest,
    MessageRecord,
    Original,
    Record,
    TurnRecord,
    to_json,
)
from tracekit.evidence import EvidenceFile, clip_runs

BUNDLE_VERSION = 2
"""2: salted blobs (section 3, "Salted blobs"); a verifier still reads version 1."""


@dataclass(frozen=True, slots=True)
class FindingInput:
    """One trace to seal: its exact bytes and the evidence its format importer read."""

    original: bytes
    evidence: EvidenceFile


@dataclass(slots=True)
class SealedFinding:
    """A finding's record payloads (canonical JSON) and root."""

    records: list[bytes]
    root: bytes
    original: Original
    format: str
    root_sha256: bytes = b""
    """The same tree with SHA-256 (section 5, "The SHA-256 root")."""


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


def _records(item: FindingInput, store: BlobStore, finding: int | None) -> list[Record]:
    """Section 4: manifest, then per episode its record, messages and calls."""
    evidence = item.evidence
    ref = store.add(item.original)
    plain = blake3.blake3(item.original).hexdigest() if store.salted else None
    original = Original(
        digest=ref.digest, length=ref.length, sha256=hashlib.sha256(item.original).hexdigest(), blake3=plain
    )
    out: list[Record] = [
        Manifest(
            seq=0,
            finding=finding,
            tracekit_version=__version__,
            format=evidence.format,
            format_version=evidence.format_version,
            original=original,
            episodes=len(evidence.episodes),
            messages=sum(len(e.messages) for e in evidence.episodes),
            calls=sum(len(e.calls) for e in evidence.episodes),
            turns=sum(len(e.turns) for e in evidence.episodes),
        )
    ]
    for number, episode in enumerate(evidence.episodes):
        out.append(
            EpisodeRecord(
                seq=len(out),
                finding=finding,
                episode=number,
                id=store.add(episode.id.encode("utf-8", "surrogatepass")),
                messages=len(episode.messages),
                calls=len(episode.calls),
                turns=len(episode.turns),
            )
        )
        for position, message in enumerate(episode.messages):
            out.append(
                MessageRecord(
                    seq=len(out),
                    finding=finding,
                    episode=number,
                    index=position,
                    role=message.role,
                    capture=message.capture,
                    text=store.add_text(message.text),
                )
            )
        for position, call in enumerate(episode.calls):
            encoding, data = argument_bytes(call.arguments)
            result = call.result
            out.append(
                CallRecord(
                    seq=len(out),
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
            )
        for position, turn in enumerate(episode.turns):
            out.append(
                TurnRecord(
                    seq=len(out),
                    finding=finding,
                    episode=number,
                    index=position,
                    input=None if turn.input_runs is None else clip_runs(turn.input_runs, len(episode.messages)),
                    model=store.add_text(turn.model),
                    finish_reason=store.add_text(turn.finish_reason),
                    error=turn.error,
                )
            )
    return out


def seal_finding(item: FindingInput, store: BlobStore, finding: int | None) -> SealedFinding:
    typed = _records(item, store, finding)
    records = [jcs.dumps(to_json(r)) for r in typed]
    root = merkle.root_of(merkle.leaf_hash(r) for r in records)
    root_sha256 = merkle.root_of((merkle.leaf_hash(r, merkle.sha256) for r in records), merkle.sha256)
    manifest = typed[0]
    assert isinstance(manifest, Manifest)
    return SealedFinding(records, root, manifest.original, item.evidence.format, root_sha256)


def finding_leaf(index: int, root: bytes, h: merkle.Hash = merkle.b3) -> bytes:
    """A campaign tree's leaf for one finding (section 5); ``root`` is the finding root of the
    tree hashed with ``h``."""
    return merkle.leaf_hash(jcs.dumps({"type": "finding_root", "finding": index, "root": root.hex()}), h)


def campaign_root(roots: Sequence[bytes], h: merkle.Hash = merkle.b3) -> bytes:
    return merkle.root_of((finding_leaf(i, r, h) for i, r in enumerate(roots)), h)


def predicate(kind: Literal["finding", "campaign"], findings: Sequence[SealedFinding], results: Results | None) -> Predicate:
    """The statement's predicate (section 6): the same Struct ``bundle verify`` decodes."""
    fmt = findings[0].format if kind == "finding" else None
    return Predicate(__version__, kind, len(findings), fmt, results)


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
) -> Iterator[bytes]:
    """The bundle's bytes, in chunks: one finding, or a campaign of ``items`` (section 9).
    ``results`` holds, per item, the checks' results at sealing time for the predicate."""
    return seal_with_root(items, seed, campaign, results)[1]


def seal_with_root(
    items: Sequence[FindingInput],
    seed: bytes | None,
    campaign: bool,
    results: list[FindingResults] | None = None,
) -> tuple[bytes, Iterator[bytes]]:
    """As :func:`seal`, with the bundle root (section 5) the signed statement names."""
    kind: Literal["finding", "campaign"] = "campaign" if campaign else "finding"
    store = BlobStore(salt_key(seed))
    findings = [
        seal_finding(item, store, index if campaign else None) for index, item in enumerate(items)
    ]
    root = campaign_root([f.root for f in findings]) if campaign else findings[0].root
    roots256 = [f.root_sha256 for f in findings]
    root_sha256 = campaign_root(roots256, merkle.sha256) if campaign else roots256[0]
    summary: Results | None = None
    if results is not None:
        summary = Results(per_finding=tuple(results)) if campaign else Results(**msgspec.structs.asdict(results[0]))
    body: dict[str, Any] = msgspec.to_builtins(predicate(kind, findings, summary))
    originals = [(f.original.blake3 or f.original.digest, f.original.sha256) for f in findings]
    signed = signature_frame(root, originals, body, seed, root_sha256)
    return root, frames(kind, store, [r for f in findings for r in f.records], None, signed)


def frames(
    kind: str, store: BlobStore, records: Sequence[bytes], proof: bytes | None, signed: bytes
) -> Iterator[bytes]:
    """Section 2's order: magic, header, blobs by digest, records, proof, signature, end."""
    count = 0
    yield MAGIC
    yield frame(HEADER_KIND, header(kind))
    count += 1
    for digest, data in store.sorted_items():
        yield blob_frame_head(digest, len(data))
        yield data
        count += 1
    for record in records:
        yield frame(RECORD, record)
        count += 1
    if proof is not None:
        yield frame(PROOF, proof)
        count += 1
    yield frame(SIGNATURE, signed)
    count += 1
    yield frame(END, jcs.dumps({"frames": count}))
