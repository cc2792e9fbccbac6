"""Version 3: each original is named by a signed statement of its own (docs/bundle-format.md
section 6, "Original subjects"; step 8b), which redaction withholds with the original, so that a
redacted bundle publishes no plain digest of withheld content while the sealer's signature
stays whole (section 8); bundles of versions 1 and 2 keep verifying."""

from __future__ import annotations

import base64
import copy
import hashlib
import io
import json
import re
from pathlib import Path

import blake3
import nacl.signing
import pytest

from tests.unit.bundle import frames as fr
from tests.unit.bundle.factory import check, codes, key_pair, sealed
from tracekit.bundle import keys, redact
from tracekit.bundle.campaign import prove
from tracekit.bundle.limits import DEFAULT_BUNDLE_LIMITS as LIMITS
from tracekit.bundle.seal import FindingInput, seal
from tracekit.bundle.verify import verify_bundle
from tracekit.kernel.evidence import (
    Arguments,
    Episode,
    EvidenceFile,
    Message,
    RunFacts,
    ToolCall,
    ToolResult,
)

LEGACY_V2 = Path(__file__).parent / "legacy" / "v2"
PAYLOAD_TYPE = b"application/vnd.in-toto+json"


def _payload(envelope: dict) -> dict:
    return json.loads(base64.b64decode(envelope["payload"]))


def _subject_frames(data: bytes) -> list[dict]:
    return [fr.doc(p) for k, p in fr.split(data) if k == b"A"]


def _redact(data: bytes, select: redact.Selector) -> tuple[bytes, dict[bytes, str]]:
    originals = [bytes.fromhex(o[0]) for o in check(data).originals]
    chosen = redact.plan(io.BytesIO(data), LIMITS, select, originals)
    return b"".join(redact.rewrite(io.BytesIO(data), LIMITS, chosen, originals)), chosen


def _original_digest(data: bytes, finding: int) -> bytes:
    return bytes.fromhex(check(data).originals[finding][0])


def _sign(envelope: dict, seed: bytes) -> None:
    payload = base64.b64decode(envelope["payload"])
    message = b"DSSEv1 %d %s %d %s" % (len(PAYLOAD_TYPE), PAYLOAD_TYPE, len(payload), payload)
    sig = nacl.signing.SigningKey(seed).sign(message).signature
    kid = hashlib.sha256(bytes(nacl.signing.SigningKey(seed).verify_key)).hexdigest()
    envelope["signatures"] = [{"keyid": kid, "sig": base64.b64encode(sig).decode()}]


def _with_subject(data: bytes, nth: int, change) -> bytes:
    """The bundle with its ``nth`` original statement changed by ``change`` and signed again
    with the bundle's own key (a valid signature over a wrong statement)."""
    frames = fr.split(data)
    at = fr.index_of(frames, b"A", nth)
    value = fr.doc(frames[at][1])
    statement = _payload(value["envelope"])
    change(statement)
    value["envelope"]["payload"] = base64.b64encode(fr.canon(statement)).decode()
    _sign(value["envelope"], key_pair()[0])
    frames[at] = (b"A", fr.canon(value))
    return fr.join(frames)


@pytest.mark.parametrize("campaign", [0, 3])
def test_each_original_has_a_signed_statement_that_stock_verifiers_accept(campaign: int) -> None:
    from google.protobuf import json_format
    from in_toto_attestation.v1.statement import Statement
    from securesystemslib.dsse import Envelope
    from securesystemslib.exceptions import VerificationError
    from securesystemslib.signer import SSlibKey

    data = sealed(2, campaign=campaign)
    report = check(data)
    assert (report.exit_code, codes(report)) == (0, [])
    public = key_pair()[1]
    key = SSlibKey(keys.keyid(public), "ed25519", "ed25519", {"public": public.hex()})
    bundle_statement = _payload(fr.doc(fr.split(data)[fr.index_of(fr.split(data), b"S")][1])["envelope"])
    assert [s["name"] for s in bundle_statement["subject"]] == ["tracekit-bundle-root"]
    subjects = _subject_frames(data)
    assert [s["finding"] for s in subjects] == list(range(max(campaign, 1)))
    for value, (digest, length, sha) in zip(subjects, report.originals, strict=True):
        assert key.keyid in Envelope.from_dict(copy.deepcopy(value["envelope"])).verify([key], 1)
        statement = _payload(value["envelope"])
        typed = Statement([], "", {})
        json_format.ParseDict(statement, typed.pb)
        typed.validate()
        assert statement["subject"][0]["digest"]["sha256"] == sha
        assert statement["predicate"]["bundle_root"] == bundle_statement["subject"][0]["digest"]
        assert statement["predicate"]["original"] == {"digest": digest, "length": length}
    forged = copy.deepcopy(subjects[0]["envelope"])
    payload = bytearray(base64.b64decode(forged["payload"]))
    payload[-3] ^= 1
    forged["payload"] = base64.b64encode(bytes(payload)).decode()
    with pytest.raises(VerificationError):
        Envelope.from_dict(forged).verify([key], 1)
    records = [fr.doc(p) for k, p in fr.split(data) if k == b"R" and fr.doc(p)["type"] == "manifest"]
    assert all(set(r["original"]) == {"digest", "length"} for r in records)


