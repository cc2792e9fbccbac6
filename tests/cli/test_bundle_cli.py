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
    assert b"bundle.blobs_withheld" in outputs[-1].stderr
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
    assert run_cli("seal", str(FORMAT_SAMPLES["agentguard"]), "-o", str(bundle), "--key", str(private), "--predicate", "verify,audit").returncode == 0
    shown = run_cli("bundle", "show", str(bundle), "--format", "json", "--trusted-key", str(public))
    assert shown.returncode == 0
    body = json.loads(shown.stdout)
    assert body["bundle"]["exit_code"] == 0 and body["command"] == "bundle show"
    assert set(body["envelope"]) == {"payload", "payloadType", "signatures"}
    statement = json.loads(base64.b64decode(body["envelope"]["payload"]))
    assert statement == body["statement"]
    results = statement["predicate"]["results"]
    assert results["verify"]["exit"] == 0 and "check" not in results


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


# -- as a new user: help, missing arguments, wrong paths, every format, pipes --------------------

COMMANDS = (
    ("keygen",), ("seal",), ("redact",), ("bundle", "show"), ("bundle", "extract"), ("bundle", "prove"),
)


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_and_missing_arguments(command: tuple[str, ...]) -> None:
    short = run_cli(*command, "-h")
    assert short.returncode == 0 and short.stdout == run_cli(*command, "--help").stdout
    assert b"--format" in short.stdout and b"--quiet" in short.stdout
    bare = run_cli(*command)
    assert bare.returncode == 2 and b"Traceback" not in bare.stderr
    assert b"Missing" in bare.stderr


