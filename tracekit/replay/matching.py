"""Path and command matching exactly as upstream's policy matcher (spec §13).

Paths and patterns are both normalised the same way before ``fnmatchcase``: backslashes become
``/`` and leading and trailing ``/`` are stripped. ``fnmatchcase`` lets ``*`` match ``/`` too, so
``**`` means the same as ``*`` and ``src/**`` matches every file below ``src``; a pattern such as
``**/.env`` therefore does *not* match a top-level ``.env`` (there is no ``/`` to consume), which
is upstream's behaviour and is kept. Command patterns are plain substrings.

tracekit does not need to normalise harder than this: verify already refuses any recorded path
that is not in normalised form (``./secrets/k`` cannot reach replay), docs/replay.md "Paths".
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase


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
