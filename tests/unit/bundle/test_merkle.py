"""The Merkle tree: RFC 9162's shape (checked against a direct recursive transcription of the
definition), and inclusion proofs for every leaf of every small tree."""

from __future__ import annotations

import hashlib

import blake3
import pytest

from tracekit.bundle import merkle


def _reference(data: list[bytes]) -> bytes:
    """docs/bundle-format.md section 5, transcribed literally."""
    if len(data) == 1:
        return blake3.blake3(b"\x00" + data[0]).digest()
    k = 1
    while k * 2 < len(data):
        k *= 2
    return blake3.blake3(b"\x01" + _reference(data[:k]) + _reference(data[k:])).digest()


@pytest.mark.parametrize("size", list(range(1, 34)) + [64, 65, 100])
def test_incremental_root_equals_the_definition(size: int) -> None:
    data = [b"record %d" % i for i in range(size)]
    assert merkle.root_of(merkle.leaf_hash(d) for d in data) == _reference(data)


@pytest.mark.parametrize("size", list(range(1, 20)) + [31, 32, 33])
def test_every_inclusion_path_leads_to_the_root(size: int) -> None:
    leaves = [merkle.leaf_hash(b"%d" % i) for i in range(size)]
    root = merkle.root_of(leaves)
    for index in range(size):
        path = merkle.inclusion_path(leaves, index)
        assert merkle.root_from_path(leaves[index], index, size, path) == root
        # another leaf, index or size, or a changed sibling, does not reach the root
        other = merkle.leaf_hash(b"other")
        assert merkle.root_from_path(other, index, size, path) != root
        if size > 1:
            assert merkle.root_from_path(leaves[index], (index + 1) % size, size, path) != root
            broken = [bytes(32)] + path[1:]
            assert merkle.root_from_path(leaves[index], index, size, broken) != root
            assert merkle.root_from_path(leaves[index], index, size, path + [bytes(32)]) is None


def test_leaf_and_node_are_domain_separated() -> None:
    left, right = merkle.leaf_hash(b"a"), merkle.leaf_hash(b"b")
    # a leaf whose data is the concatenation of two hashes is not the node over them
    assert merkle.leaf_hash(left + right) != merkle.node_hash(left, right)


def _reference_sha256(data: list[bytes]) -> bytes:
    """RFC 9162's MTH with SHA-256 (section 5, "The SHA-256 root"), transcribed literally."""
    if len(data) == 1:
        return hashlib.sha256(b"\x00" + data[0]).digest()
    k = 1
    while k * 2 < len(data):
        k *= 2
    return hashlib.sha256(b"\x01" + _reference_sha256(data[:k]) + _reference_sha256(data[k:])).digest()


_B = merkle.BATCH_LEAVES
_ACROSS_BATCHES = [_B - 1, _B, _B + 1, 2 * _B - 1, 2 * _B, 3 * _B + 7, 4 * _B + 1]


@pytest.mark.parametrize("size", _ACROSS_BATCHES)
def test_batched_roots_equal_the_definition(size: int) -> None:
    """Leaves hashed a batch at a time (whole subtrees joined to the stack, the rest leaf by
    leaf at the end) give the definition's root, with either hash, fed one by one or in lists."""
    data = [b"record %d" % i for i in range(size)]
    trees = merkle.DualTree()
    for d in data:
        trees.add(d)
    expected = (_reference(data), _reference_sha256(data))
    assert trees.roots() == expected
    one_by_one = merkle.TreeBuilder(merkle.reusing_b3())
    for d in data:
        one_by_one.add(merkle.leaf_hash(d))
    uneven = merkle.TreeBuilder(merkle.sha256)
    for start in range(0, size, 1000):
        uneven.extend([merkle.leaf_hash(d, merkle.sha256) for d in data[start : start + 1000]])
    assert (one_by_one.root(), uneven.root()) == expected
    assert one_by_one.root() == expected[0]  # reading the root changes nothing


@pytest.mark.parametrize("split", [0, 5, merkle.BATCH_LEAVES])
def test_dual_tree_fed_in_batches_equals_one_by_one(split: int) -> None:
    """Whole batches hashed at once, after or without leaves added one by one, change nothing."""
    data = [b"r%d" % i for i in range(3 * merkle.BATCH_LEAVES + 3)]
    trees = merkle.DualTree()
    for d in data[:split]:
        trees.add(d)
    for start in range(split, len(data), merkle.BATCH_LEAVES):
        trees.extend(data[start : start + merkle.BATCH_LEAVES])
    assert trees.roots() == (_reference(data), _reference_sha256(data))


def test_large_payloads_are_hashed_before_a_batch_fills(monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch holds at most ``BATCH_BYTES`` of payloads (a record frame may be 16 MiB), and
    hashing it early changes no root."""
    held: list[int] = []
    trees = merkle.DualTree()
    hash_batch = trees._hash
    monkeypatch.setattr(trees, "_hash", lambda ps: (held.append(sum(map(len, ps))), hash_batch(ps)))
    data = [bytes([i % 251]) * 300_000 for i in range(40)]
    for d in data:
        trees.add(d)
    assert trees.roots() == (_reference(data), _reference_sha256(data))
    assert max(held) < merkle.BATCH_BYTES + 300_000
