"""The standard in-toto statements ``tracekit attest`` writes (docs/attest.md, "Statements"):
one Test Result v0.1 per verdict, one Simple Verification Result v0.1 for the run, each in a
DSSE envelope, one per line. Pure: the caller hashes the files and runs the checks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from tracekit import __version__
from tracekit.bundle import dsse, jcs, keys

STATEMENT_TYPE = dsse.STATEMENT_TYPE
TEST_RESULT_TYPE = "https://in-toto.io/attestation/test-result/v0.1"
SVR_TYPE = "https://in-toto.io/attestation/svr/v0.1"
VERIFIER_ID = f"urn:tracekit:verifier:{__version__}"
"""The SVR ``verifier.id``: versioned with tracekit, whose checks it names (docs/attest.md)."""
PROPERTY_PREFIX = "TRACEKIT_"

Result = Literal["PASSED", "WARNED", "FAILED"]
CheckName = Literal["verify", "check"]


@dataclass(frozen=True, slots=True)
class Subject:
    """A file by name, with its SHA-256 and BLAKE3 (docs/attest.md, "Subjects")."""

    name: str
    sha256: str
    blake3: str

    def descriptor(self) -> dict[str, Any]:
        return {"name": self.name, "digest": {"blake3": self.blake3, "sha256": self.sha256}}


@dataclass(frozen=True, slots=True)
class Verdict:
    """One check's verdict on one input: the Test Result's fields (docs/attest.md, step 2)."""

    check: CheckName
    subjects: tuple[Subject, ...]
    result: Result
    passed: tuple[str, ...] = ()
    warned: tuple[str, ...] = ()
    failed: tuple[str, ...] = ()
    configuration: tuple[Subject, ...] = field(default=())


def result_statement(verdict: Verdict) -> dict[str, Any]:
    """A Statement v1 with a Test Result v0.1 predicate; the test ids sorted and distinct."""
    return {
        "_type": STATEMENT_TYPE,
        "subject": [s.descriptor() for s in verdict.subjects],
        "predicateType": TEST_RESULT_TYPE,
        "predicate": {
            "result": verdict.result,
            "configuration": [c.descriptor() for c in verdict.configuration],
            "passedTests": sorted(set(verdict.passed)),
            "warnedTests": sorted(set(verdict.warned)),
            "failedTests": sorted(set(verdict.failed)),
        },
    }


def properties(verdicts: Sequence[Verdict]) -> list[str]:
    """The SVR's properties: only those that hold for every subject of the run (docs/attest.md,
    step 3): each check that ran and PASSED on every input."""
    found: list[str] = []
    for check in ("verify", "check"):
        ran = [v for v in verdicts if v.check == check]
        if ran and all(v.result == "PASSED" for v in ran):
            found.append(f"{PROPERTY_PREFIX}{check.upper()}_PASSED")
    return found


def svr_statement(subjects: Sequence[Subject], verdicts: Sequence[Verdict], time: str) -> dict[str, Any]:
    """A Statement v1 with a Simple Verification Result v0.1 predicate over every subject."""
    return {
        "_type": STATEMENT_TYPE,
        "subject": [s.descriptor() for s in subjects],
        "predicateType": SVR_TYPE,
        "predicate": {
            "verifier": {"id": VERIFIER_ID},
            "timeCreated": time,
            "properties": properties(verdicts),
        },
    }


def envelope_line(statement: dict[str, Any], seed: bytes | None) -> bytes:
    """One JSON Lines record: the DSSE envelope (RFC 8785 form) over ``JCS(statement)``, signed
    with Ed25519 when ``seed`` is given, and a newline (docs/attest.md, step 4)."""
    payload = jcs.dumps(statement)
    signatures: tuple[dsse.Signature, ...] = ()
    if seed is not None:
        message = dsse.pae(dsse.PAYLOAD_TYPE, payload)
        signatures = (dsse.Signature(keys.keyid(keys.public_of(seed)), keys.sign(seed, message)),)
    envelope = dsse.Envelope(payload, dsse.PAYLOAD_TYPE, signatures)
    return jcs.dumps(dsse.envelope_json(envelope)) + b"\n"
