"""The BLAKE3 Merkle tree of a bundle: RFC 9162's tree shape with domain-separated hashing
(docs/bundle-format.md section 5), and its inclusion proofs (section 9).

Pure functions over bytes. The tree is built iteratively with a stack of (size, hash) pairs, so
millions of leaves need neither recursion nor a list of every level.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence

import blake3

LEAF_PREFIX = b"\x00"
_SHA256 = hashlib.sha256
NODE_PREFIX = b"\x01"


Hash = Callable[[bytes], bytes]


def b3(data: bytes) -> bytes:
    return blake3.blake3(data).digest()


def sha256(data: bytes) -> bytes:
    """The second tree's hash: the same shape with SHA-256 is exactly RFC 9162's tree
    (docs/bundle-format.md section 5, "The SHA-256 root")."""
    return hashlib.sha256(data).digest()


def leaf_hash(data: bytes, h: Hash = b3) -> bytes:
    """``leaf(d) = B3(0x00 || d)`` (or SHA-256 with ``h``)."""
    return h(LEAF_PREFIX + data)


def node_hash(left: bytes, right: bytes, h: Hash = b3) -> bytes:
    """``node(l, r) = B3(0x01 || l || r)`` (or SHA-256 with ``h``)."""
    return h(NODE_PREFIX + left + right)


BATCH_LEAVES = 4096
"""Leaves hashed a level at a time (a power of two): a complete subtree aligned at a multiple of
its size is a subtree of RFC 9162's tree, so its root joins the stack as one entry."""
BATCH_BYTES = 1 << 20
"""Record payloads held before they are hashed, at most: a batch is this many bytes or
:data:`BATCH_LEAVES` payloads, whichever comes first (a record frame may be 16 MiB)."""


def reusing_b3() -> Hash:
    """:func:`b3` with one hasher reset for each call: the same digests, without making a
    hasher object per leaf (about 40% of a small leaf's cost)."""
    hasher = blake3.blake3()
    reset, update, digest = hasher.reset, hasher.update, hasher.digest

    def h(data: bytes) -> bytes:
        reset()
        update(data)
        return digest()

    return h


def _complete_root(leaves: list[bytes], h: Hash) -> bytes:
    """The root over a power-of-two number of leaf hashes, one level at a time."""
    level = leaves
    while len(level) > 1:
        pairs = iter(level)
        if h is sha256:  # the same digests without a call of ours per node
            level = [_SHA256(NODE_PREFIX + left + right).digest() for left, right in zip(pairs, pairs, strict=True)]
        else:
            level = [h(NODE_PREFIX + left + right) for left, right in zip(pairs, pairs, strict=True)]
    return level[0]


def _push(stack: list[tuple[int, bytes]], size: int, digest: bytes, h: Hash) -> None:
    while stack and stack[-1][0] == size:
        left_size, left = stack.pop()
        size, digest = left_size + size, node_hash(left, digest, h)
    stack.append((size, digest))


class TreeBuilder:
    """Incremental MTH: feed leaf hashes in order, read the root at the end.

    Complete subtrees of power-of-two sizes are merged as soon as two of equal size meet; the
    final fold from the right gives RFC 9162's split at the largest power of two (section 5).
    Leaves are held until :data:`BATCH_LEAVES` of them make one complete subtree."""

    def __init__(self, h: Hash = b3) -> None:
        self._stack: list[tuple[int, bytes]] = []
        self._pending: list[bytes] = []
        self._hash = h
        self.size = 0

    def add(self, leaf: bytes) -> None:
        self.extend([leaf])

    def extend(self, leaves: list[bytes]) -> None:
        pending = self._pending
        pending.extend(leaves)
        self.size += len(leaves)
        while len(pending) >= BATCH_LEAVES:
            _push(self._stack, BATCH_LEAVES, _complete_root(pending[:BATCH_LEAVES], self._hash), self._hash)
            del pending[:BATCH_LEAVES]

    def root(self) -> bytes:
        if not self.size:
            raise ValueError("an empty tree has no root")
        stack = list(self._stack)
        for leaf in self._pending:
            _push(stack, 1, leaf, self._hash)
        digest = stack[-1][1]
        for _size, left in reversed(stack[:-1]):
            digest = node_hash(left, digest, self._hash)
        return digest


