"""Verifying a bundle from a binary handle, in one streaming pass (docs/bundle-format.md
section 7, steps 1-10). Never raises on bad data: the report carries the first error."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Annotated, Any, BinaryIO

import blake3
import msgspec
from msgspec import Struct

from tracekit.bundle import jcs
from tracekit.bundle.blobs import SALT_BYTES
from tracekit.bundle.container import (
    BLOB,
    DIGEST_BYTES,
    END,
    HEADER_KIND,
    ORIGINAL,
    PROOF,
    RECORD,
    SIGNATURE,
    WITHHELD,
    BundleError,
    FrameHead,
    FrameReader,
    bad,
)
from tracekit.bundle.limits import DEFAULT_BUNDLE_LIMITS, BundleLimits
from tracekit.bundle.record_step import RECORD_DEPTH, State, record, record_run, typed_record
from tracekit.bundle.records import Count, Hex64, Manifest
from tracekit.bundle.roots import bundle_root, sha256_root
from tracekit.bundle.signature import Signed, check_signatures
from tracekit.bundle.subjects import OriginalCheck
from tracekit.kernel import collector
from tracekit.kernel.errors import Code, Finding, finding

KINDS = ("finding", "campaign", "proof")
_HEADER_KEYS = {"bundle_version", "kind", "hash", "canonicalization", "signature"}


class _WithheldFrame(Struct, frozen=True, forbid_unknown_fields=True):
    digest: Hex64
    length: Count
    reason: Annotated[str, msgspec.Meta(pattern="^(secret|match|requested)$")]


class Withheld(Struct, frozen=True):
    """A withheld blob: digest, length and our reason name."""

    digest: str
    length: int
    reason: str


class BundleReport(Struct, frozen=True):
    """What verification found (step 10)."""

    exit_code: int
    findings: tuple[Finding, ...]
    kind: str | None = None
    root: str | None = None
    finding_roots: tuple[str, ...] = ()
    originals: tuple[tuple[str, int, str | None], ...] = ()
    """Per finding: the original's BLAKE3 digest, length and SHA-256."""
    formats: tuple[str, ...] = ()
    blobs: int = 0
    records: int = 0
    withheld: tuple[Withheld, ...] = ()
    signers: tuple[str, ...] = ()
    trusted_signers: tuple[str, ...] = ()
    statement: Any = None
    envelope: Any = None
    proof_index: int | None = None
    version: int = 0
    """The header's ``bundle_version``."""
    original_envelopes: tuple[Any, ...] = ()
    """Version 3: per finding held, its original subject statement's DSSE envelope (None when
    withheld with the original; section 6, "Original subjects")."""


def verify_bundle(
    handle: BinaryIO,
    trusted: Sequence[bytes] = (),
    limits: BundleLimits = DEFAULT_BUNDLE_LIMITS,
) -> BundleReport:
    """Verify the bundle read from ``handle`` against the ``trusted`` raw Ed25519 keys."""
    state = State(limits, trusted)
    try:
        reader = FrameReader(handle, limits)
        with collector.paused():  # a record's objects die with it: no cycle to collect
            _walk(reader, state)
        return _verdict(state)
    except BundleError as error:
        return BundleReport(2, (error.finding,), kind=state.kind or None)


def _walk(reader: FrameReader, state: State) -> None:
    """Steps 2-7: frames in order, blobs hashed, records checked, the end frame counted."""
    phase = 0  # 0 header, 1 blobs, 2 records, 3 proof, 4 signature, 5 end
    after_records: FrameHead | None = None
    while True:
        head, after_records = after_records or reader.next_head(), None
        if head is None:
            raise bad(Code.BUNDLE_TRUNCATED, frame=reader.count)
        rank = _RANK[head.kind]
        if not rank == phase == 2 and not _allowed(phase, rank, state):  # record after record: allowed
            raise bad(Code.BUNDLE_FRAME_ORDER, frame=head.number)
        phase = rank
        if head.kind == BLOB:
            _blob(reader, head, state)
            continue
        if head.kind == RECORD and state.limits.depth >= RECORD_DEPTH:
            after_records = record_run(reader, head, state)
            if after_records is None:
                raise bad(Code.BUNDLE_TRUNCATED, frame=reader.count)
            continue
        raw = reader.payload(head)
        value = jcs.loads_canonical(raw, head.number, state.limits.depth)
        if head.kind == HEADER_KIND:
            _header(value, state)
        elif head.kind == WITHHELD:
            _withheld(value, head, state)
        elif head.kind == RECORD:
            record(typed_record(value, head), isinstance(value, dict) and "finding" in value, raw, head, state)
        elif head.kind == PROOF:
            state.proof = value
        elif head.kind == SIGNATURE:
            state.signed, state.signed_frame = value, head.number
        elif head.kind == ORIGINAL:
            _original_statement(value, state)
        else:
            count = value.get("frames") if isinstance(value, dict) else None
            if value != {"frames": count} or type(count) is not int or count != head.number:
                raise bad(Code.BUNDLE_FRAME_COUNT_MISMATCH)
            if not reader.at_end():
                raise bad(Code.BUNDLE_TRAILING_DATA)
            return


