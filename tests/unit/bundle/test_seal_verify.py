"""Sealing and verifying in memory: round trip, determinism, linear growth, exit codes, and a
second, independent implementation of PAE and Ed25519 (PyNaCl, i.e. libsodium) over the
envelope."""

from __future__ import annotations

import base64
import hashlib
import io

import nacl.exceptions
import nacl.signing
import pytest

from tests.unit.bundle import frames as fr
from tests.unit.bundle.factory import check, codes, key_pair, loop_evidence, original_for, sealed
from tracekit.bundle import keys
from tracekit.bundle.seal import FindingInput, seal


def test_signed_bundle_verifies_against_its_trusted_key() -> None:
    report = check(sealed())
    assert report.exit_code == 0 and report.findings == ()
    assert report.trusted_signers == (keys.keyid(key_pair()[1]),)


def test_untrusted_and_unsigned_bundles_exit_1() -> None:
    assert codes(check(sealed(), trusted=False)) == ["bundle.untrusted_key"]
    unsigned = check(sealed(signed=False))
    assert unsigned.exit_code == 1 and codes(unsigned) == ["bundle.unsigned"]


def test_same_input_and_key_give_identical_bytes() -> None:
    assert sealed(5) == sealed(5)
    assert sealed(5) != sealed(6)


def test_original_blob_holds_the_exact_bytes() -> None:
    evidence = loop_evidence(4)
    original = original_for(evidence)
    data = b"".join(seal([FindingInput(original, evidence)], key_pair()[0], False))
    report = check(data)
    digest = bytes.fromhex(report.originals[0][0])
    blobs = {p[:32]: fr.data_of(p) for k, p in fr.split(data) if k == b"B"}
    assert blobs[digest] == original
    assert report.originals[0][2] == hashlib.sha256(original).hexdigest()


def test_arguments_are_verbatim_and_say_how() -> None:
    data = sealed(2)
    blobs = {p[:32].hex(): fr.data_of(p) for k, p in fr.split(data) if k == b"B"}
    calls = [fr.doc(p) for k, p in fr.split(data) if k == b"R" and fr.doc(p)["type"] == "call"]
    assert [c["arguments_encoding"] for c in calls] == ["string", "jcs"]
    assert blobs[calls[0]["arguments"]["digest"]] == b'{"cmd": "ls -la", "n": 0}'
    assert blobs[calls[1]["arguments"]["digest"]] == b'{"cmd":"run 1","n":1}'


def _without_original(data: bytes) -> int:
    report = check(data)
    return len(data) - report.originals[0][1]


def test_bundle_grows_linearly_with_the_loop() -> None:
    per_turn = {turns: _without_original(sealed(turns)) / turns for turns in (10, 50, 200)}
    # each turn adds a bounded number of records and new blobs: the cost per turn levels off
    assert per_turn[200] <= per_turn[50] * 1.05 <= per_turn[10] * 1.05


def _blob_bytes(evidence: object) -> tuple[int, int]:
    data = b"".join(seal([FindingInput(b"o", evidence)], None, False))  # type: ignore[arg-type]
    blobs = [p for k, p in fr.split(data) if k == b"B"]
    return len(blobs), sum(len(fr.data_of(p)) for p in blobs)


def test_repeated_content_is_stored_once() -> None:
    count_one, bytes_one = _blob_bytes(loop_evidence(20))
    count_many, bytes_many = _blob_bytes(loop_evidence(20, epochs=8))
    # eight episodes sharing every text: only the seven new episode ids are new blobs
    assert count_many == count_one + 7
    assert bytes_many == bytes_one + sum(len(f"sample-1-epoch-{e}") for e in range(1, 8))


def _envelope(data: bytes) -> dict[str, object]:
    frame = fr.split(data)[fr.index_of(fr.split(data), b"S")][1]
    envelope = fr.doc(frame)["envelope"]
    assert isinstance(envelope, dict)
    return envelope


def _pae(payload_type: str, payload: bytes) -> bytes:
    """DSSE's PAE, written from the DSSE protocol text."""
    t = payload_type.encode()
    return b" ".join([b"DSSEv1", str(len(t)).encode(), t, str(len(payload)).encode(), payload])


def test_envelope_verifies_with_an_independent_pae_and_ed25519() -> None:
    envelope = _envelope(sealed())
    assert envelope["payloadType"] == "application/vnd.in-toto+json"
    payload = base64.b64decode(str(envelope["payload"]))
    signatures = envelope["signatures"]
    assert isinstance(signatures, list) and len(signatures) == 1
    public = key_pair()[1]
    assert signatures[0]["keyid"] == hashlib.sha256(public).hexdigest()
    verify_key = nacl.signing.VerifyKey(public)
    sig = base64.b64decode(signatures[0]["sig"])
    verify_key.verify(_pae(str(envelope["payloadType"]), payload), sig)
    with pytest.raises(nacl.exceptions.BadSignatureError):
        verify_key.verify(_pae("application/json", payload), sig)
    statement = fr.doc(payload)
    assert statement["_type"] == "https://in-toto.io/Statement/v1"
    assert statement["subject"][0]["name"] == "tracekit-bundle-root"


def test_a_pynacl_signature_verifies_in_tracekit() -> None:
    """The other direction: libsodium signs, tracekit's verifier accepts it."""
    signing = nacl.signing.SigningKey(bytes(range(32, 64)))
    public = bytes(signing.verify_key)
    data = sealed(signed=False)
    frames = fr.split(data)
    at = fr.index_of(frames, b"S")
    signed = fr.doc(frames[at][1])
    payload = base64.b64decode(signed["envelope"]["payload"])
    sig = signing.sign(_pae("application/vnd.in-toto+json", payload)).signature
    kid = hashlib.sha256(public).hexdigest()
    signed["envelope"]["signatures"] = [{"keyid": kid, "sig": base64.b64encode(sig).decode()}]
    signed["public_keys"] = [{"algorithm": "ed25519", "keyid": kid, "public_key": base64.b64encode(public).decode()}]
    frames[at] = (b"S", fr.canon(signed))
    for i, (kind, body) in enumerate(frames):  # version 3: each original's statement too
        if kind == b"A":
            subject = fr.doc(body)
            payload = base64.b64decode(subject["envelope"]["payload"])
            sig = signing.sign(_pae("application/vnd.in-toto+json", payload)).signature
            subject["envelope"]["signatures"] = [{"keyid": kid, "sig": base64.b64encode(sig).decode()}]
            frames[i] = (b"A", fr.canon(subject))
    from tracekit.bundle.verify import verify_bundle

    report = verify_bundle(io.BytesIO(fr.join(frames)), [public])
    assert report.exit_code == 0, report.findings


def test_model_turns_are_sealed_by_reference_as_runs() -> None:
    """Turn k of the loop resends messages 0..2k+1: one run per turn, not a list of indices, so
    the turn records grow linearly with the loop (docs/bundle-format.md section 4)."""
    report = check(sealed(50))
    assert report.exit_code == 0
    turns = [fr.doc(p) for k, p in fr.split(sealed(50)) if k == b"R" and fr.doc(p)["type"] == "turn"]
    assert len(turns) == 50
    assert [t["input"] for t in turns[:3]] == [[[0, 2]], [[0, 4]], [[0, 6]]]
    sizes = {n: sum(len(p) for k, p in fr.split(sealed(n)) if k == b"R" and fr.doc(p)["type"] == "turn") for n in (10, 200)}
    assert sizes[200] / 200 <= sizes[10] / 10 * 1.2
