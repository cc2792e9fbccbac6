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
