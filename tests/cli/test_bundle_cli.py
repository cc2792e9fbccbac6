"""keygen, seal, verify, redact, bundle show/extract/prove through the installed entry point
(docs/bundle-format.md)."""

from __future__ import annotations

import base64
import json
import os
import stat
import urllib.parse
from pathlib import Path

import pytest

from tests.helpers import CORPUS, run_cli

THIRD = CORPUS / "third_party"
# One trace per format in the corpus; a format whose corpus is absent on this branch is skipped.
FORMAT_SAMPLES = {
    "agentguard": THIRD / "agentguard" / "safe-trace-v2.jsonl",
    "agentguard_v3": CORPUS / "valid" / "v3__with_containment.jsonl",
    "harness": CORPUS / "harness" / "s8_secret_disclosure" / "fail__plain.json",
    "inspect_eval": THIRD / "inspect" / "tracekit_corpus.eval",
    "inspect_json": THIRD / "inspect" / "tracekit_corpus.json",
    "otel": THIRD / "otel" / "genai_content.otlp.jsonl",
    "agentdojo": THIRD / "agentdojo" / "runs" / "scripted-model" / "workspace" / "user_task_14" / "injecagent" / "injection_task_0.json",
    "garak": THIRD / "garak" / "repeat.report.jsonl",
}
AWS = CORPUS / "harness" / "s8_secret_disclosure" / "fail__aws_key_shape.json"
SECRET = b"AKIAIOSFODNN7EXAMPLE"


@pytest.fixture(scope="module")
def keypair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("keys")
    result = run_cli("keygen", "-o", str(folder / "sealer"))
    assert result.returncode == 0, result.stderr
    return folder / "sealer.key", folder / "sealer.pub"


def test_keygen_private_key_is_0600_and_never_overwritten(keypair: tuple[Path, Path]) -> None:
    private, public = keypair
    assert stat.S_IMODE(os.stat(private).st_mode) == 0o600
    assert b"PUBLIC KEY" in public.read_bytes()
    again = run_cli("keygen", "-o", str(private.with_suffix("")))
    assert again.returncode == 2 and b"cli.output_exists" in again.stderr


@pytest.mark.parametrize("name", sorted(FORMAT_SAMPLES))
def test_round_trip_on_every_corpus_format(name: str, keypair: tuple[Path, Path], tmp_path: Path) -> None:
    source = FORMAT_SAMPLES[name]
    if not source.exists():
        pytest.skip("this format's corpus is not on this branch")
    private, public = keypair
    bundle = tmp_path / "finding.tkb"
    sealed = run_cli("seal", str(source), "-o", str(bundle), "--key", str(private))
    assert sealed.returncode == 0, sealed.stderr
    verified = run_cli("verify", str(bundle), "--trusted-key", str(public))
    assert verified.returncode == 0, verified.stdout
    extracted = tmp_path / "original"
    assert run_cli("bundle", "extract", str(bundle), "-o", str(extracted)).returncode == 0
    assert extracted.read_bytes() == source.read_bytes()
    again = tmp_path / "again.tkb"
    assert run_cli("seal", str(source), "-o", str(again), "--key", str(private)).returncode == 0
    assert again.read_bytes() == bundle.read_bytes()


