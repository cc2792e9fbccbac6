"""The statement's subjects carry SHA-256 beside BLAKE3, the root included, under tracekit's
documented predicate URI; bundles sealed before keep verifying (docs/bundle-format.md sections 5,
6 and 7 step 8)."""

from __future__ import annotations

import base64
import hashlib
import io
import json
from pathlib import Path

import nacl.signing
import pytest
import rfc8785

from tests.unit.bundle import frames as fr
from tests.unit.bundle.factory import check, codes, key_pair, sealed
from tracekit.bundle import keys
from tracekit.bundle.verify import verify_bundle

LEGACY = Path(__file__).parent / "legacy"


def _rfc9162(leaves: list[bytes]) -> bytes:
    """RFC 9162 section 2.1.1 MTH with SHA-256, written from the RFC (recursive, for tests)."""
    if len(leaves) == 1:
        return hashlib.sha256(b"\x00" + leaves[0]).digest()
    k = 1 << ((len(leaves) - 1).bit_length() - 1)
    return hashlib.sha256(b"\x01" + _rfc9162(leaves[:k]) + _rfc9162(leaves[k:])).digest()


def _statement(data: bytes) -> dict:
    signed = fr.doc(fr.split(data)[fr.index_of(fr.split(data), b"S")][1])
    return json.loads(base64.b64decode(signed["envelope"]["payload"]))


def _records(data: bytes) -> list[bytes]:
    return [p for k, p in fr.split(data) if k == b"R"]


def test_root_subject_carries_the_rfc9162_sha256_root() -> None:
    data = sealed(4)
    statement = _statement(data)
    assert statement["predicateType"] == "urn:tracekit:predicate:bundle:v1"
    root = statement["subject"][0]
    assert root["name"] == "tracekit-bundle-root"
    assert root["digest"]["sha256"] == _rfc9162(_records(data)).hex()
    assert root["digest"]["blake3"] == check(data).root
    assert all(set(s["digest"]) == {"blake3", "sha256"} for s in statement["subject"])
    assert check(data).exit_code == 0


def test_campaign_sha256_root_is_over_the_findings_sha256_roots() -> None:
    data = sealed(2, campaign=3)
    by_finding: dict[int, list[bytes]] = {}
    for record in _records(data):
        by_finding.setdefault(json.loads(record)["finding"], []).append(record)
    leaves = [
        rfc8785.dumps({"type": "finding_root", "finding": i, "root": _rfc9162(r).hex()})
        for i, r in sorted(by_finding.items())
    ]
    assert _statement(data)["subject"][0]["digest"]["sha256"] == _rfc9162(leaves).hex()
    assert check(data).exit_code == 0


def _resigned(data: bytes, change) -> bytes:
    """The bundle with its statement changed and signed again by the same (trusted) key: only the
    statement's content can make it fail."""
    frames = fr.split(data)
    at = fr.index_of(frames, b"S")
    signed = fr.doc(frames[at][1])
    statement = json.loads(base64.b64decode(signed["envelope"]["payload"]))
    change(statement)
    payload = rfc8785.dumps(statement)
    kind = b"application/vnd.in-toto+json"
    pae = b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)
    sig = nacl.signing.SigningKey(key_pair()[0]).sign(pae).signature
    signed["envelope"]["payload"] = base64.b64encode(payload).decode()
    signed["envelope"]["signatures"][0]["sig"] = base64.b64encode(sig).decode()
    frames[at] = (b"S", fr.canon(signed))
    return fr.join(frames)


def _set_root_sha(statement: dict, value: str | None) -> None:
    if value is None:
        del statement["subject"][0]["digest"]["sha256"]
    else:
        statement["subject"][0]["digest"]["sha256"] = value


