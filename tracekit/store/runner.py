"""One audit run into the store, on the coordinator (docs/campaign-store.md, "A run").

1. Runs left ``running`` are marked ``interrupted``: the caller holds the store's write lock,
   so no process is writing them any more.
2. A ``runs`` row is committed with status ``running``.
3. Every file is hashed (BLAKE3 of its bytes, read now).
4. Files whose (digest, options key) already has a result are linked to the run without being
   read (incremental.py), in one transaction.
5. The others are audited by the executor (``audit``: local processes or a Dask cluster);
   files with the same digest are audited once. Results come back to this process, which alone
   writes them, whole files per transaction (ingest.py).
6. The run is marked ``complete`` with its counts. On Ctrl-C the open transaction is rolled
   back and the run marked ``interrupted``; after SIGKILL it stays ``running`` until step 1 of
   the next run. Either way every committed file is whole and is reused by the next run.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import msgspec

from tracekit.kernel.errors import Code, TracekitError, finding
from tracekit.store.db import file_digest, staging
from tracekit.store.incremental import (
    UNREADABLE_DIGEST,
    Candidate,
    RunOptions,
    link_unchanged,
    options_key,
    result_id,
)
from tracekit.store.ingest import NOT_A_TRACE, Hook, Stored, rollback, rows_for
from tracekit.store.writer import Writer

Audit = Callable[[list[str]], Iterator[Stored | None]]
"""Audits absolute paths (in order) and yields each result, None for a non-trace; a result's
episodes are read when the writer iterates them, before the next result is asked for."""


class RunStats(msgspec.Struct, frozen=True):
    """What one run did."""

    run_id: int
    files: int
    audited: int
    """Distinct contents read and audited in this run."""
    reused: int
    """Files linked to an earlier result without being read."""
    unsealed: int = 0
    """Stored results that failed their seal, so were read and judged again."""


def relative(path: str, root: str) -> str:
    """``path`` relative to the campaign ``root``, ``/``-separated. A path the walk of an
    absolute, normalised ``root`` made is ``root``, a separator and entry names: its part past
    them (``relpath`` would look up the working folder twice a file)."""
    prefix = root if root.endswith(os.sep) else root + os.sep
    normal = os.path.isabs(root) and os.path.normpath(root) == root and os.path.normpath(path) == path
    if normal and len(path) > len(prefix) and path.startswith(prefix):
        return path[len(prefix) :].replace(os.sep, "/")
    return os.path.relpath(path, root).replace(os.sep, "/")


def _same_folder(stored: str, root: str) -> bool:
    """Whether the stored campaign root names the folder ``root`` (symlinks resolved)."""
    return stored == root or os.path.realpath(stored) == os.path.realpath(root)


def _start(
    con: Any, root: str, version: str, options: RunOptions, files: int, new_root: bool
) -> int:
    con.execute("BEGIN TRANSACTION")
    try:
        last = con.execute("SELECT root FROM runs ORDER BY run_id DESC LIMIT 1").fetchone()
        if last is not None and not new_root and not _same_folder(str(last[0]), root):
            # docs/campaign-store.md, "One campaign per store": paths are relative to the root,
            # so runs of two folders would be compared path by path as if they were one.
            raise TracekitError(finding(Code.STORE_OTHER_ROOT))
        con.execute("UPDATE runs SET status = 'interrupted' WHERE status = 'running'")
        row = con.execute("SELECT coalesce(max(run_id), 0) + 1 FROM runs").fetchone()
        run_id = int(row[0]) if row else 1
        con.execute(
            "INSERT INTO runs (run_id, started_at, status, tool_version, root, options, "
            "files_seen) VALUES (?, current_timestamp, 'running', ?, ?, ?, ?)",
            [run_id, version, root, options.to_json(), files],
        )
        con.execute("COMMIT")
    except BaseException:
        rollback(con)
        raise
    return run_id


def _finish(con: Any, run_id: int, status: str, reused: int) -> None:
    con.execute(
        "UPDATE runs SET status = ?, ended_at = current_timestamp, files_reused = ? "
        "WHERE run_id = ?",
        [status, reused, run_id],
    )


def hash_files(paths: Sequence[str], root: str) -> list[Candidate]:
    """Step 3: every file hashed; an unreadable one gets the never-reused digest."""
    out = []
    for path in paths:
        measured = file_digest(path)
        size, digest = measured if measured is not None else (0, UNREADABLE_DIGEST)
        out.append(Candidate(relative(path, root), path, size, digest))
    return out


def run_into_store(
    con: Any, root: str, paths: Sequence[str], audit: Audit, *, version: str,
    options: RunOptions, hook: Hook | None = None, batch_files: int = 64,
    new_root: bool = False, seal_key: bytes | None = None,
) -> RunStats:
    """Audit the campaign files ``paths`` (absolute, found under ``root``) into the store
    ``con`` (writable); return the run's counts. Raises TracekitError(store.other_root) when
    the store's last run audited another folder, unless ``new_root``; raises whatever ``audit``
    raises (TracekitError from the executor) and re-raises interrupts, after recording the run
    as interrupted."""
    run_id = _start(con, root, version, options, len(paths), new_root)
    reused = unsealed = 0
    try:
        candidates = hash_files(paths, root)
        todo, unsealed = link_unchanged(con, run_id, candidates, version, options, seal_key)
        reused = len(candidates) - len(todo)
        order, groups = _distinct(todo)
        with staging() as stage:
            writer = Writer(con, run_id, stage, batch_files=batch_files, hook=hook)
            # No executor is started (no pool, no cluster) when nothing needs reading.
            results = audit([c.absolute for c in order]) if order else iter(())
            for first, report in zip(order, results, strict=True):
                unreadable = first.digest == UNREADABLE_DIGEST
                same = [first] if unreadable else groups[first.digest]
                # An unreadable file's result is this run's alone: it is never reused.
                content = f"{UNREADABLE_DIGEST}{run_id}/{first.path}" if unreadable else first.digest
                fmt = NOT_A_TRACE if report is None else str(report.report["format"])
                key = options_key(version, fmt, options)
                rid = result_id(content, key)
                rows = rows_for(rid, content, key, first.size, run_id, report)
                writer.add([(c.path, c.size, c.digest, fmt, rid) for c in same], rows, seal_key)
            writer.flush()
    except BaseException:
        rollback(con)
        _finish(con, run_id, "interrupted", reused)
        raise
    _finish(con, run_id, "complete", reused)
    return RunStats(run_id, len(paths), len(order), reused, unsealed)


def _distinct(todo: Sequence[Candidate]) -> tuple[list[Candidate], dict[str, list[Candidate]]]:
    """The files to read, one per digest (every unreadable one), and the files of each digest."""
    groups: dict[str, list[Candidate]] = {}
    order: list[Candidate] = []
    for c in todo:
        if c.digest == UNREADABLE_DIGEST:
            order.append(c)
            continue
        if c.digest not in groups:
            order.append(c)
        groups.setdefault(c.digest, []).append(c)
    return order, groups
