"""The batched, atomic writer of store rows (docs/campaign-store.md, "Fault safety").

A file's rows (its result, episode rows, details and its ``files`` rows) always go into the
same transaction, so a file is recorded whole or not at all; several whole
files may share one transaction (a commit costs a disk sync), which a kill loses together and
the next run reads again.

Rows are never all held: each is encoded as it comes (the JSON the seal hashes,
tracekit/store/seal.py), and past :data:`STAGE_ROWS` rows or :data:`STAGE_BYTES` bytes the
encoded rows go into the open transaction, through a file of the run's private staging folder
that DuckDB reads in one statement per table (far cheaper per row than parameters). A file of many episodes therefore
costs the coordinator a bounded buffer, one seal's sums, and DuckDB's own transaction.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from typing import Any

from tracekit.store.db import staged
from tracekit.store.ingest import Hook, Row, rollback
from tracekit.store.seal import CHILD_TABLES, Sealer, encode_row

STAGE_ROWS = 50_000
"""Encoded rows buffered before they are written into the open transaction."""
STAGE_BYTES = 4 * 1024 * 1024
"""Encoded bytes buffered before the same (an episode row with a detail of many findings is
large: DuckDB reads the staged file within its memory limit, docs/campaign-store.md, "Memory")."""
OBJECT_BYTES = 16 * 1024 * 1024
"""The largest row DuckDB's JSON reader takes by default; a longer one raises it for its batch."""
TABLES = ("results", *CHILD_TABLES, "files")


class Writer:
    """Writes whole files and commits them together, at most ``batch_files`` files or
    ``batch_seconds`` after the first one of a transaction, whichever comes first. ``stage``:
    a private folder for the rows on their way into the store (the caller's, removed by it)."""

    def __init__(
        self, con: Any, run_id: int, stage: str, *, batch_files: int = 64,
        batch_seconds: float = 1.0, hook: Hook | None = None,
    ) -> None:
        self.con, self.run_id, self.hook, self._stage = con, run_id, hook, stage
        self.batch_files, self.batch_seconds = max(1, batch_files), batch_seconds
        self.committed = 0
        self._open = False
        self._files = 0
        self._since = 0.0
        self._lines: dict[str, list[bytes]] = {table: [] for table in TABLES}
        self._buffered = self._bytes = self._longest = 0
        self._selects: dict[str, str] = {}

    def add(
        self, files: Sequence[tuple[str, int, str, str, str]], rows: Iterable[Row] | None,
        key: bytes | None = None,
    ) -> None:
        """Write one file's result (``rows``, its child rows then its ``results`` row; None when
        it is already stored), sealed with ``key`` (no seal without one: such a result is never
        reused), and the ``files`` rows (path, size, digest, format, result_id) of every path
        holding that content. Commits when the batch is full."""
        if not self._open:
            self.con.execute("BEGIN TRANSACTION")
            self._open, self._since = True, time.monotonic()
        try:
            if rows is not None:
                self._result(rows, key)
            for row in files:
                self._line("files", encode_row((self.run_id, *row, False)))
            self._files += len(files)
        except BaseException:
            self._abort()
            raise
        if self._files >= self.batch_files or time.monotonic() - self._since >= self.batch_seconds:
            self.flush()

    def _result(self, rows: Iterable[Row], key: bytes | None) -> None:
        sealer = None if key is None else Sealer(key)
        for table, row in rows:
            if table == "results":
                # The result row ends with first_run, which the seal leaves out (seal.py).
                stamp = None if sealer is None else sealer.seal(row[:-1])
                self._line(table, encode_row((*row, stamp)))
                continue
            line = encode_row(row)
            if sealer is not None:
                sealer.add(table, line)
            self._line(table, line)

    def _line(self, table: str, line: bytes) -> None:
        self._lines[table].append(line)
        self._buffered += 1
        self._bytes += len(line)
        self._longest = max(self._longest, len(line))
        if self._buffered >= STAGE_ROWS or self._bytes >= STAGE_BYTES:
            self._write()

    def _write(self) -> None:
        """Every buffered row into the open transaction, one statement per table."""
        for table, lines in self._lines.items():
            if not lines:
                continue
            self.con.execute(
                self._select(table) + f", maximum_object_size={max(OBJECT_BYTES, self._longest + 1)})",
                [staged(self._stage, lines)],
            )
            lines.clear()
        self._buffered = self._bytes = self._longest = 0

    def _select(self, table: str) -> str:
        """The INSERT of ``table``'s staged rows (each a JSON array of the columns in order),
        without the closing parenthesis of ``read_json``'s options."""
        if table not in self._selects:
            columns = [(str(c[0]), str(c[1])) for c in self.con.execute(f"DESCRIBE {table}").fetchall()]
            values = ", ".join(
                f"json[{i}]->>'$'" if kind == "VARCHAR" else f"json[{i}]::{kind}"
                for i, (_, kind) in enumerate(columns, start=1)
            )
            self._selects[table] = (
                f"INSERT INTO {table} SELECT {values} FROM read_json(?, format='newline_delimited', "
                "records=false, columns={'json': 'JSON[]'}"
            )
        return self._selects[table]

    def flush(self) -> None:
        """Commit the open transaction (nothing of it on any failure)."""
        if not self._open:
            return
        total = self.committed + self._files
        try:
            self._write()
            self.con.execute(
                "UPDATE runs SET files_audited = files_audited + ? WHERE run_id = ?",
                [self._files, self.run_id],
            )
            if self.hook is not None:
                self.hook("before_commit", total)
            self.con.execute("COMMIT")
        except BaseException:
            self._abort()
            raise
        self._open = False
        self.committed, self._files = total, 0
        if self.hook is not None:
            self.hook("after_commit", total)

    def _abort(self) -> None:
        rollback(self.con)
        self._open, self._files, self._buffered, self._bytes, self._longest = False, 0, 0, 0, 0
        for lines in self._lines.values():
            lines.clear()