@pytest.mark.parametrize(
    "change",
    [
        lambda s: _set_root_sha(s, "0" * 64),
        lambda s: _set_root_sha(s, None),  # a current statement without the SHA-256 root
        lambda s: s.update(predicateType="https://tracekit.invalid/bundle-predicate/v1"),
    ],
    ids=["wrong-sha256-root", "sha256-root-dropped", "legacy-type-with-sha256"],
)
def test_a_signed_but_wrong_root_subject_is_a_root_mismatch(change) -> None:
    report = check(_resigned(sealed(3), change))
    assert report.exit_code == 2
    assert codes(report) == ["bundle.root_mismatch"]


def test_an_unknown_predicate_type_is_invalid() -> None:
    report = check(_resigned(sealed(3), lambda s: s.update(predicateType="urn:tracekit:other:v1")))
    assert codes(report) == ["bundle.statement_invalid"]


@pytest.mark.parametrize("name", ["finding.tkb", "campaign.tkb", "proof.tkb"])
def test_bundles_sealed_before_the_sha256_root_keep_verifying(name: str) -> None:
    """Sealed by the previous release (blake3-only root, the `.invalid` predicate type)."""
    data = (LEGACY / name).read_bytes()
    assert "sha256" not in _statement(data)["subject"][0]["digest"]
    trusted = keys.parse_public_keys((LEGACY / "legacy.pub").read_bytes(), 16)
    assert trusted
    report = verify_bundle(io.BytesIO(data), trusted)
    assert (report.exit_code, codes(report)) == (0, [])


def test_a_legacy_bundle_cannot_gain_an_unchecked_sha256_root() -> None:
    data = (LEGACY / "finding.tkb").read_bytes()
    report = check(_resigned(data, lambda s: _set_root_sha(s, "1" * 64)))
    assert codes(report) == ["bundle.root_mismatch"]


def test_a_proof_of_a_current_campaign_verifies() -> None:
    from tracekit.bundle.campaign import prove
    from tracekit.bundle.limits import DEFAULT_BUNDLE_LIMITS

    data = sealed(2, campaign=3)
    report = check(data)
    proof = b"".join(prove(io.BytesIO(data), DEFAULT_BUNDLE_LIMITS, 1, report.finding_roots))
    proved = check(proof)
    assert (proved.exit_code, proved.kind, proved.root) == (0, "proof", report.root)
    assert _statement(proof)["subject"][0]["digest"]["sha256"] == _statement(data)["subject"][0]["digest"]["sha256"]


@pytest.mark.parametrize("campaign", [0, 3])
def test_stock_verifiers_accept_the_bundle_statement(campaign: int) -> None:
    """securesystemslib verifies the envelope; the in-toto-attestation bindings validate the
    Statement (every subject has a digest a consumer knows: sha256)."""
    from google.protobuf import json_format
    from in_toto_attestation.v1.statement import Statement
    from securesystemslib.dsse import Envelope
    from securesystemslib.exceptions import VerificationError
    from securesystemslib.signer import SSlibKey

    data = sealed(3, campaign=campaign)
    frames = fr.split(data)
    envelope = fr.doc(frames[fr.index_of(frames, b"S")][1])["envelope"]
    public = key_pair()[1]
    key = SSlibKey(keys.keyid(public), "ed25519", "ed25519", {"public": public.hex()})
    assert key.keyid in Envelope.from_dict(dict(envelope)).verify([key], 1)
    typed = Statement([], "", {})
    json_format.ParseDict(_statement(data), typed.pb)
    typed.validate()
    assert all("sha256" in s.digest for s in typed.pb.subject)
    forged = _resigned(data, lambda s: None)  # same statement, then one byte of the payload changed
    signed = fr.doc(fr.split(forged)[fr.index_of(fr.split(forged), b"S")][1])["envelope"]
    payload = bytearray(base64.b64decode(signed["payload"]))
    payload[-2] ^= 1
    signed["payload"] = base64.b64encode(bytes(payload)).decode()
    with pytest.raises(VerificationError):
        Envelope.from_dict(dict(signed)).verify([key], 1)
