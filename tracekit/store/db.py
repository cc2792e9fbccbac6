"""The store's I/O edge: open the DuckDB file, and read campaign files to hash them
(docs/campaign-store.md, "Concurrency", "Memory" and "The incremental rule").

DuckDB is a dependency imported only here, and only when a store
is opened, so ``tracekit --help`` does not pay for it. DuckDB takes an exclusive file lock for a
writable connection: a second process opening the same store fails at once, and that failure is
mapped to ``store.locked`` (never a traceback, never a wait that could hang).
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tracekit.kernel.errors import Code, TracekitError, finding
from tracekit.store.schema import check_version, migrate
from tracekit.store.seal import KEY_BYTES

HASH_CHUNK = 1024 * 1024
MEMORY_ENV = "TRACEKIT_STORE_MEMORY"
"""MiB DuckDB may use for a store (docs/campaign-store.md, "Memory")."""
MEMORY_MIB = 96
"""The default: a file of 50,000 episodes (two million rows in one transaction before schema
version 5) was written in about 175 MiB for the whole process, where DuckDB unbounded took 340
MiB (DuckDB goes some 70 MiB past its limit: what it allocates outside its buffers is not
counted); one row per episode since version 5, about 130 MiB."""
MEMORY_MIN_MIB = 64


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


def memory_mib() -> int:
    """The MiB DuckDB may use: ``$TRACEKIT_STORE_MEMORY`` if set, else :data:`MEMORY_MIB`.
    Raises TracekitError(store.memory_setting) for a value that is not a whole number of MiB
    of at least :data:`MEMORY_MIN_MIB`."""
    given = os.environ.get(MEMORY_ENV)
    if given is None:
        return MEMORY_MIB
    if not given.isascii() or not given.isdigit() or int(given) < MEMORY_MIN_MIB:
        raise TracekitError(finding(Code.STORE_MEMORY_SETTING, minimum=MEMORY_MIN_MIB))
    return int(given)


def _bounded(con: Any, mib: int, spill: str) -> None:
    """DuckDB held to ``mib`` MiB, spilling what does not fit into ``spill`` (a private folder,
    never beside the user's store: DuckDB's default would be ``STORE.tmp``)."""
    con.execute(f"SET memory_limit = '{mib}MiB'")
    con.execute("SET temp_directory = ?", [spill])


@contextmanager
def open_store(path: Path, *, writable: bool) -> Iterator[Any]:
    """A DuckDB connection to the store at ``path``, closed on exit.

    ``writable`` creates the store if needed and applies migrations; otherwise the store is an
    input like any other: a missing one is ``format.unreadable`` and an empty file
    ``format.empty`` (docs/cli.md, "One code per mistake"), and it must be at this tracekit's
    schema version. Raises TracekitError with ``store.*`` codes (locked, newer schema, not a
    store, DuckDB missing)."""
    if not writable and not path.is_file():
        raise TracekitError(finding(Code.FORMAT_UNREADABLE))
    if not writable and not path.is_symlink() and path.stat().st_size == 0:
        raise TracekitError(finding(Code.FORMAT_EMPTY))
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise TracekitError(finding(Code.STORE_NOT_A_STORE))
    import tempfile

    mib = memory_mib()
    con = _connect(path, read_only=not writable)
    duckdb = _duckdb()
    spill = tempfile.TemporaryDirectory(prefix="tracekit-store-")
    try:
        _bounded(con, mib, spill.name)
        try:
            if writable:
                migrate(con)
            else:
                check_version(con, writable=False)
        except duckdb.OutOfMemoryException:
            # A migration that needs more than the limit: the store keeps its version.
            raise TracekitError(finding(Code.STORE_MEMORY_LIMIT, limit=mib)) from None
        except duckdb.Error:
            raise TracekitError(finding(_damaged(path))) from None
        try:
            yield con
        except duckdb.OutOfMemoryException:
            raise TracekitError(finding(Code.STORE_MEMORY_LIMIT, limit=mib)) from None
        except duckdb.Error:
            # A store that opens but fails a query is damaged inside (a truncated or overwritten
            # block): a clear code, never an internal error (docs/threat-model.md).
            raise TracekitError(finding(Code.STORE_CORRUPT)) from None
    finally:
        con.close()
        spill.cleanup()


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


@contextmanager
def staging() -> Iterator[str]:
    """A private folder (mode 0700) for rows on their way into the store, removed on exit."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="tracekit-store-") as folder:
        yield folder


def staged(folder: str, lines: list[bytes]) -> str:
    """``lines`` written as one file of JSON lines in ``folder`` (the run's private staging
    folder, tracekit/store/writer.py), replacing the last; its path, for DuckDB to read."""
    path = os.path.join(folder, "rows.jsonl")
    with open(path, "wb") as out:
        out.write(b"\n".join(lines))
    return path


KEY_ENV = "TRACEKIT_STORE_KEY"
"""A path to the key file, instead of the default in the user's configuration folder."""


def key_path() -> Path:
    """Where the store key is kept: ``$TRACEKIT_STORE_KEY``, else ``tracekit/store.key`` in
    ``$XDG_CONFIG_HOME`` (default ``~/.config``)."""
    given = os.environ.get(KEY_ENV)
    if given:
        return Path(given)
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "tracekit" / "store.key"


def load_key() -> bytes | None:
    """The store key, created (owner-only) on first use; None when it can be neither read nor
    created: results are then sealed by nothing and never reused."""
    path = key_path()
    try:
        with open(path, "rb") as handle:
            key = handle.read(KEY_BYTES + 1)
        return key if len(key) == KEY_BYTES else None
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return load_key_once(path)
    except OSError:
        return None
    key = secrets.token_bytes(KEY_BYTES)
    try:
        os.write(fd, key)
        os.fsync(fd)
    finally:
        os.close(fd)
    return key


def load_key_once(path: Path) -> bytes | None:
    """Read a key another process created a moment ago."""
    try:
        key = path.read_bytes()
    except OSError:
        return None
    return key if len(key) == KEY_BYTES else None
