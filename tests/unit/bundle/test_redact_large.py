"""A blob over the container's chunk is never held by `redact` or `bundle prove`
(docs/threat-model.md, "redact"): ``iter_frames`` hands it over in chunks, a selector reads it
from a temporary file a window at a time, and the rewrite copies it chunk by chunk. Before, a
1.5 GB bundle (a 460 MB `.eval` original, 1 GiB of text blobs) took 3.7 GB to redact."""

from __future__ import annotations

import io
import os
import re
import tracemalloc

from tests.unit.bundle.factory import check, key_pair, loop_evidence
from tracekit.bundle import redact
from tracekit.bundle.container import BLOB, CHUNK, MAGIC, iter_frames
from tracekit.bundle.limits import DEFAULT_BUNDLE_LIMITS
from tracekit.bundle.seal import FindingInput, seal

MIB = 1024 * 1024
SECRET = "MARKER-4f1c9e"


def _large_original(secret_at: int, size: int = 6 * MIB) -> bytes:
    """Random hex text of ``size`` bytes with ``SECRET`` at ``secret_at``."""
    text = bytearray(os.urandom(size // 2).hex().encode())
    text[secret_at : secret_at + len(SECRET)] = SECRET.encode()
    return bytes(text)


def _bundle(original: bytes) -> bytes:
    return b"".join(seal([FindingInput(original, loop_evidence(2, None))], key_pair()[0], False))


def test_a_large_blob_comes_in_chunks_and_an_unread_rest_is_skipped() -> None:
    original = _large_original(0, 3 * MIB)
    data = _bundle(original)
    frames = list(iter_frames(io.BytesIO(data), DEFAULT_BUNDLE_LIMITS))  # no rest read: skipped
    large = [f for f in frames if f.length > CHUNK]
    assert len(large) == 1 and large[0].kind == BLOB and len(large[0].payload) == CHUNK
    whole = b"".join(b"".join(f.chunks()) for f in iter_frames(io.BytesIO(data), DEFAULT_BUNDLE_LIMITS))
    assert data == MAGIC + whole  # every frame, byte for byte


def test_a_secret_in_a_large_blob_is_found_across_a_window_edge_and_memory_stays_small() -> None:
    # the second window starts at SPOOL_WINDOW - OVERLAP: the secret straddles the first's end
    at = redact.SPOOL_WINDOW - 8
    data = _bundle(_large_original(at))
    report = check(data)
    originals = [bytes.fromhex(o[0]) for o in report.originals]
    select = redact.match_selector(re.compile(re.escape(SECRET)))
    tracemalloc.start()
    try:
        chosen = redact.plan(io.BytesIO(data), DEFAULT_BUNDLE_LIMITS, select, originals)
        out = io.BytesIO()
        for chunk in redact.rewrite(io.BytesIO(data), DEFAULT_BUNDLE_LIMITS, chosen, originals):
            out.write(chunk)
        peak = tracemalloc.get_traced_memory()[1] - out.getbuffer().nbytes
    finally:
        tracemalloc.stop()
    assert set(chosen) == set(originals) and set(chosen.values()) == {"match"}
    assert SECRET.encode() not in out.getvalue()
    assert check(out.getvalue()).exit_code in (0, 1)  # the redacted bundle still verifies
    assert peak < 4 * MIB, peak  # held whole, the 6 MiB blob and its decoded text were 4x that


def test_a_large_blob_without_the_secret_is_kept_byte_for_byte() -> None:
    data = _bundle(_large_original(5 * MIB))
    report = check(data)
    originals = [bytes.fromhex(o[0]) for o in report.originals]
    chosen = redact.plan(io.BytesIO(data), DEFAULT_BUNDLE_LIMITS, redact.match_selector(re.compile("NOT-THERE")), originals)
    assert chosen == {}
    assert b"".join(redact.rewrite(io.BytesIO(data), DEFAULT_BUNDLE_LIMITS, chosen, originals)) == data


def test_the_scan_is_charged_to_the_work_budget() -> None:
    from tracekit.kernel.errors import TracekitError

    data = _bundle(_large_original(0, 3 * MIB))
    originals = [bytes.fromhex(o[0]) for o in check(data).originals]
    select = redact.match_selector(re.compile("NOT-THERE"))
    try:
        redact.plan(io.BytesIO(data), DEFAULT_BUNDLE_LIMITS, select, originals, work_budget=2 * MIB)
    except TracekitError as error:
        assert error.finding.code.value == "redact.work_budget_exceeded"
    else:
        raise AssertionError("a 3 MiB original scanned within a 2 MiB budget")
    assert redact.plan(io.BytesIO(data), DEFAULT_BUNDLE_LIMITS, select, originals, work_budget=4 * MIB) == {}
