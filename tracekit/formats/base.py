"""What a trace format is: a structural sniff, a bounded load, and a conversion to evidence
(docs/formats.md, "The format layer").

A :class:`TraceFormat` never opens files: the caller (the CLI, or the reading edge in
``tracekit.formats.reading``) hands it a :class:`Source`, a seekable binary handle with the
file's size and display-free name. Everything an importer decodes is bounded by
:class:`FormatLimits` before it is decoded; a broken file raises :class:`FormatError` carrying a
finding with the format's own code, never another format's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, BinaryIO, Protocol, TypeVar

import msgspec

from tracekit.kernel.errors import Finding, TracekitError
from tracekit.kernel.evidence import Episode, EvidenceFile, RunProblem

T = TypeVar("T")

SNIFF_BYTES = 64 * 1024
"""How much of a file detection looks at (its first bytes)."""


class FormatLimits(msgspec.Struct, frozen=True):
    """Bounds for importing one third-party file (docs/formats.md, "Bounds")."""

    total_bytes: int = 512 * 1024 * 1024
    """Bytes in the file as stored (an archive: compressed)."""
    member_bytes: int = 16 * 1024 * 1024
    """Decompressed bytes of one archive member, or one JSON document / JSON line."""
    total_decompressed: int = 1024 * 1024 * 1024
    """Decompressed bytes over a whole archive."""
    members: int = 100_000
    """Members in one archive."""
    compression_ratio: int = 200
    """Decompressed / compressed bytes of one member, beyond a small-member allowance."""
    depth: int = 64
    """JSON nesting depth."""
    episodes: int = 100_000
    """Episodes in one file."""
    items_per_episode: int = 1_000_000
    """Messages + calls + events in one episode."""
    items_per_file: int = 500_000
    """Messages + events + calls over a whole Inspect log (messages and events charged before
    each sample is converted, its calls once it is): what
    the evidence of one file may cost in memory, about 200 bytes an item (docs/formats.md,
    "Bounds"), however well the archive compresses."""


DEFAULT_FORMAT_LIMITS = FormatLimits()


class Source(msgspec.Struct, frozen=True):
    """An opened input: a seekable binary handle and its size. No path is kept: diagnostics
    never show one, and importers never resolve names found inside the file."""

    handle: BinaryIO
    size: int
    name_suffix: str = ""
    """The file name's suffix (``.eval``, ``.json``, ``.jsonl``), lower case, used only to break
    ties a structural sniff leaves open; never to decide a format alone."""
    context: tuple[tuple[str, str], ...] = ()
    """Facts the reading edge took from the file's location, as (our key, value) pairs; empty
    unless the caller supplies them. AgentDojo lays its files out as
    ``pipeline/suite/user_task/attack/injection_task.json``: the reading edge may pass those
    five path components under the keys ``pipeline``, ``suite``, ``user_task``, ``attack`` and
    ``injection_task`` (``tracekit.formats.agentdojo.path_context`` builds them), and the
    importer uses them only where the file itself does not say (docs/formats.md, "AgentDojo")."""


class FormatError(TracekitError):
    """The file is not a valid file of the format it was detected (or forced) as."""

    def __init__(self, found: Finding) -> None:
        super().__init__(found)


class EpisodeStream(msgspec.Struct):
    """An imported file read one episode at a time (docs/formats.md, "Streaming episodes").

    ``pairs`` yields ``(key, episode)`` in the order the file holds them; a reader that holds
    only one episode at a time (Inspect) lets a consumer keep only what it makes of each. The
    file's episode order, the one :class:`EvidenceFile` has, is the pairs' stable order by key
    (:func:`in_order`): a consumer that reports in order keeps ``(key, result)`` and sorts at the
    end. A broken file raises :class:`FormatError` while ``pairs`` is iterated, so nothing is
    reported until the stream is exhausted."""

    format: str
    format_version: str | None
    pairs: Iterator[tuple[Any, Episode]]
    run_problems: tuple[RunProblem, ...] = ()

    @classmethod
    def whole(cls, evidence: EvidenceFile) -> EpisodeStream:
        """A stream over evidence already read whole (a reader that does not stream)."""
        return cls(evidence.format, evidence.format_version, enumerate(evidence.episodes), evidence.run_problems)

    def only(self, keep: Callable[[Episode], bool]) -> EpisodeStream:
        """The same stream without the episodes ``keep`` rejects."""
        pairs = ((key, episode) for key, episode in self.pairs if keep(episode))
        return EpisodeStream(self.format, self.format_version, pairs, self.run_problems)

    def evidence(self) -> EvidenceFile:
        """The whole file: every episode read, in the file's order."""
        return EvidenceFile(self.format, self.format_version, tuple(in_order(self.pairs)), self.run_problems)


def in_order(pairs: Iterable[tuple[Any, T]]) -> list[T]:
    """The values of ``(key, value)`` pairs in the stable order of their keys: the file's
    episode order for what a consumer made of each episode of an :class:`EpisodeStream`."""
    return [value for _, value in sorted(pairs, key=lambda pair: pair[0])]


class TraceFormat(Protocol):
    """One supported format."""

    name: str
    """Its identifier in every report (``agentguard``, ``harness``, ``inspect``, ``otel``,
    ``agentdojo``, ``garak``)."""

    def sniff(self, prefix: bytes, suffix: str) -> bool:
        """True when the first bytes match this format's envelope (structure, not extension)."""
        ...

    def load(self, source: Source, limits: FormatLimits) -> EvidenceFile:
        """The file's evidence; raises :class:`FormatError` with this format's code."""
        ...


class StreamingFormat(TraceFormat, Protocol):
    """A format whose reader can also yield its episodes one at a time."""

    def stream(self, source: Source, limits: FormatLimits) -> EpisodeStream:
        """The file's episodes as they are read; raises :class:`FormatError` with this format's
        code, before the stream or while it is iterated."""
        ...