def _pin_bundle(pin: str) -> tuple[bytes, bytes]:
    call = ToolCall(
        index=0, turn=0, name="lookup_pin", call_id="c0",
        arguments=Arguments(shape="string", text="{}"), result=ToolResult(text=pin),
    )
    messages = (Message(0, "user", "What is my PIN?"), Message(1, "tool", pin))
    episode = Episode(id="s1", facts=RunFacts(tool="inspect_ai"), messages=messages, calls=(call,), turns=())
    original = b"What is my PIN?\n" + pin.encode() + b"\n"
    evidence = EvidenceFile(format="inspect", format_version="2", episodes=(episode,))
    return b"".join(seal([FindingInput(original, evidence)], key_pair()[0], False)), original


def _published(data: bytes) -> bytes:
    """Every byte a receiver sees, with each envelope's base64 payload decoded beside it."""
    payloads = [base64.b64decode(m) for m in re.findall(rb'"payload":"([A-Za-z0-9+/=]+)"', data)]
    return data + b"".join(payloads)


def test_no_published_digest_confirms_a_guess_of_a_withheld_original() -> None:
    """Someone who knows the whole trace but a four-digit PIN hashes every candidate original
    (SHA-256 and BLAKE3, raw and hex): before redaction the candidate is confirmed, after it
    nothing matches, and the sealer's signature still verifies."""
    data, original = _pin_bundle("4821")

    def hits(published: bytes) -> list[str]:
        found = []
        for n in range(10_000):
            guess = original.replace(b"4821", f"{n:04d}".encode())
            for digest in (hashlib.sha256(guess).digest(), blake3.blake3(guess).digest()):
                if digest in published or digest.hex().encode() in published:
                    found.append(f"{n:04d}")
        return sorted(set(found))

    assert hits(_published(data)) == ["4821"]  # the plain subject of a held original
    redacted, chosen = _redact(data, redact.match_selector(re.compile("^[0-9]{4}$")))
    assert _original_digest(data, 0) in chosen
    assert hits(_published(redacted)) == []
    report = check(redacted)
    assert (report.exit_code, codes(report)) == (1, ["bundle.blobs_withheld"])
    assert report.signers == (keys.keyid(key_pair()[1]),) and report.originals[0][2] is None
    assert _subject_frames(redacted) == [{"finding": 0, "reason": "match"}]


def test_a_proof_of_a_withheld_finding_carries_its_withheld_statement() -> None:
    data = sealed(2, campaign=3)
    target = _original_digest(data, 1)
    redacted, _ = _redact(data, redact.digest_selector([target]))
    roots = check(redacted).finding_roots
    for index in range(3):
        proof = b"".join(prove(io.BytesIO(redacted), LIMITS, index, roots))
        report = check(proof)
        assert report.exit_code == (1 if index == 1 else 0), report.findings
        assert [s["finding"] for s in _subject_frames(proof)] == [index]
        assert ("reason" in _subject_frames(proof)[0]) == (index == 1)


def _drop(data: bytes, kind: bytes, nth: int = 0) -> bytes:
    frames = fr.split(data)
    del frames[fr.index_of(frames, kind, nth)]
    return fr.join(frames)


