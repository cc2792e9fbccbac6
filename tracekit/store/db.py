"""The store's I/O edge: open the DuckDB file, and read campaign files to hash them
(docs/campaign-store.md, "Concurrency" and "The incremental rule").

DuckDB is a dependency imported only here, and only when a store
is opened, so ``tracekit --help`` does not pay for it. DuckDB takes an exclusive file lock for a
writable connection: a second process opening the same store fails at once, and that failure is
mapped to ``store.locked`` (never a traceback, never a wait that could hang).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tracekit.errors import Code, TracekitError, finding
from tracekit.store.schema import check_version, migrate

HASH_CHUNK = 1024 * 1024


def _duckdb() -> Any:
    try:
        import duckdb
    except ImportError:
        raise TracekitError(finding(Code.STORE_UNAVAILABLE)) from None
    return duckdb


_REFUSED = ("permission denied", "read-only file system", "no space left", "no such file")
"""DuckDB's words for an operating-system refusal to create or write the file."""


def _connect(path: Path, read_only: bool) -> Any:
    duckdb = _duckdb()
    existed = path.exists()
    try:
        return duckdb.connect(str(path), read_only=read_only)
    except duckdb.IOException as error:
        # NOTE(threat-model): the message is DuckDB's and may hold the path; it is matched, never
        # shown. The system's refusal to write is the output rule's code (docs/cli.md, "Output
        # rules"); a lock held by a live process is the only other IOException naming a lock.
        text = str(error).lower()
        if not read_only and (not existed or not os.access(path, os.W_OK)) and any(
            word in text for word in _REFUSED
        ):
            raise TracekitError(finding(Code.CLI_OUTPUT_UNWRITABLE)) from None
        if "lock" in text:
            raise TracekitError(finding(Code.STORE_LOCKED)) from None
        raise TracekitError(finding(_damaged(path))) from None
    except duckdb.Error:
        raise TracekitError(finding(_damaged(path))) from None


STORE_MAGIC = b"DUCK"
"""DuckDB's file identifier, at byte offset 8 of every database file."""


def _damaged(path: Path) -> Code:
    """``store.corrupt`` for a DuckDB file DuckDB cannot open (truncated, overwritten inside),
    ``store.not_a_store`` for any other file."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(12)
    except OSError:
        return Code.STORE_NOT_A_STORE
    return Code.STORE_CORRUPT if head[8:12] == STORE_MAGIC else Code.STORE_NOT_A_STORE


@contextmanager
def open_store(path: Path, *, writable: bool) -> Iterator[Any]:
    """A DuckDB connection to the store at ``path``, closed on exit.

    ``writable`` creates the store if needed and applies migrations; otherwise the store must
    exist (``store.not_found``) and be at this tracekit's schema version. Raises TracekitError
    with ``store.*`` codes (locked, newer schema, not a store, DuckDB missing)."""
    if not writable and not path.is_file():
        raise TracekitError(finding(Code.STORE_NOT_FOUND))
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise TracekitError(finding(Code.STORE_NOT_A_STORE))
    con = _connect(path, read_only=not writable)
    duckdb = _duckdb()
    try:
        try:
            if writable:
                migrate(con)
            else:
                check_version(con, writable=False)
        except duckdb.Error:
            raise TracekitError(finding(_damaged(path))) from None
        try:
            yield con
        except duckdb.Error:
            # A store that opens but fails a query is damaged inside (a truncated or overwritten
            # block): a clear code, never an internal error (docs/threat-model.md).
            raise TracekitError(finding(Code.STORE_CORRUPT)) from None
    finally:
        con.close()


def file_digest(path: str) -> tuple[int, str] | None:
    """(size, BLAKE3 hex digest) of a regular file's bytes as read now; None when it cannot be
    read (the audit then reports it) or is not a regular file (a FIFO would block)."""
    from blake3 import blake3

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        hasher = blake3()
        size = 0
        while chunk := os.read(fd, HASH_CHUNK):
            hasher.update(chunk)
            size += len(chunk)
        return size, hasher.hexdigest()
    except OSError:
        return None
    finally:
        os.close(fd)
