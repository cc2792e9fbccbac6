"""Hostile bundles (docs/bundle-format.md section 7): each exits 2 with its own code, in
bounded memory, and no diagnostic repeats bundle content."""

from __future__ import annotations

import base64
import hashlib
import io
import struct
import tracemalloc
from collections.abc import Callable

import nacl.signing
import pytest

from tests.unit.bundle import frames as fr
from tests.unit.bundle.factory import check, codes, key_pair, sealed
from tracekit.bundle.verify import verify_bundle

Frames = list[tuple[bytes, bytes]]


def _mutated(change: Callable[[Frames], Frames | None], signed: bool = True) -> bytes:
    frames = fr.split(sealed(3, signed=signed))
    return fr.join(change(frames) or frames)


def _first_code(data: bytes) -> str:
    report = check(data)
    assert report.exit_code == 2
    return codes(report)[0]


def test_truncation_anywhere_is_detected() -> None:
    data = sealed(2)
    for cut in (1, 8, 9, 20, len(data) // 2, len(data) - 1):
        assert _first_code(data[:cut]) in ("bundle.truncated", "bundle.bad_magic")
    assert _first_code(data[:-20]) == "bundle.truncated"


def test_trailing_bytes() -> None:
    assert _first_code(sealed(2) + b"\n") == "bundle.trailing_data"


def test_reordered_records() -> None:
    def swap(frames: Frames) -> Frames:
        a, b = fr.index_of(frames, b"R", 2), fr.index_of(frames, b"R", 3)
        frames[a], frames[b] = frames[b], frames[a]
        return frames

    assert _first_code(_mutated(swap)) == "bundle.record_order"


def test_duplicated_record() -> None:
    def dup(frames: Frames) -> Frames:
        at = fr.index_of(frames, b"R", 2)
        return [*frames[: at + 1], frames[at], *frames[at + 1 :]]

    assert _first_code(_mutated(dup)) == "bundle.record_duplicate"


def test_duplicated_manifest() -> None:
    def dup(frames: Frames) -> Frames:
        at = fr.index_of(frames, b"R", 0)
        return [*frames[: at + 1], frames[at], *frames[at + 1 :]]

    assert _first_code(_mutated(dup)) == "bundle.record_duplicate"


def test_swapped_blob_contents() -> None:
    def swap(frames: Frames) -> Frames:
        a, b = fr.index_of(frames, b"B", 1), fr.index_of(frames, b"B", 2)
        (ka, pa), (kb, pb) = frames[a], frames[b]
        frames[a], frames[b] = (ka, pa[:32] + pb[32:]), (kb, pb[:32] + pa[32:])
        return frames

    assert _first_code(_mutated(swap)) == "bundle.blob_digest_mismatch"


def test_blob_replaced_by_another_valid_blob() -> None:

    def replace(frames: Frames) -> Frames:
        at = fr.index_of(frames, b"B", 0)
        other = b"\x00"  # sorts first whatever its digest: the frame stays in order
        frames[at] = (b"B", fr.blob_payload(other))
        return sorted(frames[:1]) + sorted(f for f in frames if f[0] == b"B") + [f for f in frames[1:] if f[0] != b"B"]

    assert _first_code(_mutated(replace)) in ("bundle.blob_missing", "bundle.blob_order")


def test_referenced_blob_not_held() -> None:
    def drop(frames: Frames) -> Frames:
        at = fr.index_of(frames, b"B", 1)
        return frames[:at] + frames[at + 1 :]

    assert _first_code(_mutated(drop)) == "bundle.blob_missing"


def test_blob_held_twice() -> None:
    def twice(frames: Frames) -> Frames:
        at = fr.index_of(frames, b"B", 1)
        return [*frames[: at + 1], frames[at], *frames[at + 1 :]]

    assert _first_code(_mutated(twice)) == "bundle.blob_order"


def test_unreferenced_blob() -> None:

    def extra(frames: Frames) -> Frames:
        last = fr.index_of(frames, b"R", 0)
        blob = b"smuggled"
        # appended after every held blob: in order only if its digest sorts last
        blobs = sorted([f for f in frames if f[0] == b"B"] + [(b"B", fr.blob_payload(blob))])
        return frames[:1] + blobs + frames[last:]

    assert _first_code(_mutated(extra)) == "bundle.blob_unreferenced"


def test_withheld_length_disagrees_with_its_record() -> None:
    def withhold(frames: Frames) -> Frames:
        at = fr.index_of(frames, b"B", 1)
        payload = frames[at][1]
        entry = {"digest": payload[:32].hex(), "length": len(fr.data_of(payload)) + 1, "reason": "secret"}
        frames[at] = (b"W", fr.canon(entry))
        return frames

    assert _first_code(_mutated(withhold)) == "bundle.blob_length_mismatch"


def _signed_frame(frames: Frames) -> tuple[int, dict[str, object]]:
    at = fr.index_of(frames, b"S")
    return at, fr.doc(frames[at][1])


def _pae(kind: str, payload: bytes) -> bytes:
    t = kind.encode()
    return b"DSSEv1 %d %s %d %s" % (len(t), t, len(payload), payload)


def test_signature_over_another_payload_type_is_rejected() -> None:
    """PAE binds the type: a signature the key made over the same payload announced as another
    type does not verify as an in-toto statement."""
    signing = nacl.signing.SigningKey(key_pair()[0])

    def resign(frames: Frames) -> Frames:
        at, signed = _signed_frame(frames)
        envelope = signed["envelope"]
        assert isinstance(envelope, dict)
        payload = base64.b64decode(envelope["payload"])
        sig = signing.sign(_pae("application/json", payload)).signature
        envelope["signatures"][0]["sig"] = base64.b64encode(sig).decode()
        frames[at] = (b"S", fr.canon(signed))
        return frames

    assert _first_code(_mutated(resign)) == "bundle.bad_signature"


def test_envelope_of_another_payload_type_is_rejected() -> None:
    signing = nacl.signing.SigningKey(key_pair()[0])

    def retype(frames: Frames) -> Frames:
        at, signed = _signed_frame(frames)
        envelope = signed["envelope"]
        assert isinstance(envelope, dict)
        payload = base64.b64decode(envelope["payload"])
        envelope["payloadType"] = "application/json"
        sig = signing.sign(_pae("application/json", payload)).signature
        envelope["signatures"][0]["sig"] = base64.b64encode(sig).decode()
        frames[at] = (b"S", fr.canon(signed))
        return frames

    assert _first_code(_mutated(retype)) == "bundle.payload_type"


def test_substituted_key() -> None:
    other = bytes(nacl.signing.SigningKey(bytes(32 * [7])).verify_key)

    def substitute(frames: Frames) -> Frames:
        at, signed = _signed_frame(frames)
        keys_ = signed["public_keys"]
        assert isinstance(keys_, list)
        keys_[0]["public_key"] = base64.b64encode(other).decode()
        frames[at] = (b"S", fr.canon(signed))
        return frames

    assert _first_code(_mutated(substitute)) == "bundle.key_mismatch"

    def substitute_with_keyid(frames: Frames) -> Frames:
        at, signed = _signed_frame(frames)
        kid = hashlib.sha256(other).hexdigest()
        signed["public_keys"] = [{"algorithm": "ed25519", "keyid": kid, "public_key": base64.b64encode(other).decode()}]
        envelope = signed["envelope"]
        assert isinstance(envelope, dict)
        envelope["signatures"][0]["keyid"] = kid
        frames[at] = (b"S", fr.canon(signed))
        return frames

    assert _first_code(_mutated(substitute_with_keyid)) == "bundle.bad_signature"


def test_unknown_algorithms() -> None:
    def header(frames: Frames) -> Frames:
        value = fr.doc(frames[0][1])
        value["hash"] = "sha256"
        frames[0] = (b"H", fr.canon(value))
        return frames

    assert _first_code(_mutated(header)) == "bundle.unknown_algorithm"

    def key_algorithm(frames: Frames) -> Frames:
        at, signed = _signed_frame(frames)
        keys_ = signed["public_keys"]
        assert isinstance(keys_, list)
        keys_[0]["algorithm"] = "ecdsa-p256"
        frames[at] = (b"S", fr.canon(signed))
        return frames

    assert _first_code(_mutated(key_algorithm)) == "bundle.unknown_algorithm"


def test_giant_declared_length_reads_nothing_big() -> None:
    data = sealed(2)
    frames = fr.split(data)
    at = fr.index_of(frames, b"B", 0)
    prefix = fr.join(frames[:at], fix_count=False)
    for length, code in ((2**63, "bundle.frame_too_large"), (500 * 2**20, "bundle.truncated")):
        hostile = prefix + struct.pack(">cQ", b"B", length) + b"\x00" * 64
        tracemalloc.start()
        report = verify_bundle(io.BytesIO(hostile))
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert codes(report) == [code] and peak < 8 * 2**20


def test_deep_nesting() -> None:
    def deep(frames: Frames) -> Frames:
        at = fr.index_of(frames, b"R", 1)
        frames[at] = (b"R", b"[" * 5000 + b"]" * 5000)
        return frames

    assert _first_code(_mutated(deep)) == "bundle.too_deep"


def test_non_canonical_record() -> None:
    def spaced(frames: Frames) -> Frames:
        at = fr.index_of(frames, b"R", 1)
        frames[at] = (b"R", frames[at][1].replace(b",", b", ", 1))
        return frames

    assert _first_code(_mutated(spaced)) == "bundle.not_canonical"


CANARY = "CANARY-7f3a9-SECRET"


@pytest.mark.parametrize("where", ["record", "header", "signature", "withheld"])
def test_diagnostics_never_echo_bundle_content(where: str) -> None:
    def plant(frames: Frames) -> Frames:
        kind = {"record": b"R", "header": b"H", "signature": b"S", "withheld": b"B"}[where]
        at = fr.index_of(frames, kind, 1 if kind == b"R" else 0)
        value = {"digest": CANARY, "length": 1, "reason": CANARY} if where == "withheld" else fr.doc(frames[at][1])
        if where != "withheld":
            value[CANARY] = CANARY
        frames[at] = (b"W" if where == "withheld" else kind, fr.canon(value))
        return frames

    report = check(_mutated(plant))
    assert report.exit_code == 2
    assert all(CANARY not in f.message for f in report.findings)


def test_a_validly_signed_statement_with_foreign_predicate_content_is_refused() -> None:
    """Even a signature by a trusted key does not let free text into what show prints."""
    signing = nacl.signing.SigningKey(key_pair()[0])

    def extend(frames: Frames) -> Frames:
        at, signed = _signed_frame(frames)
        envelope = signed["envelope"]
        assert isinstance(envelope, dict)
        statement = fr.doc(base64.b64decode(envelope["payload"]))
        statement["predicate"]["results"] = {"verify": {"exit": 0, "codes": [CANARY]}}
        payload = fr.canon(statement)
        envelope["payload"] = base64.b64encode(payload).decode()
        sig = signing.sign(_pae("application/vnd.in-toto+json", payload)).signature
        envelope["signatures"][0]["sig"] = base64.b64encode(sig).decode()
        frames[at] = (b"S", fr.canon(signed))
        return frames

    report = check(_mutated(extend))
    assert codes(report) == ["bundle.statement_invalid"]
    assert all(CANARY not in f.message for f in report.findings)


def test_frames_before_the_header() -> None:
    def headless(frames: Frames) -> Frames:
        return frames[1:]

    assert _first_code(_mutated(headless)) == "bundle.frame_order"

    def header_later(frames: Frames) -> Frames:
        return [frames[1], frames[0], *frames[2:]]

    assert _first_code(_mutated(header_later)) == "bundle.frame_order"


def _turn_changed(change: Callable[[dict[str, object]], None]) -> str:
    def mutate(frames: Frames) -> Frames:
        at = [i for i, (k, p) in enumerate(frames) if k == b"R" and fr.doc(p)["type"] == "turn"][1]
        record = fr.doc(frames[at][1])
        change(record)
        frames[at] = (b"R", fr.canon(record))
        return frames

    return _first_code(_mutated(mutate))


def test_turn_records_are_checked() -> None:
    """A turn's input runs lie within the episode's messages and are maximal; turns come in
    order after the calls (docs/bundle-format.md section 4)."""
    def beyond(record: dict[str, object]) -> None:
        record["input"] = [[0, 10_000]]

    def touching(record: dict[str, object]) -> None:
        record["input"] = [[0, 1], [1, 1]]

    def empty_run(record: dict[str, object]) -> None:
        record["input"] = [[0, 0]]

    def out_of_order(record: dict[str, object]) -> None:
        record["index"] = 0

    assert _turn_changed(beyond) == "bundle.record_invalid"
    assert _turn_changed(touching) == "bundle.record_invalid"
    assert _turn_changed(empty_run) == "bundle.record_invalid"
    assert _turn_changed(out_of_order) == "bundle.record_invalid"


@pytest.mark.parametrize(
    ("ids", "refused"),
    [
        ([[f"{CANARY} \x1b[2J"]], True),  # not an id any report prints
        ([["x" * 65]], True),  # longer than any id
        ([[], []], True),  # two findings' lists in a bundle of one finding
        ([["sample_1_epoch_1", "sha256:0123456789abcdef"]], False),
    ],
)
def test_a_signed_statement_names_only_ids_as_reports_print_them(
    ids: list[list[str]], refused: bool
) -> None:
    """docs/bundle-format.md section 6: ``episodes`` holds ids of ``[A-Za-z0-9._:-]{1,64}``
    only, so ``bundle show`` cannot print free text through them."""
    signing = nacl.signing.SigningKey(key_pair()[0])

    def rewrite(frames: Frames) -> Frames:
        at, signed = _signed_frame(frames)
        envelope = signed["envelope"]
        assert isinstance(envelope, dict)
        statement = fr.doc(base64.b64decode(envelope["payload"]))
        assert statement["predicate"]["episodes"]  # sealed with its ids
        statement["predicate"]["episodes"] = ids
        payload = fr.canon(statement)
        envelope["payload"] = base64.b64encode(payload).decode()
        sig = signing.sign(_pae("application/vnd.in-toto+json", payload)).signature
        envelope["signatures"][0]["sig"] = base64.b64encode(sig).decode()
        frames[at] = (b"S", fr.canon(signed))
        return frames

    report = check(_mutated(rewrite))
    assert all(CANARY not in f.message for f in report.findings)
    assert ("bundle.statement_invalid" in codes(report)) is refused