def test_verify_exit_codes(keypair: tuple[Path, Path], tmp_path: Path) -> None:
    private, public = keypair
    source = FORMAT_SAMPLES["agentguard"]
    signed, unsigned = tmp_path / "s.tkb", tmp_path / "u.tkb"
    assert run_cli("seal", str(source), "-o", str(signed), "--key", str(private)).returncode == 0
    assert run_cli("seal", str(source), "-o", str(unsigned)).returncode == 0
    assert run_cli("verify", str(signed)).returncode == 1
    assert b"bundle.untrusted_key" in run_cli("verify", str(signed)).stdout
    assert b"bundle.unsigned" in run_cli("verify", str(unsigned), "--trusted-key", str(public)).stdout
    data = bytearray(signed.read_bytes())
    data[len(data) // 2] ^= 1
    tampered = tmp_path / "t.tkb"
    tampered.write_bytes(bytes(data))
    assert run_cli("verify", str(tampered), "--trusted-key", str(public)).returncode == 2
    bad_key = tmp_path / "bad.pub"
    bad_key.write_text("not a key")
    result = run_cli("verify", str(signed), "--trusted-key", str(bad_key))
    assert result.returncode == 2 and b"bundle.trusted_key_invalid" in result.stderr
    mixed = run_cli("verify", str(signed), str(source))
    assert mixed.returncode == 2


def test_a_file_of_trusted_keys(keypair: tuple[Path, Path], tmp_path: Path) -> None:
    private, public = keypair
    other = tmp_path / "other"
    assert run_cli("keygen", "-o", str(other)).returncode == 0
    ring = tmp_path / "trusted.pem"
    ring.write_bytes(Path(str(other) + ".pub").read_bytes() + public.read_bytes())
    bundle = tmp_path / "b.tkb"
    assert run_cli("seal", str(FORMAT_SAMPLES["harness"]), "-o", str(bundle), "--key", str(private)).returncode == 0
    assert run_cli("verify", str(bundle), "--trusted-key", str(ring)).returncode == 0


def _forms(secret: bytes) -> list[bytes]:
    return [secret, base64.b64encode(secret), urllib.parse.quote(secret).encode(), secret.hex().encode()]


def test_redact_secrets_then_verify_exits_1_with_the_secret_nowhere(keypair: tuple[Path, Path], tmp_path: Path) -> None:
    private, public = keypair
    bundle, redacted = tmp_path / "f.tkb", tmp_path / "r.tkb"
    assert run_cli("seal", str(AWS), "-o", str(bundle), "--key", str(private), "--predicate", "verify,audit").returncode == 0
    assert SECRET in bundle.read_bytes()
    outputs = [run_cli("redact", str(bundle), "--secrets", "-o", str(redacted))]
    assert outputs[0].returncode == 0
    verified = run_cli("verify", str(redacted), "--trusted-key", str(public), "--format", "json")
    outputs.append(verified)
    assert verified.returncode == 1
    report = json.loads(verified.stdout)["bundles"][0]
    assert [f["code"] for f in report["findings"]] == ["bundle.blobs_withheld"]
    assert {w["reason"] for w in report["withheld"]} == {"secret"} and len(report["withheld"]) >= 2
    outputs.append(run_cli("bundle", "show", str(redacted), "--format", "json"))
    outputs.append(run_cli("bundle", "extract", str(redacted), "-o", str(tmp_path / "x")))
    assert outputs[-1].returncode == 1 and not (tmp_path / "x").exists()
    for form in _forms(SECRET):
        assert form not in redacted.read_bytes()
        for out in outputs:
            assert form not in out.stdout and form not in out.stderr


def test_redact_by_blob_and_match(keypair: tuple[Path, Path], tmp_path: Path) -> None:
    private, public = keypair
    bundle = tmp_path / "f.tkb"
    assert run_cli("seal", str(AWS), "-o", str(bundle), "--key", str(private)).returncode == 0
    shown = json.loads(run_cli("bundle", "show", str(bundle), "--format", "json", "--trusted-key", str(public)).stdout)
    digest = shown["bundle"]["originals"][0]["blake3"]
    by_blob = tmp_path / "b.tkb"
    assert run_cli("redact", str(bundle), "--blob", digest, "-o", str(by_blob)).returncode == 0
    assert run_cli("verify", str(by_blob), "--trusted-key", str(public)).returncode == 1
    by_match = tmp_path / "m.tkb"
    assert run_cli("redact", str(bundle), "--match", "IOSFODNN", "-o", str(by_match)).returncode == 0
    assert b"IOSFODNN" not in by_match.read_bytes()
    assert run_cli("redact", str(bundle), "--secrets", "--match", "x", "-o", str(tmp_path / "n")).returncode == 2


def test_show_prints_standard_dsse(keypair: tuple[Path, Path], tmp_path: Path) -> None:
    private, public = keypair
    bundle = tmp_path / "f.tkb"
    assert run_cli("seal", str(FORMAT_SAMPLES["agentguard"]), "-o", str(bundle), "--key", str(private), "--predicate", "verify,audit,check").returncode == 0
    shown = run_cli("bundle", "show", str(bundle), "--format", "json", "--trusted-key", str(public))
    assert shown.returncode == 0
    body = json.loads(shown.stdout)
    assert body["bundle"]["exit_code"] == 0 and body["command"] == "bundle show"
    assert set(body["envelope"]) == {"payload", "payloadType", "signatures"}
    statement = json.loads(base64.b64decode(body["envelope"]["payload"]))
    assert statement == body["statement"]
    results = statement["predicate"]["results"]
    assert results["verify"]["exit"] == 0 and results["check"]["exit"] is None


def test_campaign_seal_and_proofs_verify_alone(keypair: tuple[Path, Path], tmp_path: Path) -> None:
    private, public = keypair
    folder = tmp_path / "campaign"
    folder.mkdir()
    for index, source in enumerate([FORMAT_SAMPLES["agentguard"], FORMAT_SAMPLES["harness"], AWS]):
        (folder / f"{index}{source.suffix}").write_bytes(source.read_bytes())
    campaign = tmp_path / "c.tkb"
    assert run_cli("seal", str(folder), "-o", str(campaign), "--key", str(private)).returncode == 0
    assert run_cli("verify", str(campaign), "--trusted-key", str(public)).returncode == 0
    for index in range(3):
        proof = tmp_path / f"p{index}.tkb"
        assert run_cli("bundle", "prove", str(campaign), "--finding", str(index), "-o", str(proof)).returncode == 0
        assert run_cli("verify", str(proof), "--trusted-key", str(public)).returncode == 0
        out = tmp_path / f"x{index}"
        assert run_cli("bundle", "extract", str(proof), "-o", str(out)).returncode == 0
        assert out.read_bytes() == sorted(folder.iterdir())[index].read_bytes()
    missing = run_cli("bundle", "prove", str(campaign), "--finding", "3", "-o", str(tmp_path / "p3"))
    assert missing.returncode == 2 and b"bundle.no_such_finding" in missing.stderr


def test_hostile_bundle_is_not_echoed(keypair: tuple[Path, Path], tmp_path: Path) -> None:
    canary = b"CANARY-bundle-81f2"
    hostile = tmp_path / "h.tkb"
    hostile.write_bytes(b"\x89TKB\r\n\x1a\n" + b"H" + (len(canary) + 2).to_bytes(8, "big") + b'"' + canary + b'"')
    result = run_cli("verify", str(hostile), "--format", "json")
    assert result.returncode == 2
    assert canary not in result.stdout + result.stderr
