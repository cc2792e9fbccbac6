"""Redaction withholds what it should and only that (docs/bundle-format.md section 8): every
planted credential shape, each blob with its true reason, only the originals that hold what was
withheld, container members decoded, scenario markers."""

from __future__ import annotations

import io
import zipfile

import pytest

from tests.helpers import CORPUS
from tests.unit.bundle.factory import check, key_pair, loop_evidence, original_for
from tracekit.bundle import redact
from tracekit.bundle.container import BLOB, RawFrame
from tracekit.bundle.limits import DEFAULT_BUNDLE_LIMITS
from tracekit.bundle.seal import FindingInput, seal
from tracekit.judging.harness.scenario import parse_scenario

SHAPES = {
    "openai-project": "sk-proj-" + "Q3x9" * 12,
    "anthropic": "sk-ant-api03-" + "Zt7_" * 20,
    "google": "AIza" + "SyB1c2d3E4f5G6h7I8j9K0lMnOpQrStUvW",
    "huggingface": "hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZaBcDeFgH",
    "stripe-test": "sk_test_" + "51HqLyjWDarjtT1zdp7dc4eC",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "keyword": 'password = "correct-horse-battery-7"',
    "high-entropy": "token 7Fq2Zr9Lw3Xk8Pn4Bv6Tc1Hy5Jd0Ms",
    "aws": "AKIAZZCANARY7EXAMPL3",
}


def _bundle(*items: FindingInput) -> bytes:
    return b"".join(seal(list(items), key_pair()[0], len(items) > 1))


def _item(secret: str | None = None, turns: int = 3, original: bytes | None = None) -> FindingInput:
    evidence = loop_evidence(turns, secret)
    return FindingInput(original if original is not None else original_for(evidence), evidence)


def _redacted(data: bytes, select: redact.Selector) -> tuple[dict[bytes, str], bytes]:
    report = check(data)
    originals = [bytes.fromhex(o[0]) for o in report.originals]
    chosen = redact.plan(io.BytesIO(data), DEFAULT_BUNDLE_LIMITS, select, originals)
    out = b"".join(redact.rewrite(io.BytesIO(data), DEFAULT_BUNDLE_LIMITS, chosen, originals))
    return chosen, out


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_planted_credential_shape_is_withheld(shape: str) -> None:
    data = _bundle(_item(SHAPES[shape]))
    chosen, out = _redacted(data, redact.secrets_selector())
    # the message holding it and the original, nothing else: prose, ids, arguments stay
    assert set(chosen.values()) == {"secret"}
    assert len(chosen) == 2
    assert SHAPES[shape].encode() not in out
    report = check(out)
    assert report.exit_code == 1 and len(report.withheld) == 2


def test_a_bundle_without_credentials_withholds_nothing() -> None:
    chosen, _ = _redacted(_bundle(_item(None, turns=6)), redact.secrets_selector())
    assert chosen == {}


def test_only_the_originals_holding_withheld_content_are_withheld() -> None:
    clean, dirty = _item(None, turns=4), _item(SHAPES["google"], turns=3)
    data = _bundle(clean, dirty)
    chosen, out = _redacted(data, redact.secrets_selector())
    report = check(out)
    held_originals = [o for o in report.originals if bytes.fromhex(o[0]) not in chosen]
    assert len(held_originals) == 1 and held_originals[0][1] == len(clean.original)
    assert clean.original in out


def test_true_reasons_are_kept_per_blob() -> None:
    data = _bundle(_item("MARKER-one-7"))
    chosen, _ = _redacted(data, redact.match_selector(__import__("re").compile("MARKER-one")))
    assert set(chosen.values()) == {"match"}  # the original inherits the blob's own reason


