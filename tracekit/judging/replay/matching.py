"""Path and command matching exactly as upstream's policy matcher, within a budget
(docs/replay.md, "The seven checks").

Paths and patterns are both normalised the same way before ``fnmatchcase``: backslashes become
``/`` and leading and trailing ``/`` are stripped. ``fnmatchcase`` lets ``*`` match ``/`` too, so
``**`` means the same as ``*`` and ``src/**`` matches every file below ``src``; a pattern such as
``**/.env`` therefore does *not* match a top-level ``.env`` (there is no ``/`` to consume), which
is upstream's behaviour and is kept. Command patterns are plain substrings.

tracekit does not need to normalise harder than this: verify already refuses any recorded path
that is not in normalised form (``./secrets/k`` cannot reach replay), docs/replay.md,
"Deviations from upstream".

Bounded work (docs/threat-model.md, "Work budget"): a snapshot may list one pattern 4,096 times
and a trace may change 10,000 files, so :class:`PathPatterns` and :class:`CommandPatterns` match
each *distinct* normalised pattern once per subject (compiled once), then report the original
patterns in snapshot order, duplicates kept, so results equal upstream's. Every match is charged
to a :class:`~tracekit.kernel.limits.Meter`: ``len(subject) * weight(pattern) + MATCH_OVERHEAD`` units,
where a substring's weight is its length and a glob's is its length plus ``STAR_WEIGHT`` per
``*`` (each ``*`` becomes a lookahead group that may rescan the subject): measured, one unit is
about a third of a nanosecond for every shape of glob. Past the bound the caller refuses to
replay with ``replay.work_budget_exceeded`` rather than guess.

A list's shape (its distinct keys, their weights and compile costs, then its compiled globs) is
kept per process, for lists of up to :data:`SHAPE_CHARS` characters: a campaign under one policy
builds it once. Every trace is still charged the compile cost, so what a trace may spend does not
depend on the traces before it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from fnmatch import fnmatchcase, translate
from functools import lru_cache

from tracekit.kernel.limits import Meter

MATCH_OVERHEAD = 1024
"""Units charged per match on top of the subject x pattern product (the cost of one call)."""
STAR_WEIGHT = 8
"""Extra weight of a ``*`` in a glob when matching (see the module docstring)."""
COMPILE_UNITS_PER_CHAR = 64
COMPILE_UNITS_PER_STAR = 100_000
"""Compiling a glob costs about 20 microseconds per ``*`` (each becomes a group), 4 units a ns."""
COMPILED_GLOBS = 256
"""Compiled globs kept per process (least recently used dropped): a policy's globs, many times
over."""


def normalise(path: str) -> str:
    """``\\`` to ``/``, then leading and trailing ``/`` stripped, as upstream does."""
    return path.replace("\\", "/").strip("/")


def matches_path(path: str, pattern: str) -> bool:
    """True when the normalised ``path`` matches the normalised glob ``pattern``."""
    return fnmatchcase(normalise(path), normalise(pattern))


def matching_patterns(path: str, patterns: Iterable[str]) -> list[str]:
    """The patterns ``path`` matches, in the order given (duplicates kept, as upstream)."""
    return [pattern for pattern in patterns if matches_path(path, pattern)]


def command_patterns(command_text: str, patterns: Iterable[str]) -> list[str]:
    """The unsafe-command patterns that occur in ``command_text`` as substrings, in order."""
    return [pattern for pattern in patterns if pattern in command_text]


def glob_weight(pattern: str) -> int:
    """A normalised glob's matching weight: its length plus ``STAR_WEIGHT`` per ``*``."""
    return max(1, len(pattern) + STAR_WEIGHT * pattern.count("*"))


def substring_weight(pattern: str) -> int:
    """A substring pattern's matching weight: its length."""
    return max(1, len(pattern))


def compile_cost(pattern: str) -> int:
    """The units compiling one normalised glob is charged."""
    return len(pattern) * COMPILE_UNITS_PER_CHAR + pattern.count("*") * COMPILE_UNITS_PER_STAR


class _Shape:
    """What a pattern list compiles to before any match: each original's slot among the distinct
    keys, the keys, their cumulative matching weights and, for globs, their compile costs. A
    function of the list alone, so a campaign under one policy builds it once
    (:func:`_shape`)."""

    __slots__ = ("compile_costs", "compile_total", "compiled", "keys", "originals", "sizes", "slot")

    def __init__(
        self,
        originals: Sequence[str],
        keys: Sequence[str],
        weight: Callable[[str], int],
        globs: bool,
    ) -> None:
        self.originals = tuple(originals)
        index: dict[str, int] = {}
        self.slot = tuple(index.setdefault(key, len(index)) for key in keys)
        self.keys = tuple(index)
        sizes = [0]
        for key in self.keys:
            sizes.append(sizes[-1] + weight(key))
        self.sizes = sizes
        self.compile_costs = tuple(compile_cost(key) for key in self.keys) if globs else ()
        self.compile_total = sum(self.compile_costs)
        self.compiled: tuple[Callable[[str], re.Match[str] | None], ...] | None = None
        """The keys compiled, once a meter has paid for all of them (:meth:`PathPatterns.__init__`)."""


