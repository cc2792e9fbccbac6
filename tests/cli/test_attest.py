"""``tracekit attest`` and ``tracekit verify FILE.intoto.jsonl`` (docs/attest.md), checked with
stock implementations: securesystemslib's DSSE verifier and the in-toto-attestation bindings."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from google.protobuf import json_format
from in_toto_attestation.predicates.test_result.v0 import test_result_pb2
from in_toto_attestation.v1.statement import Statement
from securesystemslib.dsse import Envelope
from securesystemslib.exceptions import VerificationError
from securesystemslib.signer import SSlibKey

from tests.helpers import CORPUS, run_cli
from tracekit.bundle import keys

GOOD = CORPUS / "valid" / "v2__clean_run.jsonl"
TAMPERED = CORPUS / "invalid" / "chain__deleted_event.jsonl"
HARNESS = CORPUS / "harness" / "s1_every_name_counts"


@pytest.fixture(scope="module")
def keypair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("keys")
    assert run_cli("keygen", "-o", str(folder / "k")).returncode == 0
    return folder / "k.key", folder / "k.pub"


def _stock_key(pub: Path) -> SSlibKey:
    (public,) = keys.parse_public_keys(pub.read_bytes(), 16) or []
    return SSlibKey(keys.keyid(public), "ed25519", "ed25519", {"public": public.hex()})


def _attest(tmp_path: Path, keypair: tuple[Path, Path], *args: str) -> tuple[int, list[dict]]:
    out = tmp_path / "a.intoto.jsonl"
    result = run_cli("attest", *args, "-o", str(out), "--key", str(keypair[0]), "-q")
    assert result.returncode in (0, 1), result.stderr
    return result.returncode, [json.loads(line) for line in out.read_text().splitlines()]


def _statements(envelopes: list[dict], pub: Path) -> list[dict]:
    """Every envelope verified by securesystemslib, every statement validated by the bindings."""
    key = _stock_key(pub)
    out = []
    for raw in envelopes:
        envelope = Envelope.from_dict(dict(raw))
        assert key.keyid in envelope.verify([key], 1)
        statement = json.loads(envelope.pae().split(b" ", 4)[4])
        typed = Statement([], "", {})
        json_format.ParseDict(statement, typed.pb)
        typed.validate()
        if statement["predicateType"] == "https://in-toto.io/attestation/test-result/v0.1":
            json_format.ParseDict(statement["predicate"], test_result_pb2.TestResult())
        out.append(statement)
    return out


def test_an_intact_trace_gives_passed_and_verifies(tmp_path: Path, keypair: tuple[Path, Path]) -> None:
    code, envelopes = _attest(tmp_path, keypair, str(GOOD))
    assert code == 0
    result, summary = _statements(envelopes, keypair[1])
    assert result["predicate"]["result"] == "PASSED" and result["predicate"]["passedTests"] == ["verify"]
    assert set(result["subject"][0]["digest"]) == {"sha256", "blake3"}
    assert summary["predicateType"] == "https://in-toto.io/attestation/svr/v0.1"
    assert summary["predicate"]["properties"] == ["TRACEKIT_VERIFY_PASSED"]
    assert summary["predicate"]["verifier"]["id"].startswith("urn:tracekit:verifier:")
    verified = run_cli("verify", str(tmp_path / "a.intoto.jsonl"), "--trusted-key", str(keypair[1]), "-f", "json")
    assert verified.returncode == 0, verified.stdout
    assert json.loads(verified.stdout)["envelopes"] == 2


def test_a_tampered_trace_gives_failed_naming_what_failed(tmp_path: Path, keypair: tuple[Path, Path]) -> None:
    code, envelopes = _attest(tmp_path, keypair, str(GOOD), str(TAMPERED))
    assert code == 1
    good, bad, summary = _statements(envelopes, keypair[1])
    assert good["predicate"]["result"] == "PASSED"
    assert bad["predicate"]["result"] == "FAILED"
    direct = json.loads(run_cli("verify", str(TAMPERED), "-f", "json").stdout)
    errors = sorted({f["code"] for t in direct["traces"] for f in t["findings"] if f["severity"] == "error"})
    assert errors and bad["predicate"]["failedTests"] == errors
    assert summary["predicate"]["properties"] == []  # not every input passed
    assert len(summary["subject"]) == 2
    verified = run_cli("verify", str(tmp_path / "a.intoto.jsonl"), "--trusted-key", str(keypair[1]), "-f", "json")
    assert verified.returncode == 1
    assert [f["code"] for f in json.loads(verified.stdout)["findings"]] == ["attest.result_not_passed"]


def test_a_failing_scenario_gives_failed_with_its_assertion_ids(tmp_path: Path, keypair: tuple[Path, Path]) -> None:
    failing = sorted(HARNESS.glob("fail__*.json"))[0]
    scenario = HARNESS / "scenario.yaml"
    code, envelopes = _attest(tmp_path, keypair, str(HARNESS / "pass.json"), str(failing), "--scenario", str(scenario), "--strict")
    assert code == 1
    statements = _statements(envelopes, keypair[1])
    checks = [s for s in statements if s["predicateType"].endswith("test-result/v0.1") and s["predicate"]["configuration"]]
    assert [c["predicate"]["result"] for c in checks] == ["PASSED", "FAILED"]
    assert checks[1]["predicate"]["failedTests"] and all(t.startswith("assertion[") for t in checks[1]["predicate"]["failedTests"])
    assert checks[0]["predicate"]["passedTests"]
    assert checks[0]["predicate"]["configuration"][0]["name"] == "scenario.yaml"


def _rewrite(path: Path, change) -> None:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    change(lines)
    path.write_text("".join(json.dumps(line, separators=(",", ":"), sort_keys=True) + "\n" for line in lines))


def _flip_result(lines: list[dict]) -> None:
    statement = json.loads(base64.b64decode(lines[0]["payload"]))
    statement["predicate"]["result"] = "PASSED"
    statement["predicate"]["failedTests"] = []
    payload = json.dumps(statement, separators=(",", ":"), sort_keys=True).encode()
    lines[0]["payload"] = base64.b64encode(payload).decode()


def test_a_forged_envelope_is_rejected_by_tracekit_and_the_stock_verifier(tmp_path: Path, keypair: tuple[Path, Path]) -> None:
    _attest(tmp_path, keypair, str(TAMPERED))
    path = tmp_path / "a.intoto.jsonl"
    _rewrite(path, _flip_result)
    forged = json.loads(path.read_text().splitlines()[0])
    with pytest.raises(VerificationError):
        Envelope.from_dict(forged).verify([_stock_key(keypair[1])], 1)
    verified = run_cli("verify", str(path), "--trusted-key", str(keypair[1]), "-f", "json")
    assert verified.returncode == 2
    assert b"attest.bad_signature" in verified.stderr + verified.stdout


def test_unsigned_and_untrusted_are_exit_1(tmp_path: Path, keypair: tuple[Path, Path]) -> None:
    out = tmp_path / "u.intoto.jsonl"
    assert run_cli("attest", str(GOOD), "-o", str(out), "-q").returncode == 0
    unsigned = run_cli("verify", str(out), "--trusted-key", str(keypair[1]), "-f", "json")
    assert unsigned.returncode == 1 and b"attest.unsigned" in unsigned.stdout
    _attest(tmp_path, keypair, str(GOOD))
    untrusted = run_cli("verify", str(tmp_path / "a.intoto.jsonl"), "-f", "json")
    assert untrusted.returncode == 1 and b"attest.untrusted_key" in untrusted.stdout


@pytest.mark.parametrize(
    "change",
    [
        lambda lines: lines[0].update(payloadType="text/plain"),
        lambda lines: lines[0].update(extra=1),
        lambda lines: lines[0].update(payload="!!"),
    ],
    ids=["payload-type", "unknown-field", "bad-base64"],
)
def test_malformed_envelopes_are_exit_2(tmp_path: Path, keypair: tuple[Path, Path], change) -> None:
    _attest(tmp_path, keypair, str(GOOD))
    path = tmp_path / "a.intoto.jsonl"
    _rewrite(path, change)
    verified = run_cli("verify", str(path), "--trusted-key", str(keypair[1]))
    assert verified.returncode == 2 and b"attest.malformed" in verified.stderr + verified.stdout


def test_a_bundle_input_links_the_bundle_root(tmp_path: Path, keypair: tuple[Path, Path]) -> None:
    bundle = tmp_path / "b.tkb"
    assert run_cli("seal", str(GOOD), "-o", str(bundle), "--key", str(keypair[0]), "-q").returncode == 0
    code, envelopes = _attest(tmp_path, keypair, str(bundle), "--trusted-key", str(keypair[1]))
    assert code == 0
    result = _statements(envelopes, keypair[1])[0]
    names = [s["name"] for s in result["subject"]]
    assert names == [str(bundle), "tracekit-bundle-root"]


def test_check_on_a_trace_of_another_format_is_warned_not_failed(tmp_path: Path, keypair: tuple[Path, Path]) -> None:
    code, envelopes = _attest(tmp_path, keypair, str(GOOD), "--scenario", str(HARNESS / "scenario.yaml"))
    assert code == 1
    check = [s for s in _statements(envelopes, keypair[1]) if s["predicate"].get("configuration")][0]
    assert check["predicate"]["result"] == "WARNED"
    assert check["predicate"]["warnedTests"] == ["check.not_run"]