def _swap_subjects(data: bytes) -> bytes:
    frames = fr.split(data)
    a, b = fr.index_of(frames, b"A", 0), fr.index_of(frames, b"A", 1)
    frames[a], frames[b] = frames[b], frames[a]
    return fr.join(frames)


def _replace_subject(data: bytes, nth: int, value: dict) -> bytes:
    frames = fr.split(data)
    frames[fr.index_of(frames, b"A", nth)] = (b"A", fr.canon(value))
    return fr.join(frames)


def _plain_sha(statement: dict) -> None:
    statement["subject"][0]["digest"]["sha256"] = "0" * 64


def _other_root(statement: dict) -> None:
    statement["predicate"]["bundle_root"]["blake3"] = "1" * 64


CAMPAIGN = sealed(2, campaign=2)
CASES = {
    "statement-missing": (lambda d: _drop(d, b"A", 1), "bundle.statement_invalid"),
    "statements-swapped": (_swap_subjects, "bundle.statement_invalid"),
    "withheld-but-original-held": (lambda d: _replace_subject(d, 0, {"finding": 0, "reason": "secret"}), "bundle.statement_invalid"),
    "wrong-plain-digest": (lambda d: _with_subject(d, 0, _plain_sha), "bundle.original_mismatch"),
    "other-bundle-root": (lambda d: _with_subject(d, 1, _other_root), "bundle.root_mismatch"),
    "extra-field": (lambda d: _with_subject(d, 0, lambda s: s.update(note="x")), "bundle.statement_invalid"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_wrong_original_statement_is_refused(case: str) -> None:
    make, code = CASES[case]
    assert codes(check(make(CAMPAIGN))) == [code]


def test_an_original_statement_signed_by_another_key_is_refused() -> None:
    frames = fr.split(CAMPAIGN)
    at = fr.index_of(frames, b"A", 0)
    value = fr.doc(frames[at][1])
    _sign(value["envelope"], bytes(range(1, 33)))
    frames[at] = (b"A", fr.canon(value))
    assert codes(check(fr.join(frames))) == ["bundle.signature_invalid"]


def test_a_withheld_original_cannot_regain_its_statement() -> None:
    """Putting the held statement back beside a withheld original is refused: a statement is
    withheld exactly when its original is (step 8b)."""
    redacted, _ = _redact(CAMPAIGN, redact.digest_selector([_original_digest(CAMPAIGN, 0)]))
    held = _subject_frames(CAMPAIGN)[0]
    assert codes(check(_replace_subject(redacted, 0, held))) == ["bundle.statement_invalid"]
    wrong_reason = _replace_subject(redacted, 0, {"finding": 0, "reason": "secret"})
    assert codes(check(wrong_reason)) == ["bundle.statement_invalid"]


def test_an_original_statement_frame_in_an_older_version_is_out_of_order() -> None:
    data = (LEGACY_V2 / "finding.tkb").read_bytes()
    frames = fr.split(data)
    frames.insert(len(frames) - 1, (b"A", fr.canon({"finding": 0, "reason": "secret"})))
    assert codes(check(fr.join(frames))) == ["bundle.frame_order"]


def test_a_version_2_bundle_relabelled_version_3_is_refused() -> None:
    frames = fr.split((LEGACY_V2 / "finding.tkb").read_bytes())
    header = fr.doc(frames[0][1])
    frames[0] = (b"H", fr.canon({**header, "bundle_version": 3}))
    assert codes(check(fr.join(frames)))[0] in ("bundle.record_invalid", "bundle.statement_invalid")


@pytest.mark.parametrize(("name", "exit_code"), [("finding.tkb", 0), ("campaign.tkb", 0), ("proof.tkb", 0), ("redacted.tkb", 1)])
def test_version_2_bundles_keep_verifying(name: str, exit_code: int) -> None:
    """Sealed by the release before original statements (tests/unit/bundle/legacy/README.md)."""
    data = (LEGACY_V2 / name).read_bytes()
    assert fr.doc(fr.split(data)[0][1])["bundle_version"] == 2
    trusted = keys.parse_public_keys((LEGACY_V2.parent / "legacy.pub").read_bytes(), 16) or []
    report = verify_bundle(io.BytesIO(data), trusted)
    assert report.exit_code == exit_code, report.findings
    assert all(sha is not None for _, _, sha in report.originals)  # version 2 published them