SHAPES = 64
"""Pattern-list shapes kept per process (least recently used dropped): a policy has five lists."""
SHAPE_CHARS = 64 * 1024
"""A list longer than this (characters over its patterns) is shaped for its trace alone, so the
kept shapes hold at most ``SHAPES * SHAPE_CHARS`` characters (docs/threat-model.md, "Work budget")."""


@lru_cache(maxsize=SHAPES)
def _kept_shape(originals: tuple[str, ...], globs: bool) -> _Shape:
    return _new_shape(originals, globs)


def _new_shape(originals: tuple[str, ...], globs: bool) -> _Shape:
    if globs:
        return _Shape(originals, [normalise(p) for p in originals], glob_weight, True)
    return _Shape(originals, originals, substring_weight, False)


def _shape(patterns: Sequence[str], globs: bool) -> _Shape:
    """The shape of ``patterns``: kept per process for lists of a policy's usual size, so that
    the traces of a campaign under one policy share it (docs/performance.md, "Campaigns")."""
    originals = tuple(patterns)
    if sum(map(len, originals)) > SHAPE_CHARS:
        return _new_shape(originals, globs)
    return _kept_shape(originals, globs)


class _Distinct:
    """Original patterns grouped by their matching key, each key tested once per subject.

    Before testing a subject the meter is charged for testing every key, so the bound is checked
    before the work is done; what a stop at the first match leaves untested is refunded.
    """

    def __init__(self, shape: _Shape) -> None:
        self.originals = shape.originals
        self.slot = shape.slot
        self.keys = shape.keys
        self._sizes = shape.sizes

    def _charge(self, subject: str, tested: int, meter: Meter) -> None:
        meter.charge(len(subject) * self._sizes[tested] + tested * MATCH_OVERHEAD)

    def _refund(self, subject: str, tested: int, meter: Meter) -> None:
        untested = len(self.keys) - tested
        sizes = self._sizes[-1] - self._sizes[tested]
        meter.refund(len(subject) * sizes + untested * MATCH_OVERHEAD)

    def _originals(self, hits: Sequence[bool]) -> list[str]:
        return [pattern for pattern, slot in zip(self.originals, self.slot, strict=True) if hits[slot]]


@lru_cache(maxsize=COMPILED_GLOBS)
def _glob_match(pattern: str) -> Callable[[str], re.Match[str] | None]:
    """A normalised glob compiled: campaigns of one policy compile each glob once per process
    (docs/performance.md, "Campaigns"). The meter is charged the compile cost all the same, so
    what a trace may spend does not depend on the traces before it."""
    return re.compile(translate(pattern)).match


class PathPatterns(_Distinct):
    """A glob list compiled once: :func:`matching_patterns` and "matches any", with a meter.

    The meter is charged each distinct glob's compile cost, in order, before that glob is
    compiled, whether or not an earlier trace of the process compiled it: when the whole list
    fits in what is left of the budget it is charged at once (the same total), else glob by
    glob, stopping where the bound is passed as it would have."""

    def __init__(self, patterns: Sequence[str], meter: Meter) -> None:
        shape = _shape(patterns, True)
        super().__init__(shape)
        if shape.compiled is not None and meter.used + shape.compile_total <= meter.limit:
            meter.charge(shape.compile_total)
            self._match = shape.compiled
            return
        compiled = []
        for key, cost in zip(shape.keys, shape.compile_costs, strict=True):
            meter.charge(cost)
            compiled.append(_glob_match(key))
        self._match = shape.compiled = tuple(compiled)

    def matching(self, path: str, meter: Meter) -> list[str]:
        """Like :func:`matching_patterns`: the originals ``path`` matches, in order."""
        subject = normalise(path)
        self._charge(subject, len(self.keys), meter)
        return self._originals([match(subject) is not None for match in self._match])

    def any(self, path: str, meter: Meter) -> bool:
        """True when ``path`` matches some pattern; stops at the first match."""
        subject = normalise(path)
        self._charge(subject, len(self.keys), meter)
        for tested, match in enumerate(self._match, start=1):
            if match(subject) is not None:
                self._refund(subject, tested, meter)
                return True
        return False


class CommandPatterns(_Distinct):
    """An unsafe-command list with each distinct substring tested once per command."""

    def __init__(self, patterns: Sequence[str]) -> None:
        super().__init__(_shape(patterns, False))

    def matching(self, command_text: str, meter: Meter) -> list[str]:
        """Like :func:`command_patterns`: the originals in ``command_text``, in order."""
        self._charge(command_text, len(self.keys), meter)
        hits = [key in command_text for key in self.keys]
        return self._originals(hits) if True in hits else []  # most commands match nothing
