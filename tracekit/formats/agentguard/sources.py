"""Source artifacts: resolve each recorded file against a root the caller trusts, hash it, compare.

docs/trace-format.md step 8. A source path is resolved only against the trace's own folder or a
root passed with ``--trusted-root NAME=DIR``; it is never allowed to leave that root, by ``..`` or
by a symlink. NOTE(threat-model): tracekit trusts the roots the caller names and the trace's
folder; it never infers a root from the trace's content.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path

import msgspec

from tracekit.formats.agentguard.schema.agentguard import SourceArtifact
from tracekit.kernel.errors import Code
from tracekit.kernel.limits import DEFAULT_BUDGET, Meter
from tracekit.kernel.paths import path_problem

ROOT_NAMES = ("REPOSITORY_ROOT", "RUN_ROOT", "CONFIG_ROOT", "AGENTGUARD_ROOT")
"""The ``${NAME}`` roles a source path may start with, as in upstream's portable references."""
KNOWN_ROLES = frozenset(
    {"report", "manifest", "command_log", "guard_incident", "guard_incident_markdown"}
)
_PLACEHOLDER = re.compile(r"^\$\{([A-Z_]{1,32})\}/(.*)$", re.DOTALL)
_CHUNK = 1024 * 1024
TOO_LARGE = "too_large"
"""What :func:`_hash_regular_file` returns for a file past the hashing bound."""


class SourceStatus(msgspec.Struct, frozen=True):
    """The outcome for one recorded source; ``role`` is printed only when it is a known role."""

    index: int
    role: str
    required: bool
    status: str  # match | changed | unavailable | too_large | escapes_root | invalid_path
    code: Code

    def as_dict(self) -> dict[str, object]:
        """JSON form: no path, and the role only when it is one of upstream's known roles."""
        return {
            "index": self.index,
            "role": self.role if self.role in KNOWN_ROLES else "other",
            "required": self.required,
            "status": self.status,
        }


def split_root(path: str) -> tuple[str | None, str]:
    """Split ``${NAME}/rest`` into (NAME, rest); a plain path gives (None, path)."""
    match = _PLACEHOLDER.match(path)
    if match:
        return match.group(1), match.group(2)
    return None, path


def source_path_problem(path: str) -> Code | None:
    """Path hygiene for a source path, placeholder included (an unknown NAME is not normalised)."""
    name, rest = split_root(path)
    if name is not None and name not in ROOT_NAMES:
        return Code.PATH_NOT_NORMALISED
    return path_problem(rest)


def check_source(
    index: int,
    source: SourceArtifact,
    trace_dir: Path | None,
    roots: Mapping[str, Path],
    max_bytes: int = DEFAULT_BUDGET.source_bytes,
    total: Meter | None = None,
) -> SourceStatus:
    """Resolve, confine and hash one source; never raises for a missing or unreadable file.

    A file larger than ``max_bytes``, or than what is left of the trace's ``total`` (bytes
    hashed for its earlier sources), is not hashed: ``source.too_large`` (docs/threat-model.md,
    "Work budget"; the schema records no size, so the bounds are the only ones there are).
    """
    name, rest = split_root(source.path)

    def status(kind: str, code: Code) -> SourceStatus:
        return SourceStatus(index, source.role, source.required, kind, code)

    if source_path_problem(source.path) is not None:
        return status("invalid_path", Code.SOURCE_ESCAPES_ROOT)
    root = roots.get(name) if name is not None else roots.get("RUN_ROOT", trace_dir)
    if root is None:
        return status("unavailable", _unavailable(source))
    try:
        real_root = Path(os.path.realpath(root))
        candidate = Path(os.path.realpath(real_root / rest))
    except (OSError, ValueError):
        return status("unavailable", _unavailable(source))
    if candidate != real_root and real_root not in candidate.parents:
        return status("escapes_root", Code.SOURCE_ESCAPES_ROOT)
    if total is not None:
        max_bytes = min(max_bytes, total.limit - total.used)
    digest, hashed = _hash_regular_file(candidate, max_bytes)
    if total is not None and digest not in (None, TOO_LARGE):
        total.charge(hashed)  # within what was left: max_bytes was cut to it
    if digest is None:
        return status("unavailable", _unavailable(source))
    if digest == TOO_LARGE:
        return status("too_large", Code.SOURCE_TOO_LARGE)
    if digest != source.sha256:
        return status("changed", Code.SOURCE_CHANGED)
    return status("match", Code.SOURCE_MATCH)


def _unavailable(source: SourceArtifact) -> Code:
    return Code.SOURCE_REQUIRED_UNAVAILABLE if source.required else Code.SOURCE_UNAVAILABLE


def _hash_regular_file(path: Path, max_bytes: int) -> tuple[str | None, int]:
    """sha256 of a regular file, read in bounded chunks, and the bytes read; None if it is not
    one or unreadable, :data:`TOO_LARGE` if it holds more than ``max_bytes`` (by its size, or by
    what reading it yields should it grow meanwhile; a sparse file is judged by its size, not
    its blocks)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None, 0
    read = 0
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, 0
        if info.st_size > max_bytes:
            return TOO_LARGE, 0
        digest = hashlib.sha256()
        while chunk := os.read(fd, min(_CHUNK, max_bytes + 1 - read)):
            read += len(chunk)
            if read > max_bytes:
                return TOO_LARGE, read
            digest.update(chunk)
        return digest.hexdigest(), read
    except OSError:
        return None, read
    finally:
        os.close(fd)
