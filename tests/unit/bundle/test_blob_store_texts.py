"""The sealer's blob store keeps a bounded number of texts' references (tracekit/bundle/blobs.py,
``KEPT_TEXTS``): an input of distinct texts does not hold each twice, and a bundle's bytes do
not depend on what was kept."""

from __future__ import annotations

import pytest

from tracekit.bundle import blobs
from tracekit.bundle.blobs import BlobStore


def test_texts_kept_are_bounded_and_references_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(blobs, "KEPT_TEXTS", 8)
    monkeypatch.setattr(blobs, "KEPT_TEXT_CHARS", 10)
    bounded, whole = BlobStore(key=b"k" * 32), BlobStore(key=b"k" * 32)
    monkeypatch.setattr(blobs, "KEPT_TEXTS", 1 << 30)
    texts = [f"t{n % 13}" for n in range(100)] + ["x" * 11, "x" * 11] + [f"u{n}" for n in range(40)]
    expected = [whole.add_text(t) for t in texts]
    monkeypatch.setattr(blobs, "KEPT_TEXTS", 8)
    assert [bounded.add_text(t) for t in texts] == expected
    assert len(bounded._texts) <= 8 and "x" * 11 not in bounded._texts
    assert len(bounded) == len(whole) == 13 + 1 + 40  # each distinct blob once, whatever was kept
    assert bounded.sorted_digests() == whole.sorted_digests()
    assert all(list(bounded.payload(d)) == list(whole.payload(d)) for d in whole.sorted_digests())


def test_spooled_payloads_read_back_as_added_whatever_the_order() -> None:
    """Payloads are appended to the spool about 1 MiB at a time (``BlobStore._pending``); a
    streamed blob, a repeated one and reading back in digest order all see what was added."""
    import io

    spooled, held = BlobStore(key=b"k" * 32, spool=io.BytesIO(b"xx")), BlobStore(key=b"k" * 32)
    big = bytes(range(256)) * 9000  # over CHUNK in 2 pieces
    for store in (spooled, held):
        store.add(b"one")
        store.add_stream(lambda: (big[:1000], big[1000:]))
        store.add(b"one")
        store.add_stream(lambda: (big,))  # held already: nothing new
        for n in range(5000):
            store.add(b"%d" % n * 40)
    assert len(spooled) == len(held) == 2 + 5000
    digests = spooled.sorted_digests()
    assert digests == held.sorted_digests()
    assert [b"".join(spooled.payload(d)) for d in digests] == [b"".join(held.payload(d)) for d in digests]
    assert spooled.payload_length(digests[0]) == len(b"".join(held.payload(digests[0])))
