"""Redaction that keeps digests (docs/bundle-format.md section 8): a withheld blob becomes a
``W`` frame with its digest, length and reason; records, root and envelope are untouched.

Pure over a binary handle of a bundle that verified (exit 0 or 1)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import BinaryIO

from tracekit.bundle import jcs
from tracekit.bundle.container import BLOB, DIGEST_BYTES, WITHHELD, frame, iter_frames
from tracekit.bundle.limits import BundleLimits
from tracekit.harness import leakscan

Selector = Callable[[bytes, bytes], str | None]
"""``(digest, blob bytes) -> reason`` to withhold it, or None to keep it."""


WINDOW = 64 * 1024
OVERLAP = 1024


def _pieces(text: str) -> Iterator[str]:
    """Lines, and windows of at most 64 KiB overlapping by 1 KiB within a longer line, so the
    decoded views of one piece stay small and a secret (or its encoding) shorter than the
    overlap is always whole in some piece."""
    for line in text.split("\n"):
        if len(line) <= WINDOW:
            yield line
            continue
        for start in range(0, len(line) - OVERLAP, WINDOW - OVERLAP):
            yield line[start : start + WINDOW]


def _views(data: bytes) -> Iterator[str]:
    """The blob as text and its decoded views (JSON escapes, percent, base64, two levels deep:
    the harness's leak scanner), piece by piece."""
    for piece in _pieces(data.decode("utf-8", "replace")):
        for _form, view in leakscan.views(piece):
            yield view


def secrets_selector() -> Selector:
    """The harness's credential detectors, plain and encoded forms."""
    from tracekit.harness.assertions.no_secret_disclosure import PATTERNS

    anyone = re.compile("|".join(f"(?:{p.pattern})" for p in PATTERNS.values()))

    def select(_digest: bytes, data: bytes) -> str | None:
        return "secret" if any(anyone.search(view) for view in _views(data)) else None

    return select


def match_selector(pattern: re.Pattern[str]) -> Selector:
    def select(_digest: bytes, data: bytes) -> str | None:
        return "match" if any(pattern.search(view) for view in _views(data)) else None

    return select


def digest_selector(digests: Sequence[bytes]) -> Selector:
    wanted = set(digests)

    def select(digest: bytes, _data: bytes) -> str | None:
        return "requested" if digest in wanted else None

    return select


def plan(
    handle: BinaryIO,
    limits: BundleLimits,
    select: Selector,
    originals: Sequence[bytes],
    sizes: dict[bytes, int] | None = None,
) -> dict[bytes, str]:
    """Which held blobs to withhold, and why. The originals hold every message, argument and
    result, so they are withheld too whenever anything is (section 8). ``sizes``, when given,
    receives every held blob's length (the report lists what is withheld with its length)."""
    chosen: dict[bytes, str] = {}
    for raw in iter_frames(handle, limits):
        if raw.kind != BLOB:
            continue
        digest = raw.payload[:DIGEST_BYTES]
        if sizes is not None:
            sizes[digest] = len(raw.payload) - DIGEST_BYTES
        reason = select(digest, raw.payload[DIGEST_BYTES:])
        if reason is not None:
            chosen[digest] = reason
    if chosen:
        reason = next(iter(chosen.values()))
        for digest in originals:
            chosen.setdefault(digest, reason)
    return chosen


def rewrite(handle: BinaryIO, limits: BundleLimits, chosen: dict[bytes, str]) -> Iterator[bytes]:
    """The bundle's frames with each chosen blob replaced by its withheld entry."""
    from tracekit.bundle.container import MAGIC

    yield MAGIC
    for raw in iter_frames(handle, limits):
        digest = raw.payload[:DIGEST_BYTES]
        if raw.kind == BLOB and digest in chosen:
            entry = {
                "digest": digest.hex(),
                "length": len(raw.payload) - DIGEST_BYTES,
                "reason": chosen[digest],
            }
            yield frame(WITHHELD, jcs.dumps(entry))
        else:
            yield raw.encode()