class DualTree:
    """A finding's two trees over the same record payloads, BLAKE3 and SHA-256 (section 5, "The
    SHA-256 root"), hashed in one pass over batches of payloads."""

    def __init__(self) -> None:
        self._b3 = TreeBuilder(reusing_b3())
        leaf = blake3.blake3()
        self._leaf = (leaf.reset, leaf.update, leaf.digest)
        self._sha256 = TreeBuilder(sha256)
        self._payloads: list[bytes] = []
        self._bytes = 0

    def add(self, payload: bytes) -> None:
        """One record payload (the leaf is its hash with the leaf prefix)."""
        self._payloads.append(payload)
        self._bytes += len(payload)
        if len(self._payloads) == BATCH_LEAVES or self._bytes >= BATCH_BYTES:
            self._flush()

    def extend(self, payloads: list[bytes]) -> None:
        """Record payloads, in order, hashed at once (the caller bounds the batch)."""
        self._flush()
        self._hash(payloads)

    def _flush(self) -> None:
        payloads, self._payloads, self._bytes = self._payloads, [], 0
        self._hash(payloads)

    def _hash(self, payloads: list[bytes]) -> None:
        reset, update, digest = self._leaf
        leaves: list[bytes] = []
        append = leaves.append
        for payload in payloads:  # :func:`reusing_b3`'s steps, without a call of ours per leaf
            reset()
            update(LEAF_PREFIX + payload)
            append(digest())
        self._b3.extend(leaves)
        self._sha256.extend([_SHA256(LEAF_PREFIX + p).digest() for p in payloads])

    def roots(self) -> tuple[bytes, bytes]:
        """(BLAKE3 root, SHA-256 root)."""
        self._flush()
        return self._b3.root(), self._sha256.root()


def root_of(leaves: Iterable[bytes], h: Hash = b3) -> bytes:
    """MTH over leaf hashes (already ``leaf_hash``-ed with the same ``h``)."""
    builder = TreeBuilder(h)
    for leaf in leaves:
        builder.add(leaf)
    return builder.root()


def _subtree(leaves: Sequence[bytes], start: int, end: int) -> bytes:
    return root_of(leaves[start:end])


def inclusion_path(leaves: Sequence[bytes], index: int) -> list[bytes]:
    """RFC 9162 section 2.1.3.1 PATH(m, D[n]): sibling hashes from the leaf up to the root."""
    if not 0 <= index < len(leaves):
        raise ValueError("index out of range")
    path: list[bytes] = []
    start, end, m = 0, len(leaves), index
    # Walk down, then reverse: each level contributes the other half's root.
    while end - start > 1:
        n = end - start
        k = 1 << ((n - 1).bit_length() - 1)
        if m < k:
            path.append(_subtree(leaves, start + k, end))
            end = start + k
        else:
            path.append(_subtree(leaves, start, start + k))
            start, m = start + k, m - k
    path.reverse()
    return path


def root_from_path(leaf: bytes, index: int, size: int, path: Sequence[bytes]) -> bytes | None:
    """RFC 9162 section 2.1.3.2: the root an inclusion path leads to, or None when the path's
    length does not fit ``index`` and ``size``."""
    if not 0 <= index < size:
        return None
    fn, sn, digest = index, size - 1, leaf
    for sibling in path:
        if sn == 0:
            return None
        if fn & 1 or fn == sn:
            digest = node_hash(sibling, digest)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            digest = node_hash(digest, sibling)
        fn >>= 1
        sn >>= 1
    return digest if sn == 0 else None
