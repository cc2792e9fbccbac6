"""Redaction keeps digests (docs/bundle-format.md section 8); campaign proofs verify alone
(section 9)."""

from __future__ import annotations

import base64
import io
import re
import urllib.parse

import blake3

from tests.unit.bundle import frames as fr
from tests.unit.bundle.factory import (
    SECRET,
    check,
    codes,
    key_pair,
    loop_evidence,
    original_for,
    sealed,
)
from tracekit.bundle import redact
from tracekit.bundle.campaign import prove
from tracekit.bundle.limits import DEFAULT_BUNDLE_LIMITS as LIMITS
from tracekit.bundle.seal import FindingInput, seal
from tracekit.bundle.verify import verify_bundle


def _redacted(data: bytes, select: redact.Selector) -> tuple[bytes, dict[bytes, str]]:
    report = check(data)
    originals = [bytes.fromhex(o[0]) for o in report.originals]
    chosen = redact.plan(io.BytesIO(data), LIMITS, select, originals)
    return b"".join(redact.rewrite(io.BytesIO(data), LIMITS, chosen, originals)), chosen


def _forms(secret: str) -> list[bytes]:
    raw = secret.encode()
    return [raw, base64.b64encode(raw), urllib.parse.quote(secret).encode(), raw.hex().encode()]


def test_secrets_are_withheld_and_the_seal_still_verifies() -> None:
    data = sealed(6, secret=SECRET)
    assert SECRET.encode() in data
    out, chosen = _redacted(data, redact.secrets_selector())
    assert len(chosen) == 2  # the message holding it, and the original file
    report = check(out)
    assert report.exit_code == 1 and codes(report) == ["bundle.blobs_withheld"]
    assert report.root == check(data).root and report.trusted_signers
    assert {w.reason for w in report.withheld} == {"secret"}
    for form in _forms(SECRET):
        assert form not in out


def test_an_encoded_secret_is_found() -> None:
    encoded = base64.b64encode(SECRET.encode()).decode()
    evidence = loop_evidence(4, secret=encoded)
    data = b"".join(seal([FindingInput(original_for(evidence), evidence)], key_pair()[0], False))
    out, chosen = _redacted(data, redact.secrets_selector())
    assert chosen and encoded.encode() not in out and check(out).exit_code == 1


def test_match_and_blob_selectors() -> None:
    data = sealed(4)
    out, chosen = _redacted(data, redact.match_selector(re.compile(r"step 2:")))
    assert chosen and b"step 2:" not in out and check(out).exit_code == 1
    digest = bytes.fromhex(check(data).originals[0][0])
    out, chosen = _redacted(data, redact.digest_selector([digest]))
    assert set(chosen) == {digest} and check(out).exit_code == 1


def test_nothing_matched_changes_nothing() -> None:
    data = sealed(3)
    out, chosen = _redacted(data, redact.match_selector(re.compile("no such text")))
    assert chosen == {} and out == data


def test_a_revealed_blob_matches_the_withheld_digest() -> None:
    data = sealed(6, secret=SECRET)
    held = {p[:32]: p[32:] for k, p in fr.split(data) if k == b"B"}
    out, _ = _redacted(data, redact.secrets_selector())
    for entry in check(out).withheld:
        # revealing a blob reveals its salt too (section 3, "Salted blobs")
        salt, revealed = held[bytes.fromhex(entry.digest)][: fr.SALT], held[bytes.fromhex(entry.digest)][fr.SALT :]
        assert blake3.blake3(salt + revealed).hexdigest() == entry.digest and len(revealed) == entry.length


def _proof(data: bytes, index: int) -> bytes:
    report = check(data)
    return b"".join(prove(io.BytesIO(data), LIMITS, index, report.finding_roots))


def test_every_campaign_proof_verifies_alone() -> None:
    data = sealed(2, campaign=5)
    report = check(data)
    assert report.exit_code == 0 and report.kind == "campaign" and len(report.finding_roots) == 5
    for index in range(5):
        proof = _proof(data, index)
        alone = check(proof)
        assert alone.exit_code == 0, alone.findings
        assert alone.root == report.root and alone.proof_index == index
        assert alone.originals[0] == report.originals[index]
        assert len(proof) < len(data)


def test_a_proof_for_another_index_or_root_fails() -> None:
    data = sealed(2, campaign=3)
    frames = fr.split(_proof(data, 1))
    at = fr.index_of(frames, b"P")
    value = fr.doc(frames[at][1])
    for change in ({"index": 2}, {"size": 4}, {"path": value["path"][::-1]}):
        frames_copy = list(frames)
        frames_copy[at] = (b"P", fr.canon({**value, **change}))
        assert codes(check(fr.join(frames_copy))) == ["bundle.proof_invalid"], change


def test_a_redacted_campaign_still_proves() -> None:
    evidence = [loop_evidence(3, secret=SECRET if i == 1 else None) for i in range(3)]
    items = [FindingInput(original_for(e), e) for e in evidence]
    data = b"".join(seal(items, key_pair()[0], True))
    out, chosen = _redacted(data, redact.secrets_selector())
    assert chosen and SECRET.encode() not in out
    proof = _proof(out, 1)
    report = verify_bundle(io.BytesIO(proof), [key_pair()[1]])
    assert report.exit_code == 1 and codes(report) == ["bundle.blobs_withheld"]


def test_a_proof_whose_other_subjects_hold_foreign_text_is_refused() -> None:
    """A proof checks its own finding's subject against its records; the other findings'
    subjects, which `bundle show` prints, must still be our names and digests, even under a
    valid signature (docs/bundle-format.md step 8)."""
    import nacl.signing

    canary = "CANARY-subject-5e1d"
    frames = fr.split(_proof(sealed(2, campaign=3), 0))
    at = fr.index_of(frames, b"S")
    signed = fr.doc(frames[at][1])
    statement = fr.doc(base64.b64decode(signed["envelope"]["payload"]))
    statement["subject"].append({"name": canary, "digest": {"sha256": "0" * 64}})  # version 3: root only
    payload = fr.canon(statement)
    signed["envelope"]["payload"] = base64.b64encode(payload).decode()
    kind = b"application/vnd.in-toto+json"
    message = b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)
    sig = nacl.signing.SigningKey(key_pair()[0]).sign(message).signature
    signed["envelope"]["signatures"][0]["sig"] = base64.b64encode(sig).decode()
    frames[at] = (b"S", fr.canon(signed))
    report = check(fr.join(frames))
    assert codes(report) == ["bundle.statement_invalid"]
    assert all(canary not in f.message for f in report.findings)
