"""Verifying an attestation file ``tracekit attest`` wrote (docs/attest.md, "Verification",
steps 1-6). Pure and bounded: bytes and trusted keys in, a report out; never raises on bad data."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta, Struct

from tracekit.attest.statements import STATEMENT_TYPE, SVR_TYPE, TEST_RESULT_TYPE
from tracekit.bundle import dsse, jcs, keys
from tracekit.bundle.container import BundleError
from tracekit.kernel.errors import Code, ExitCode, Finding, TracekitError, finding

MAX_BYTES = 64 * 1024 * 1024
MAX_LINES = 100_000
MAX_SIGNATURES = 16
DEPTH = 32

Hex64 = Annotated[str, Meta(pattern="^[0-9a-f]{64}$")]
TestId = Annotated[str, Meta(pattern="^[A-Za-z0-9_.:\\[\\]/-]{1,200}$")]
Ids = Annotated[tuple[TestId, ...], Meta(max_length=10_000)]


class Digests(Struct, frozen=True, forbid_unknown_fields=True):
    blake3: Hex64
    sha256: Hex64


class Descriptor(Struct, frozen=True, forbid_unknown_fields=True):
    name: Annotated[str, Meta(min_length=1, max_length=4096)]
    digest: Digests


Descriptors = Annotated[tuple[Descriptor, ...], Meta(max_length=100_000)]


class TestResultPredicate(Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    result: Literal["PASSED", "WARNED", "FAILED"]
    configuration: Descriptors
    passed_tests: Ids
    warned_tests: Ids
    failed_tests: Ids


class Verifier(Struct, frozen=True, forbid_unknown_fields=True):
    id: Annotated[str, Meta(pattern="^urn:tracekit:verifier:[A-Za-z0-9._+-]{1,64}$")]


class SvrPredicate(Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    verifier: Verifier
    time_created: Annotated[str, Meta(pattern="^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$")]
    properties: Annotated[tuple[Annotated[str, Meta(pattern="^TRACEKIT_[A-Z_]{1,60}$")], ...], Meta(max_length=64)]


class StatementShape(Struct, frozen=True, forbid_unknown_fields=True):
    type: Annotated[str, Meta(pattern="^https://in-toto\\.io/Statement/v1$")] = msgspec.field(name="_type")
    subject: Annotated[Descriptors, Meta(min_length=1)]
    predicate_type: Literal[TEST_RESULT_TYPE, SVR_TYPE] = msgspec.field(name="predicateType")  # type: ignore[valid-type]
    predicate: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Attested:
    """One verified envelope: its statement's kind and what it says, digests and our ids only."""

    line: int
    kind: Literal["test_result", "svr"]
    subjects: tuple[str, ...]
    """The subjects' SHA-256 digests."""
    signers: tuple[str, ...]
    trusted: tuple[str, ...]
    result: str | None = None
    failed: tuple[str, ...] = ()
    warned: tuple[str, ...] = ()
    properties: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class AttestReport:
    exit_code: int
    findings: tuple[Finding, ...]
    statements: tuple[Attested, ...] = ()


def _malformed(line: int, rule: str, step: int) -> TracekitError:
    return TracekitError(finding(Code.ATTEST_MALFORMED, line_no=line, rule=rule, step=step))


def _json(raw: bytes, line: int, rule: str, step: int) -> Any:
    try:
        return jcs.loads_canonical(raw, line, DEPTH)
    except BundleError:
        raise _malformed(line, rule, step) from None


def _signers(envelope: dict[str, Any], payload: bytes, line: int, trusted: dict[str, bytes]) -> tuple[str, ...]:
    """Step 3: every signature by a trusted key verifies; others are counted as untrusted."""
    entries = envelope["signatures"]
    if not isinstance(entries, list) or len(entries) > MAX_SIGNATURES:
        raise _malformed(line, "signatures", 3)
    message = dsse.pae(dsse.PAYLOAD_TYPE, payload)
    seen: list[str] = []
    for entry in entries:
        if not isinstance(entry, dict) or set(entry) != {"keyid", "sig"}:
            raise _malformed(line, "signature entry", 3)
        kid, sig = entry["keyid"], dsse.unb64(entry["sig"])
        if not isinstance(kid, str) or len(kid) != 64 or kid in seen or sig is None:
            raise _malformed(line, "signature entry", 3)
        public = trusted.get(kid)
        if public is not None and not keys.verify(public, sig, message):
            raise TracekitError(finding(Code.ATTEST_BAD_SIGNATURE, line_no=line))
        seen.append(kid)
    return tuple(seen)


