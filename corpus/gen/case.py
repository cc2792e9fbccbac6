"""The unit of the golden corpus: one file, its expected results, and why it exists."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Case:
    """One corpus file.

    ``folder`` is relative to corpus/ (``valid``, ``invalid``, ``replay``, ...); ``name`` is the
    file name *with* its suffix and is named after the attack or property it demonstrates.
    ``expected`` maps a command to what it must give, e.g.
    ``{"verify": {"exit": 2, "code": "chain.event_hash_mismatch"}}``; ``code`` is the first
    finding of severity error (or the notice/warning that explains exit 0/1), or None.
    """

    folder: str
    name: str
    data: bytes
    expected: dict[str, Any]
    about: str = ""
    extra_files: dict[str, bytes] = field(default_factory=dict)
    """Files written beside the case (source artifacts), by path relative to ``folder``."""