@pytest.fixture(scope="module")
def sealed(keypair: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sealed")
    for index, source in enumerate([FORMAT_SAMPLES["agentguard"], AWS]):
        (folder / "campaign").mkdir(exist_ok=True)
        (folder / "campaign" / f"{index}{source.suffix}").write_bytes(source.read_bytes())
    assert run_cli("seal", str(AWS), "-o", str(folder / "f.tkb"), "--key", str(keypair[0])).returncode == 0
    assert run_cli("seal", str(folder / "campaign"), "-o", str(folder / "c.tkb"), "--key", str(keypair[0])).returncode == 0
    return folder


def _writers(sealed: Path, keypair: tuple[Path, Path], out: str) -> list[tuple[str, ...]]:
    """Each command that writes an artifact with ``-o``, writing to ``out``."""
    return [
        ("keygen", "-o", out),
        ("seal", str(AWS), "-o", out, "--key", str(keypair[0])),
        ("redact", str(sealed / "f.tkb"), "--secrets", "-o", out),
        ("bundle", "extract", str(sealed / "f.tkb"), "-o", out),
        ("bundle", "prove", str(sealed / "c.tkb"), "--finding", "1", "-o", out),
    ]


def test_outputs_follow_the_sink_rules(sealed: Path, keypair: tuple[Path, Path], tmp_path: Path) -> None:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    for args in _writers(sealed, keypair, str(tmp_path / "missing" / "out")):
        result = run_cli(*args)
        assert result.returncode == 2 and b"cli.output_parent_missing" in result.stderr, args
    for args in _writers(sealed, keypair, str(folder)):
        if args[0] == "keygen":
            continue  # keygen's -o is a name: a-folder.key and a-folder.pub
        result = run_cli(*args)
        assert result.returncode == 2 and b"cli.output_is_folder" in result.stderr, args
    for args in _writers(sealed, keypair, os.devnull):
        result = run_cli(*args, "--force")
        if args[0] != "keygen":
            assert result.returncode == 2 and b"cli.output_not_regular" in result.stderr, args
    for args in _writers(sealed, keypair, str(tmp_path / "once")):
        first = run_cli(*args)
        assert first.returncode == 0, (args, first.stderr)
        again = run_cli(*args)
        assert again.returncode == 2 and b"cli.output_exists" in again.stderr, args
        assert run_cli(*args, "--force").returncode == 0, args
        for name in ("once", "once.key", "once.pub"):
            (tmp_path / name).unlink(missing_ok=True)


def test_keygen_stages_both_files_as_one_unit(tmp_path: Path) -> None:
    (tmp_path / "k.pub").write_bytes(b"taken")
    result = run_cli("keygen", "-o", str(tmp_path / "k"))
    assert result.returncode == 2 and b"cli.output_exists" in result.stderr
    assert not (tmp_path / "k.key").exists() and (tmp_path / "k.pub").read_bytes() == b"taken"


@pytest.mark.parametrize("fmt", ["table", "json", "markdown"])
def test_every_format_and_the_summary_line(fmt: str, sealed: Path, keypair: tuple[Path, Path], tmp_path: Path) -> None:
    runs = {
        "keygen": ("keygen", "-o", str(tmp_path / "k")),
        "seal": ("seal", str(AWS), "-o", str(tmp_path / "s.tkb")),
        "redact": ("redact", str(sealed / "f.tkb"), "--secrets", "-o", str(tmp_path / "r.tkb")),
        "bundle show": ("bundle", "show", str(sealed / "f.tkb"), "--trusted-key", str(keypair[1])),
        "bundle extract": ("bundle", "extract", str(sealed / "c.tkb"), "--finding", "1", "-o", str(tmp_path / "x")),
        "bundle prove": ("bundle", "prove", str(sealed / "c.tkb"), "--finding", "0", "-o", str(tmp_path / "p.tkb")),
    }
    for command, args in runs.items():
        result = run_cli(*args, "-f", fmt)
        assert result.returncode == 0, (command, result.stderr)
        lines = result.stderr.decode().splitlines()
        assert lines and lines[-1].startswith(f"tracekit {command}: "), (command, lines)
        if fmt == "json":
            document = json.loads(result.stdout)
            assert document["report_version"] == 1 and document["command"] == command
        elif fmt == "markdown":
            assert b"| field | value |" in result.stdout
        assert SECRET not in result.stdout + result.stderr
        quiet = run_cli(*args, "-f", fmt, "-q", "--force")
        assert quiet.returncode == 0 and quiet.stderr == b"", command


@pytest.mark.parametrize("fmt", ["table", "json", "markdown", "junit", "sarif"])
def test_verify_bundles_in_every_format(fmt: str, sealed: Path, keypair: tuple[Path, Path]) -> None:
    result = run_cli("verify", str(sealed / "f.tkb"), str(sealed / "c.tkb"), "--trusted-key", str(keypair[1]), "-f", fmt)
    assert result.returncode == 0, result.stderr
    assert result.stderr.decode().startswith("tracekit verify: 2 bundle(s)")
    if fmt == "json":
        assert [b["kind"] for b in json.loads(result.stdout)["bundles"]] == ["finding", "campaign"]
    elif fmt == "junit":
        assert b'tests="2"' in result.stdout and b'failures="0"' in result.stdout
    elif fmt == "sarif":
        assert json.loads(result.stdout)["version"] == "2.1.0"
    unsigned = run_cli("verify", str(sealed / "f.tkb"), "-f", fmt)
    assert unsigned.returncode == 1
    if fmt == "sarif":
        assert json.loads(unsigned.stdout)["runs"][0]["results"][0]["ruleId"] == "bundle.untrusted_key"


def test_wrong_inputs_are_diagnostics(sealed: Path, keypair: tuple[Path, Path], tmp_path: Path) -> None:
    trace = str(FORMAT_SAMPLES["agentguard"])
    cases = [
        (("bundle", "show", str(tmp_path)), b"cli.not_a_file"),
        (("bundle", "show", trace), b"bundle.bad_magic"),
        (("redact", trace, "--secrets", "-o", str(tmp_path / "r")), b"bundle.bad_magic"),
        (("redact", str(sealed / "f.tkb"), "-o", str(tmp_path / "r")), b"cli.missing_argument"),
        (("redact", str(sealed / "f.tkb"), "--secrets", "--blob", "0" * 64, "-o", str(tmp_path / "r")), b"cli.option_conflict"),
        (("redact", str(sealed / "f.tkb"), "--match", "(", "-o", str(tmp_path / "r")), b"cli.bad_value"),
        (("bundle", "extract", str(sealed / "f.tkb"), "--blob", "XYZ", "-o", str(tmp_path / "e")), b"cli.bad_value"),
        (("bundle", "prove", str(sealed / "f.tkb"), "--finding", "0", "-o", str(tmp_path / "p")), b"bundle.not_a_campaign"),
        (("seal", str(sealed / "f.tkb"), "-o", str(tmp_path / "s")), b"format.unknown"),
        (("seal", trace, "-o", str(tmp_path / "s"), "--key", str(keypair[1])), b"bundle.key_invalid"),
        (("seal", trace, "-o", str(tmp_path / "s"), "--key", str(tmp_path)), b"cli.not_a_file"),
        (("seal", trace, "-o", str(tmp_path / "s"), "--predicate", "verify,nope"), b"cli.bad_value"),
        (("seal", "-", "-o", str(tmp_path / "s"), "--predicate", "verify"), b"cli.option_conflict"),
        (("seal", trace, "-o", str(tmp_path / "s"), "--input-format", "nope"), b"cli.bad_value"),
        (("verify", str(sealed / "f.tkb"), trace), b"cli.option_conflict"),
        (("seal", trace, "-o", str(tmp_path / "s"), "--scenario", trace), b"harness.scenario_suffix"),
    ]
    for args, code in cases:
        result = run_cli(*args)
        assert result.returncode == 2 and code in result.stderr, (args, result.stderr)
        assert b"Traceback" not in result.stderr
    assert not any(tmp_path.iterdir())


def test_seal_from_stdin_is_the_same_bundle(keypair: tuple[Path, Path], tmp_path: Path) -> None:
    source = FORMAT_SAMPLES["agentguard"]
    assert run_cli("seal", str(source), "-o", str(tmp_path / "a.tkb"), "--key", str(keypair[0])).returncode == 0
    piped = run_cli("seal", "-", "-o", str(tmp_path / "b.tkb"), "--key", str(keypair[0]), stdin=source.read_bytes())
    assert piped.returncode == 0, piped.stderr
    assert (tmp_path / "a.tkb").read_bytes() == (tmp_path / "b.tkb").read_bytes()


def test_piping_into_head(sealed: Path, keypair: tuple[Path, Path]) -> None:
    import subprocess

    from tests.helpers import _BIN

    command = f"'{_BIN}' bundle show '{sealed / 'c.tkb'}' -f json | head -n 1"
    result = subprocess.run(["sh", "-c", command], capture_output=True, timeout=60, check=False)
    assert result.stdout == b"{\n" and b"Traceback" not in result.stderr
