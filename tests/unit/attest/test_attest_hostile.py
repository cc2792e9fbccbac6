"""Hostile attestation files (docs/attest.md, "Verification"): each is exit 2 with
``attest.malformed`` or ``attest.too_large``, bounded, and no diagnostic repeats the input."""

from __future__ import annotations

import base64
import json

import pytest
import rfc8785

from tracekit.attest import check
from tracekit.attest.check import verify_attestations
from tracekit.attest.statements import (
    Subject,
    Verdict,
    envelope_line,
    result_statement,
    svr_statement,
)
from tracekit.bundle import keys

SEED = bytes(range(32))
PUBLIC = keys.public_of(SEED)
CANARY = "CANARY-7f3a"
SUBJECT = Subject(CANARY, "a" * 64, "b" * 64)


def _good() -> bytes:
    verdict = Verdict("verify", (SUBJECT,), "PASSED", ("verify",))
    return envelope_line(result_statement(verdict), SEED) + envelope_line(svr_statement([SUBJECT], [verdict], "2026-01-01T00:00:00Z"), SEED)


def _codes(data: bytes) -> tuple[int, list[str]]:
    report = verify_attestations(data, [PUBLIC])
    assert all(CANARY not in f.message for f in report.findings)
    return report.exit_code, [f.code.value for f in report.findings]


def _envelope(statement: object, signed: bool = True) -> bytes:
    payload = rfc8785.dumps(statement)
    sigs = []
    if signed:
        from tracekit.bundle import dsse

        sig = keys.sign(SEED, dsse.pae(dsse.PAYLOAD_TYPE, payload))
        sigs = [{"keyid": keys.keyid(PUBLIC), "sig": base64.b64encode(sig).decode()}]
    return rfc8785.dumps({"payload": base64.b64encode(payload).decode(), "payloadType": "application/vnd.in-toto+json", "signatures": sigs}) + b"\n"


def test_the_good_file_passes() -> None:
    assert _codes(_good()) == (0, [])


def _statement() -> dict:
    return json.loads(base64.b64decode(json.loads(_good().splitlines()[0])["payload"]))


@pytest.mark.parametrize(
    "data",
    [
        _good()[:-1],  # no final newline
        b"\n",  # an empty line
        b'{"payload": "", "payloadType": "x", "signatures": []}\n',  # not canonical
        b'{"payload":"","payload":"","payloadType":"x","signatures":[]}\n',  # duplicate key
        b"[" * 100 + b"]" * 100 + b"\n",  # deep
        b"\xff\xfe\n",  # not UTF-8
    ],
    ids=["no-newline", "empty-line", "not-canonical", "duplicate-key", "deep", "not-utf8"],
)
def test_malformed_files(data: bytes) -> None:
    assert _codes(data) == (2, ["attest.malformed"])


@pytest.mark.parametrize(
    "change",
    [
        lambda s: s["predicate"].update(extra=CANARY),
        lambda s: s["predicate"].update(result=CANARY),
        lambda s: s["predicate"].update(failedTests=[CANARY + " <script>"]),
        lambda s: s["subject"][0]["digest"].update(sha256=CANARY),
        lambda s: s["subject"][0]["digest"].pop("blake3"),
        lambda s: s.update(subject=[]),
        lambda s: s.update(predicateType="https://example.com/" + CANARY),
        lambda s: s.update(_type="https://in-toto.io/Statement/v0.1"),
    ],
    ids=["unknown-field", "bad-result", "bad-test-id", "bad-digest", "missing-blake3", "no-subject", "predicate-type", "statement-type"],
)
def test_signed_but_malformed_statements(change) -> None:
    statement = _statement()
    change(statement)
    assert _codes(_envelope(statement)) == (2, ["attest.malformed"])


def test_too_many_signatures() -> None:
    line = json.loads(_envelope(_statement()))
    line["signatures"] = [{"keyid": f"{i:064x}", "sig": "AAAA"} for i in range(check.MAX_SIGNATURES + 1)]
    assert _codes(rfc8785.dumps(line) + b"\n") == (2, ["attest.malformed"])


def test_size_and_line_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(check, "MAX_BYTES", 100)
    assert _codes(_good()) == (2, ["attest.too_large"])
    monkeypatch.setattr(check, "MAX_BYTES", 1 << 20)
    monkeypatch.setattr(check, "MAX_LINES", 1)
    assert _codes(_good()) == (2, ["attest.too_large"])


def test_a_signature_by_another_key_is_untrusted_not_valid() -> None:
    other = bytes(range(1, 33))
    report = verify_attestations(_good(), [keys.public_of(other)])
    assert (report.exit_code, [f.code.value for f in report.findings]) == (1, ["attest.untrusted_key"])


def test_a_forged_signature_by_a_trusted_keyid_is_exit_2() -> None:
    line = json.loads(_good().splitlines()[0])
    line["signatures"][0]["sig"] = base64.b64encode(bytes(64)).decode()
    assert _codes(rfc8785.dumps(line) + b"\n") == (2, ["attest.bad_signature"])