_RANK = {HEADER_KIND: 0, BLOB: 1, WITHHELD: 1, RECORD: 2, PROOF: 3, SIGNATURE: 4, ORIGINAL: 5, END: 6}
"""Each frame kind's place in section 2's order."""


def _allowed(phase: int, rank: int, state: State) -> bool:
    """Section 2's order; the kind is empty until the header was read."""
    kind = state.kind
    if rank == 0 or not kind:
        return rank == 0 and not kind  # the header, and only as the first frame
    if rank == 1:
        return phase in (0, 1)
    if rank == 2:
        return phase in (0, 1, 2)
    if rank == 3:
        return kind == "proof" and phase == 2
    if rank == 4:
        return phase == (3 if kind == "proof" else 2)
    if rank == 5:
        return state.version == 3 and phase in (4, 5)
    return phase == (5 if state.version == 3 else 4)


def _header(value: Any, state: State) -> None:
    if not isinstance(value, dict) or set(value) != _HEADER_KEYS:
        raise bad(Code.BUNDLE_UNSUPPORTED_VERSION)
    if type(value["bundle_version"]) is not int or value["bundle_version"] not in (1, 2, 3):
        raise bad(Code.BUNDLE_UNSUPPORTED_VERSION)
    if value["kind"] not in KINDS:
        raise bad(Code.BUNDLE_UNSUPPORTED_VERSION)
    if (value["hash"], value["canonicalization"], value["signature"]) != (
        "blake3",
        "rfc8785",
        "dsse-ed25519",
    ):
        raise bad(Code.BUNDLE_UNKNOWN_ALGORITHM)
    state.kind = value["kind"]
    state.version = value["bundle_version"]


def _order(digest: bytes, head: FrameHead, state: State) -> None:
    if digest <= state.last_digest:
        raise bad(Code.BUNDLE_BLOB_ORDER, frame=head.number)
    state.last_digest = digest


def _blob(reader: FrameReader, head: FrameHead, state: State) -> None:
    """Step 4: the payload after its digest (salt and data in version 2) hashes to the digest;
    SHA-256 (and in version 2 the plain BLAKE3) of the data kept for step 5."""
    salt_bytes = SALT_BYTES if state.version >= 2 else 0
    if head.length < DIGEST_BYTES + salt_bytes:
        raise bad(Code.BUNDLE_BLOB_DIGEST_MISMATCH, frame=head.number)
    declared = reader.payload(FrameHead(head.number, head.kind, DIGEST_BYTES))
    _order(declared, head, state)
    b3, sha, plain = blake3.blake3(), hashlib.sha256(), blake3.blake3()
    if salt_bytes:
        b3.update(reader.payload(FrameHead(head.number, head.kind, salt_bytes)))
    length = head.length - DIGEST_BYTES - salt_bytes
    for chunk in reader.chunks(length):
        b3.update(chunk)
        sha.update(chunk)
        if salt_bytes:
            plain.update(chunk)
    if b3.digest() != declared:
        raise bad(Code.BUNDLE_BLOB_DIGEST_MISMATCH, frame=head.number)
    state.blobs.add(declared, length, sha.digest(), plain.digest() if salt_bytes else None)


def _withheld(value: Any, head: FrameHead, state: State) -> None:
    try:
        entry = msgspec.convert(value, _WithheldFrame, strict=True)
    except msgspec.ValidationError:
        raise bad(Code.BUNDLE_RECORD_INVALID, frame=head.number, rule="withheld entry") from None
    digest = bytes.fromhex(entry.digest)
    _order(digest, head, state)
    state.blobs.add(digest, entry.length)
    state.reasons[digest] = entry.reason


