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


def _connect(path: Path, read_only: bool) -> Any:
    duckdb = _duckdb()
    try:
        return duckdb.connect(str(path), read_only=read_only)
    except duckdb.IOException as error:
        # NOTE(threat-model): the message is DuckDB's and may hold the path; it is matched, never
        # shown. A lock held by a live process is the only IOException naming a lock.
        if "lock" in str(error).lower():
            raise TracekitError(finding(Code.STORE_LOCKED)) from None
        raise TracekitError(finding(Code.STORE_NOT_A_STORE)) from None
    except duckdb.Error:
        raise TracekitError(finding(Code.STORE_NOT_A_STORE)) from None


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
            raise TracekitError(finding(Code.STORE_NOT_A_STORE)) from None
        yield con
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
