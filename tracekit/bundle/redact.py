"""Redaction that keeps digests (docs/bundle-format.md section 8): a withheld blob becomes a
``W`` frame with its digest, length and reason; records, root and envelope are untouched.

Pure over a binary handle of a bundle that verified (exit 0 or 1)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO

from tracekit.bundle import jcs
from tracekit.bundle.blobs import salt_length
from tracekit.bundle.container import (
    BLOB,
    CHUNK,
    DIGEST_BYTES,
    HEADER_KIND,
    ORIGINAL,
    RECORD,
    WITHHELD,
    RawFrame,
    frame,
    iter_frames,
)
from tracekit.bundle.limits import BundleLimits
from tracekit.bundle.records import Manifest, from_json, refs
from tracekit.bundle.subjects import finding_of, withheld_frame
from tracekit.judging.harness import leakscan
from tracekit.kernel.errors import Code, TracekitError, finding
from tracekit.kernel.limits import DEFAULT_BUDGET, BudgetExceeded, Meter

if TYPE_CHECKING:
    from tracekit.judging.harness.scenario import Scenario

Selector = Callable[[bytes, "Blob"], str | None]
"""``(digest, blob) -> reason`` to withhold it, or None to keep it."""


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


ZIP_MAGIC = b"PK\x03\x04"


class Blob:
    """A held blob's data (after its salt), as a selector reads it: whole when it came whole;
    a larger one (``iter_frames`` hands it over in chunks) is copied to an anonymous temporary
    file the first time it is read, and read from there a window at a time, so none is held
    (docs/threat-model.md, "redact")."""

    def __init__(self, raw: RawFrame, skip: int, meter: Meter | None = None) -> None:
        self._raw, self._skip = raw, skip
        self._meter = Meter(DEFAULT_BUDGET.redact_work) if meter is None else meter
        """The redaction's work budget: charged each text, piece and view before a selector reads
        it, and what the selector charges (:meth:`charge`)."""
        self._spool: BinaryIO | None = None
        self.length = raw.length - skip

    def views(self) -> Iterator[str]:
        """The blob as text and its decoded views (JSON escapes, percent, base64, two levels deep:
        the harness's leak scanner), piece by piece, for the blob and each container member."""
        charge = self._meter.charge
        for text in self._texts():
            charge(len(text) + TEXT_COST)
            for piece in _pieces(text.decode("utf-8", "replace")):
                found = leakscan.views(piece)
                charge(PIECE_COST + VIEW_COST * len(found))
                for _form, view in found:
                    yield view

    def charge(self, units: int) -> None:
        """Charge the redaction's work budget (what a selector spends beyond reading the views)."""
        self._meter.charge(units)

    def _texts(self) -> Iterator[bytes]:
        """The blob, and when it is a zip container (an Inspect ``.eval`` original) each of its
        members decompressed, under the format layer's archive bounds (section 8, "Containers"):
        a secret in a compressed member is scanned as the importer would read it, and as what
        it does not lift (a scorer's explanation, sample metadata). A container that does not
        decode under those bounds cannot be scanned: :class:`FormatError`, and redaction
        refuses. A blob read from its spool comes in windows of :data:`SPOOL_WINDOW` bytes
        that overlap by :data:`OVERLAP`, as a long line's pieces do."""
        import io

        if self._raw.length <= CHUNK:
            data = self._raw.payload[self._skip :]
            handle: BinaryIO = io.BytesIO(data)
            yield data
        else:
            handle = self._spooled()
            for start in range(0, max(self.length - OVERLAP, 1), SPOOL_WINDOW - OVERLAP):
                handle.seek(start)
                yield handle.read(SPOOL_WINDOW)
            handle.seek(0)
        if handle.read(len(ZIP_MAGIC)) != ZIP_MAGIC:
            return
        from tracekit.formats.base import DEFAULT_FORMAT_LIMITS
        from tracekit.formats.inspect_eval import Budget, members, read_member

        budget = Budget(DEFAULT_FORMAT_LIMITS)
        for member in members(handle, self.length, DEFAULT_FORMAT_LIMITS):
            yield read_member(handle, member, self.length, DEFAULT_FORMAT_LIMITS, budget)

    def _spooled(self) -> BinaryIO:
        if self._spool is None:
            import tempfile

            self._spool = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close()
            self._spool.write(self._raw.payload[self._skip :])
            for chunk in self._raw.rest:
                self._spool.write(chunk)
        return self._spool

    def close(self) -> None:
        if self._spool is not None:
            self._spool.close()


TEXT_COST = 256
"""Units each text scanned is charged beyond its length: what a selector costs per
call, so a bundle of many tiny blobs is bounded too."""
PIECE_COST = 64
"""Units each piece (a line, or a window of a long one) is charged on top: building
its decoded views costs about that much however short it is, so a blob of many short lines is
bounded too."""
VIEW_COST = 32
"""Units each view of a piece is charged: building it (an eight-character base64 run has four;
docs/performance.md, "Round 11"). A selector that does more than one search a view charges the
rest itself (``--secrets``: tracekit/bundle/credentials.py)."""
SPOOL_WINDOW = 1024 * 1024
"""Bytes of a large blob scanned at a time (its windows overlap by :data:`OVERLAP`)."""


def secrets_selector() -> Selector:
    """detect-secrets' detectors, our plugins and the harness's credential shapes, over the plain
    and decoded views (tracekit/bundle/credentials.py)."""
    from tracekit.bundle.credentials import detector

    holds = detector()

    def select(_digest: bytes, blob: Blob) -> str | None:
        return "secret" if holds(blob.views(), blob.charge) else None

    return select


MARKER_KEYS = ("markers", "secret_markers", "forbidden_markers")
MAX_MARKERS = 1024


def scenario_markers(scenario: Scenario) -> list[str]:
    """The scenario's markers (section 8, "--scenario"): every list of strings under a marker
    key in ``expected``, in an ``expected`` mapping of one check (``memory_isolation``), or in
    an assertion; at most ``MAX_MARKERS``, each non-empty."""
    places: list[Any] = [scenario.expected, *scenario.expected.values(), *scenario.assertions]
    found: list[str] = []
    for place in places:
        if not isinstance(place, dict):
            continue
        for key in MARKER_KEYS:
            value = place.get(key)
            if isinstance(value, list):
                found += [v for v in value if isinstance(v, str) and v and v not in found]
    return found[:MAX_MARKERS]


def marker_selector(markers: Sequence[str]) -> Selector:
    """``--scenario``: the scenario's markers (section 8), in any view."""
    wanted = [m for m in markers if m]

    def select(_digest: bytes, blob: Blob) -> str | None:
        for view in blob.views():
            blob.charge(len(wanted) * (1 + len(view) // MARKER_CHARS))
            if any(m in view for m in wanted):
                return "match"
        return None

    return select


MARKER_CHARS = 128
"""A marker's search of a view is charged a unit and one more per this many characters of the
view (about 25 ns and 0.13 ns a character here): 1,024 markers over a sealed 16 MiB trace took
32 s before the charge, and are refused at the budget now (docs/threat-model.md, "Work budget")."""


def match_selector(pattern: re.Pattern[str]) -> Selector:
    def select(_digest: bytes, blob: Blob) -> str | None:
        return "match" if any(pattern.search(view) for view in blob.views()) else None

    return select


def digest_selector(digests: Sequence[bytes]) -> Selector:
    wanted = set(digests)

    def select(digest: bytes, _blob: Blob) -> str | None:
        return "requested" if digest in wanted else None

    return select


REASON_ORDER = ("secret", "match", "requested")


def plan(
    handle: BinaryIO,
    limits: BundleLimits,
    select: Selector,
    originals: Sequence[bytes],
    sizes: dict[bytes, int] | None = None,
    work_budget: int = DEFAULT_BUDGET.redact_work,
) -> dict[bytes, str]:
    """Which held blobs to withhold, and why (section 8): each blob the selector picks, with its
    own reason; then each finding's original when some blob its records reference is withheld
    (the original holds every message, argument and result), with that blob's reason. Nothing
    else: an untouched finding's original stays extractable. ``originals`` is kept for callers;
    the records say which original is whose. ``sizes`` receives every held blob's length. The
    blob data the selector scans is charged to ``work_budget`` (units, docs/threat-model.md,
    "Work budget"): past it, :class:`TracekitError` ``redact.work_budget_exceeded``."""
    chosen: dict[bytes, str] = {}
    held: set[bytes] = set()
    own: dict[int, bytes] = {}
    uses: dict[int, set[bytes]] = {}
    skip = DIGEST_BYTES
    meter = Meter(work_budget)
    for raw in iter_frames(handle, limits):
        if raw.kind == HEADER_KIND:
            skip = DIGEST_BYTES + salt_length(raw.payload)
            continue
        if raw.kind == RECORD:
            record = from_json(json.loads(raw.payload))
            index = record.finding or 0
            if isinstance(record, Manifest):
                own[index] = bytes.fromhex(record.original.digest)
            uses.setdefault(index, set()).update(bytes.fromhex(r.digest) for r in refs(record))
            continue
        if raw.kind != BLOB:
            continue
        digest = raw.payload[:DIGEST_BYTES]
        held.add(digest)
        blob = Blob(raw, skip, meter)
        if sizes is not None:
            sizes[digest] = blob.length
        try:
            reason = select(digest, blob)
        except BudgetExceeded as stop:
            raise TracekitError(finding(Code.REDACT_WORK_BUDGET_EXCEEDED, limit=stop.limit)) from None
        finally:
            blob.close()
        if reason is not None:
            chosen[digest] = reason
    for index, original in own.items():
        reasons = {chosen[d] for d in uses.get(index, ()) if d in chosen and d != original}
        if reasons and original not in chosen and original in held:
            chosen[original] = next(r for r in REASON_ORDER if r in reasons)
    return chosen


def rewrite(
    handle: BinaryIO, limits: BundleLimits, chosen: dict[bytes, str], originals: Sequence[bytes]
) -> Iterator[bytes]:
    """The bundle's frames with each chosen blob replaced by its withheld entry, and (version 3)
    the subject statement of each chosen original by its withheld form (section 8):
    ``originals``, each finding's original digest in the order of the bundle's manifests, which
    is the order of its ``A`` frames."""
    from tracekit.bundle.container import MAGIC

    yield MAGIC
    skip = DIGEST_BYTES
    subjects = 0
    for raw in iter_frames(handle, limits):
        if raw.kind == ORIGINAL:
            owner = originals[subjects]
            subjects += 1
            if owner in chosen:
                index = finding_of(json.loads(raw.payload))
                assert index is not None, "a verified bundle's A frames name their finding"
                yield frame(ORIGINAL, withheld_frame(index, chosen[owner]))
                continue
        digest = raw.payload[:DIGEST_BYTES]
        if raw.kind == HEADER_KIND:
            skip = DIGEST_BYTES + salt_length(raw.payload)
        if raw.kind == BLOB and digest in chosen:
            entry = {
                "digest": digest.hex(),
                "length": raw.length - skip,
                "reason": chosen[digest],
            }
            yield frame(WITHHELD, jcs.dumps(entry))
        else:
            yield from raw.chunks()