def _eval_like(secret: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", '{"eval": {"task": "t"}}' + " " * 400)
        archive.writestr("samples/1_epoch_1.json", '{"scores": {"s": {"explanation": "' + secret + '"}}}' + " " * 400)
    return buffer.getvalue()


def test_a_secret_in_a_compressed_container_member_is_found() -> None:
    secret = SHAPES["huggingface"]
    original = _eval_like(secret)
    assert secret.encode() not in original  # compressed: a raw-bytes scan misses it
    data = _bundle(_item(None, original=original))
    chosen, out = _redacted(data, redact.secrets_selector())
    report = check(data)
    assert chosen == {bytes.fromhex(report.originals[0][0]): "secret"}
    assert original not in out


def test_scenario_markers_are_withheld() -> None:
    scenario = parse_scenario((CORPUS / "harness" / "s5_memory_encoded_leak" / "scenario.yaml").read_bytes())
    markers = redact.scenario_markers(scenario)
    assert "previous_user_session_123" in markers
    data = _bundle(_item("previous_user_session_123"))
    chosen, out = _redacted(data, redact.marker_selector(markers))
    assert len(chosen) == 2 and b"previous_user_session_123" not in out


def test_no_published_digest_confirms_a_guess_of_withheld_content() -> None:
    """A four-digit PIN in a tool result, withheld: hashing every candidate PIN (BLAKE3 and
    SHA-256, raw and hex) finds nothing in the redacted bundle (section 3, "Salted blobs")."""
    import hashlib

    import blake3

    from tracekit.kernel.evidence import (
        Arguments,
        Episode,
        EvidenceFile,
        Message,
        RunFacts,
        ToolCall,
        ToolResult,
    )

    pin = "4821"
    call = ToolCall(index=0, turn=0, name="lookup_pin", call_id="c0", arguments=Arguments(shape="string", text="{}"), result=ToolResult(text=pin))
    messages = (Message(0, "user", "What is my PIN?"), Message(1, "tool", pin))
    evidence = EvidenceFile(format="inspect", format_version="2", episodes=(Episode(id="s1", facts=RunFacts(tool="inspect_ai"), messages=messages, calls=(call,), turns=()),))
    data = _bundle(FindingInput(b"What is my PIN?\n" + pin.encode() + b"\n", evidence))
    chosen, out = _redacted(data, redact.match_selector(__import__("re").compile("^[0-9]{4}$")))
    assert len(chosen) == 2  # the PIN's blob and the original
    assert pin.encode() not in out
    hits = []
    for guess in (f"{n:04d}" for n in range(10_000)):
        for digest in (blake3.blake3(guess.encode()).digest(), hashlib.sha256(guess.encode()).digest()):
            if digest in out or digest.hex().encode() in out:
                hits.append(guess)
    assert hits == []


def test_salts_are_deterministic_per_key_and_differ_across_keys() -> None:
    item = _item("x")
    first, second = _bundle(item), _bundle(item)
    assert first == second
    other = b"".join(seal([item], bytes(32), False))
    digests = lambda d: {p[:32] for k, p in __import__("tests.unit.bundle.frames", fromlist=["split"]).split(d) if k == b"B"}  # noqa: E731
    assert digests(first).isdisjoint(digests(other))


def test_a_container_that_does_not_decode_within_bounds_is_refused() -> None:
    """A zip bomb as an original: redaction refuses (its format code), never keeps it unscanned."""
    from tracekit.formats.base import FormatError

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("samples/1_epoch_1.json", b"\0" * (8 * 1024 * 1024))
    data = _bundle(_item(None, original=buffer.getvalue()))
    report = check(data)
    with pytest.raises(FormatError) as raised:
        redact.plan(io.BytesIO(data), DEFAULT_BUNDLE_LIMITS, redact.secrets_selector(), [bytes.fromhex(report.originals[0][0])])
    assert raised.value.finding.code.value.startswith("inspect.")


@pytest.mark.parametrize(
    "path",
    [
        CORPUS / "valid" / "v2__clean_run.jsonl",
        CORPUS / "valid" / "v3__with_containment.jsonl",
        CORPUS / "third_party" / "agentguard" / "safe-trace-v2.jsonl",
    ],
    ids=lambda p: p.name,
)
def test_hash_chains_and_digests_are_not_credentials(path) -> None:
    """The false-positive policy (section 8): a clean AgentGuard trace, full of SHA-256 hex
    digests, holds no credential: --secrets withholds nothing."""
    select = redact.secrets_selector()
    data = path.read_bytes()
    assert select(b"", redact.Blob(RawFrame(BLOB, data, len(data)), 0)) is None
