"""Every supported trace format, in detection order, and the one detection rule
(docs/formats.md, "The format layer").

A format module is imported only when it is asked for (:func:`get`) or when detection reaches it,
so ``tracekit --help`` never pays for an importer's dependencies. Detection is structural: each
format's ``sniff`` looks at the first :data:`~tracekit.formats.base.SNIFF_BYTES` bytes, and the
name's suffix only breaks ties a sniff leaves open (docs/formats.md, "Detection", steps 1-4).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import Any

from tracekit.formats.base import (
    DEFAULT_FORMAT_LIMITS,
    SNIFF_BYTES,
    EpisodeStream,
    FormatError,
    FormatLimits,
    Source,
    TraceFormat,
)
from tracekit.kernel import collector
from tracekit.kernel.errors import Code, finding
from tracekit.kernel.evidence import EvidenceFile

FORMAT_NAMES: tuple[str, ...] = (
    "inspect",
    "otel",
    "agentdojo",
    "garak",
    "agentguard",
    "harness",
    "claude_code",
    "codex",
    "atif",
)
"""Supported formats, as help and diagnostics list them: the importers, then the two seed formats."""
DETECTION_ORDER: tuple[str, ...] = (
    "agentguard",
    "inspect",
    "otel",
    "agentdojo",
    "garak",
    "harness",
    "claude_code",
    "codex",
    "atif",
)
"""The order sniffs are asked in (docs/formats.md, "Detection", step 3). At most one accepts any
file, so the order only decides speed: AgentGuard first, since every command already holds its
reader (asking the others first imports four importers, about 15 ms of a 0.15 s start-up);
harness last, since its module imports the harness checks."""


PACKAGED = {
    "agentguard": "tracekit.formats.agentguard.reader",
    "harness": "tracekit.formats.harness.reader",
}
"""Formats that are packages (an engine beside the reader): where their ``FORMAT`` lives."""


def supported() -> str:
    """The supported names as one fixed string for diagnostics (our names, never input)."""
    return ", ".join(FORMAT_NAMES)


def get(name: str) -> TraceFormat:
    """The format called ``name``; raises :class:`FormatError` (``format.unknown_name``)."""
    if name not in FORMAT_NAMES:
        raise FormatError(finding(Code.FORMAT_UNKNOWN_NAME, formats=supported()))
    module = importlib.import_module(PACKAGED.get(name, f"tracekit.formats.{name}"))
    fmt: TraceFormat = module.FORMAT
    return fmt


def detect(prefix: bytes, suffix: str) -> TraceFormat | None:
    """The one format whose envelope the first bytes show, or None (docs/formats.md,
    "Detection"). Formats are asked in :data:`DETECTION_ORDER` and the first that accepts
    wins; the corpus test asserts that no two formats accept the same file, so the order only
    matters for speed and for files nobody wrote."""
    head = prefix[:SNIFF_BYTES]
    lowered = suffix.lower()
    for name in DETECTION_ORDER:
        fmt = get(name)
        if fmt.sniff(head, lowered):
            return fmt
    return None


def accepting(prefix: bytes, suffix: str) -> tuple[str, ...]:
    """Every format whose sniff accepts these bytes (tests use it to show detection is never
    ambiguous)."""
    head = prefix[:SNIFF_BYTES]
    return tuple(name for name in FORMAT_NAMES if get(name).sniff(head, suffix.lower()))


def read_prefix(source: Source) -> bytes:
    """The first bytes of ``source``, leaving its position at 0."""
    source.handle.seek(0)
    head = source.handle.read(SNIFF_BYTES)
    source.handle.seek(0)
    return head


def load(
    source: Source,
    input_format: str | None = None,
    limits: FormatLimits = DEFAULT_FORMAT_LIMITS,
) -> EvidenceFile:
    """The evidence in ``source``. ``input_format`` skips detection (docs/formats.md,
    "Detection", step 5): the named format loads the file and reports its own errors.

    Raises :class:`FormatError`: ``format.unknown`` when no format accepts the file (the message
    names the supported formats), else the detected format's own code.
    """
    return load_as(detected(source, input_format, limits), source, limits)


def detected(source: Source, input_format: str | None, limits: FormatLimits = DEFAULT_FORMAT_LIMITS) -> TraceFormat:
    """The format :func:`load` reads ``source`` as (after the total size check)."""
    if source.size > limits.total_bytes:
        raise FormatError(finding(Code.FORMAT_TOO_LARGE, limit=limits.total_bytes))
    if input_format is not None:
        return get(input_format)
    found = detect(read_prefix(source), source.name_suffix)
    if found is None:
        raise FormatError(finding(Code.FORMAT_UNKNOWN, formats=supported()))
    return found


def load_as(fmt: TraceFormat, source: Source, limits: FormatLimits = DEFAULT_FORMAT_LIMITS) -> EvidenceFile:
    """``source`` read by ``fmt``, from its first byte: the one place a format's importer runs.

    The cyclic collector is paused meanwhile (tracekit/kernel/collector.py): an import only grows the
    heap, and with the collector running its time per MiB grew with the file (AgentDojo 0.021
    s/MiB at 1 MiB, 0.042 at 16 MiB; paused, 0.018 and 0.025)."""
    return whole(stream_as(fmt, source, limits))


def whole(stream: EpisodeStream) -> EvidenceFile:
    """Every episode of ``stream`` read, in the file's order, with the collector paused (an
    import only grows the heap)."""
    with collector.paused():
        return stream.evidence()


def stream_as(fmt: TraceFormat, source: Source, limits: FormatLimits = DEFAULT_FORMAT_LIMITS) -> EpisodeStream:
    """``source`` read by ``fmt`` one episode at a time where its reader streams
    (docs/formats.md, "Streaming episodes"), else read whole and handed over as a stream. The
    collector is paused while the reader works (:func:`load_as`), not while the consumer does:
    what a consumer keeps of each episode is all the heap grows by."""
    source.handle.seek(0)
    streamer = getattr(fmt, "stream", None)
    with collector.paused():
        if streamer is None:
            return EpisodeStream.whole(fmt.load(source, limits))
        stream: EpisodeStream = streamer(source, limits)
    stream.pairs = _paused(stream.pairs)
    return stream


def _paused(pairs: Iterator[tuple[Any, Any]]) -> Iterator[tuple[Any, Any]]:
    while True:
        with collector.paused():
            pair = next(pairs, None)
        if pair is None:
            return
        yield pair

