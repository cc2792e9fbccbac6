"""Sealing holds neither the input's bytes nor the blobs' payloads (docs/threat-model.md, "seal"):
both go to the seal's spools (tracekit/cli/seal_spools.py) and are streamed into
the bundle. Before, an ``.eval`` of 1 GiB of distinct text (460 MB stored) took 2.4 GB to seal."""

from __future__ import annotations

import io
import json
import os
import tracemalloc
import zipfile
from pathlib import Path

from tests.cli.test_audit_memory import HEADER
from tracekit.bundle.seal import seal, seal_with_root
from tracekit.bundle.spooled import SpooledOriginal
from tracekit.bundle.verify import verify_bundle
from tracekit.cli.bundle_io import load_finding
from tracekit.cli.seal_spools import seal_spools

MIB = 1024 * 1024
SAMPLES = 24


def _wordy_eval(path: Path) -> Path:
    """``SAMPLES`` samples of one distinct MiB of hex text each: 24 MiB of blobs, about 12 MB
    stored (each member well within the compression ratio)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps(HEADER))
        for number in range(SAMPLES):
            messages = [{"role": "user", "content": os.urandom(MIB // 2).hex()}, {"role": "assistant", "content": "ok"}]
            archive.writestr(f"samples/{number}_epoch_1.json", json.dumps({"id": number, "epoch": 1, "messages": messages}))
    path.write_bytes(out.getvalue())
    return path


def test_seal_streams_the_original_and_the_blobs_through_its_spools(tmp_path: Path) -> None:
    source = _wordy_eval(tmp_path / "wordy.eval")
    seed = bytes(range(32))
    expected = b"".join(seal([load_finding(str(source), None)], seed, campaign=False))  # held whole
    out = tmp_path / "out.tkb"
    tracemalloc.start()
    try:
        with seal_spools() as spools, out.open("wb") as sink:
            item = load_finding(str(source), None, spools)
            assert isinstance(item.original, SpooledOriginal) and item.original.length == source.stat().st_size
            _, chunks = seal_with_root([item], seed, False, spool=spools.records, blob_spool=spools.blobs)
            for chunk in chunks:
                sink.write(chunk)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert out.read_bytes() == expected  # the same bundle, byte for byte
    # One sample's text, its encodings and a few 1 MiB chunks: held, the blobs alone were 24 MiB
    # and the original 12 MB more.
    assert peak < 12 * MIB, peak
    with out.open("rb") as handle:
        assert verify_bundle(handle).exit_code == 1  # intact; exit 1 only because no key is trusted


def test_a_file_past_the_size_limit_is_not_copied_whole(tmp_path: Path) -> None:
    data = b"x" * (3 * MIB)
    with seal_spools() as spools:
        copied = SpooledOriginal.copy(io.BytesIO(data), spools.originals, MIB)
        assert copied.length == MIB + 1  # one byte past the limit: enough to refuse
        assert spools.originals.seek(0, 2) == MIB + 1
        again = SpooledOriginal.copy(io.BytesIO(data[:100]), spools.originals, MIB)
        assert (again.start, b"".join(again.chunks())) == (MIB + 1, data[:100])
        assert b"".join(copied.chunks()) == data[: MIB + 1]