def _close(state: State) -> Signed:
    """Steps 5 (closing checks), 6, 8 and 9, once: at the first original subject statement of a
    version 3 bundle (all records and the signature frame are read by then), else at the end."""
    if state.closed is not None:
        return state.closed  # type: ignore[no-any-return]
    for shape in state.shapes:
        shape.close()
    if not state.shapes:
        raise bad(Code.BUNDLE_RECORD_INVALID, frame=0, rule="no manifest")
    unreferenced = state.blobs.unreferenced()
    if unreferenced:
        raise bad(Code.BUNDLE_BLOB_UNREFERENCED, count=unreferenced)
    both = [trees.roots() for trees in state.trees]
    roots = [b3_root for b3_root, _ in both]
    first = state.shapes[0].index
    root, proof_index = bundle_root(state.kind, roots, state.proof, state.limits, first)
    state.roots = (root, roots, proof_index)
    root256 = sha256_root(state.kind, [sha256_root for _, sha256_root in both])
    proof_size = state.proof["size"] if proof_index is not None else None
    subjects = [(m.original.blake3 or m.original.digest, m.original.length, m.original.sha256) for m in _manifests(state)]
    state.closed = check_signatures(
        state.signed, root, subjects, state.kind, (proof_index, proof_size), state.trusted, state.limits, root256, state.version
    )
    return state.closed  # type: ignore[no-any-return]


def _manifests(state: State) -> list[Manifest]:
    return [shape.manifest for shape in state.shapes if shape.manifest]


def _original_statement(value: Any, state: State) -> None:
    """Step 8b: the next finding's original subject statement (version 3), checked as it is read
    (one is held at a time)."""
    signed = _close(state)
    manifests = _manifests(state)
    position = len(state.original_envelopes)
    if position >= len(manifests):
        raise bad(Code.BUNDLE_STATEMENT_INVALID, rule="original statements")
    original = manifests[position].original
    digest = bytes.fromhex(original.digest)
    length, held, sha = state.blobs.entry(digest)
    kept = state.blobs.plain(digest)
    plain = (kept.hex(), sha.hex()) if held and sha is not None and kept is not None else None
    if state.original_check is None:  # one per bundle: its keys are made once
        state.original_check = OriginalCheck(signed.statement["subject"][0]["digest"], signed.signers, signed.public, state.limits)
    check = state.original_check
    index = state.shapes[position].index
    state.original_envelopes.append(check.check(value, index, (original.digest, length), plain, state.reasons.get(digest)))


def _verdict(state: State) -> BundleReport:
    """Step 10, after the checks of :func:`_close`."""
    signed = _close(state)
    manifests = _manifests(state)
    if state.version == 3 and len(state.original_envelopes) != len(manifests):
        raise bad(Code.BUNDLE_STATEMENT_INVALID, rule="original statements")
    root, roots, proof_index = state.roots
    withheld = tuple(
        Withheld(d.hex(), state.blobs.entry(d)[0], state.reasons[d]) for d in sorted(state.reasons)
    )
    notes: list[Finding] = []
    if not signed.signers:
        notes.append(finding(Code.BUNDLE_UNSIGNED))
    elif not signed.trusted:
        notes.append(finding(Code.BUNDLE_UNTRUSTED_KEY))
    if withheld:
        notes.append(finding(Code.BUNDLE_BLOBS_WITHHELD, count=len(withheld)))
    return BundleReport(
        1 if notes else 0,
        tuple(notes),
        kind=state.kind,
        root=root.hex(),
        finding_roots=tuple(r.hex() for r in roots),
        originals=tuple(_original_row(m, state) for m in manifests),
        formats=tuple(m.format for m in manifests),
        blobs=len(state.blobs),
        records=state.records,
        withheld=withheld,
        signers=signed.signers,
        trusted_signers=signed.trusted,
        statement=signed.statement,
        envelope=signed.envelope,
        proof_index=proof_index,
        version=state.version,
        original_envelopes=tuple(state.original_envelopes),
    )


def _original_row(manifest: Manifest, state: State) -> tuple[str, int, str | None]:
    """The report's row for an original: blob digest, length, and its SHA-256 where published
    (in version 3 only while the original is held)."""
    original = manifest.original
    if original.sha256 is not None:
        return (original.digest, original.length, original.sha256)
    sha = state.blobs.entry(bytes.fromhex(original.digest))[2]
    return (original.digest, original.length, sha.hex() if sha is not None else None)