def _envelope(raw: bytes, line: int, trusted: dict[str, bytes]) -> Attested:
    """Steps 2-5 for one line."""
    envelope = _json(raw, line, "envelope JSON", 2)
    if not isinstance(envelope, dict) or set(envelope) != {"payload", "payloadType", "signatures"}:
        raise _malformed(line, "envelope fields", 2)
    if envelope["payloadType"] != dsse.PAYLOAD_TYPE:
        raise _malformed(line, "payload type", 2)
    payload = dsse.unb64(envelope["payload"])
    if payload is None:
        raise _malformed(line, "payload encoding", 2)
    signers = _signers(envelope, payload, line, trusted)
    value = _json(payload, line, "statement JSON", 4)
    try:
        statement = msgspec.convert(value, StatementShape, strict=True)
        if statement.type != STATEMENT_TYPE:
            raise msgspec.ValidationError
        subjects = tuple(s.digest.sha256 for s in statement.subject)
        base = Attested(line, "svr", subjects, signers, tuple(k for k in signers if k in trusted))
        if statement.predicate_type == SVR_TYPE:
            svr = msgspec.convert(statement.predicate, SvrPredicate, strict=True)
            return _replace(base, properties=svr.properties)
        result = msgspec.convert(statement.predicate, TestResultPredicate, strict=True)
    except msgspec.ValidationError:
        raise _malformed(line, "statement or predicate", 5) from None
    return _replace(
        base, kind="test_result", result=result.result, failed=result.failed_tests, warned=result.warned_tests
    )


def _replace(base: Attested, **changes: Any) -> Attested:
    from dataclasses import replace

    return replace(base, **changes)


def verify_attestations(data: bytes, trusted: Sequence[bytes]) -> AttestReport:
    """Steps 1-6 over a whole file's bytes (the caller reads at most ``MAX_BYTES + 1``)."""
    try:
        if len(data) > MAX_BYTES:
            raise TracekitError(finding(Code.ATTEST_TOO_LARGE, limit=f"{MAX_BYTES}-byte"))
        if not data.endswith(b"\n"):
            raise _malformed(data.count(b"\n") + 1, "every line ends with a newline", 1)
        lines = data.split(b"\n")[:-1]
        if not lines or len(lines) > MAX_LINES:
            raise TracekitError(finding(Code.ATTEST_TOO_LARGE, limit=f"{MAX_LINES}-line"))
        ids = {keys.keyid(k): k for k in trusted}
        found = tuple(_envelope(raw, number, ids) for number, raw in enumerate(lines, 1))
    except TracekitError as error:
        return AttestReport(ExitCode.ERROR, (error.finding,))
    notes = _notes(found)
    return AttestReport(ExitCode.FAIL if notes else ExitCode.OK, notes, found)


def _notes(found: tuple[Attested, ...]) -> tuple[Finding, ...]:
    """Step 6: what keeps the file from exit 0."""
    notes: list[Finding] = []
    unsigned = sum(1 for a in found if not a.signers)
    untrusted = sum(1 for a in found if a.signers and not a.trusted)
    if unsigned:
        notes.append(finding(Code.ATTEST_UNSIGNED, count=unsigned))
    if untrusted:
        notes.append(finding(Code.ATTEST_UNTRUSTED_KEY, count=untrusted))
    failed = sum(1 for a in found if a.result == "FAILED")
    warned = sum(1 for a in found if a.result == "WARNED")
    if failed or warned:
        notes.append(finding(Code.ATTEST_RESULT_NOT_PASSED, count=failed + warned, failed=failed, warned=warned))
    return tuple(notes)

