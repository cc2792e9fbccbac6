"""The verifier's blob table (tracekit/bundle/blob_table.py): what it answers, and what a blob
costs in memory (a bundle within its limits may hold hundreds of thousands of them)."""

from __future__ import annotations

import hashlib
import tracemalloc

import blake3
from hypothesis import given
from hypothesis import strategies as st

from tracekit.bundle.blob_table import BlobTable


def _digest(n: int) -> bytes:
    return blake3.blake3(n.to_bytes(8, "big")).digest()


@given(st.lists(st.tuples(st.integers(0, 1 << 40), st.booleans(), st.booleans()), max_size=40), st.data())
def test_it_answers_as_the_dicts_it_replaced(blobs: list[tuple[int, bool, bool]], data: st.DataObject) -> None:
    """Lengths by hex digest, entries and plain digests by digest, references counted: the
    answers of the four dicts and the set the verifier kept before."""
    table = BlobTable()
    lengths: dict[str, int] = {}
    entries: dict[bytes, tuple[int, bool, bytes | None]] = {}
    plains: dict[bytes, bytes] = {}
    for n, (length, held, salted) in enumerate(blobs):
        digest = _digest(n)
        sha = hashlib.sha256(digest).digest() if held else None
        plain = blake3.blake3(digest + b"plain").digest() if held and salted else None
        table.add(digest, length, sha, plain)
        lengths[digest.hex()], entries[digest] = length, (length, held, sha)
        if plain is not None:
            plains[digest] = plain
    assert len(table) == len(blobs)
    named = data.draw(st.lists(st.integers(0, len(blobs) + 3), max_size=20))
    hexes = [_digest(n).hex() for n in named]
    assert table.places(h.encode() for h in hexes) == [n if n < len(blobs) else None for n in named]
    places = [table.place(h) for h in hexes]
    assert [None if p is None else table.length_at(p) for p in places] == [lengths.get(h) for h in hexes]
    held = [n for n in named if n < len(blobs)]
    assert table.lengths_at(held) == [blobs[n][0] for n in held]
    table.refer(held[: len(held) // 2])
    for n in held[len(held) // 2 :]:
        place = table.place(_digest(n).hex())
        assert place is not None
        table.refer((place,))
    assert table.unreferenced() == len(blobs) - len(set(held))
    for digest, entry in entries.items():
        assert table.entry(digest) == entry and table.plain(digest) == plains.get(digest)
    assert table.plain(_digest(len(blobs) + 1)) is None


def test_a_blob_costs_a_few_hundred_bytes() -> None:
    """About 720 bytes a blob before (a dict entry and a tuple per fact: 310 MiB to verify the
    bundle of an .eval of 40,000 x 8 distinct messages); about 210 now."""
    count = 50_000
    sha = hashlib.sha256(b"x").digest()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        table = BlobTable()
        for n in range(count):  # each digest made here: the table keeps it as its key
            table.add(_digest(n), 1000, sha, sha)
        table.refer(range(count))
        used = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert used / count < 240, used / count
    assert table.unreferenced() == 0
