"""The incremental rule: which files of a campaign need reading again (docs/campaign-store.md,
"The incremental rule").

A result is keyed by the file's BLAKE3 digest and an *options key*: the tracekit version plus
only those options that can change the audit of that format (a scenario affects harness traces,
source roots affect AgentGuard traces). A file whose digest has a result under the key its
format has now is linked to the new run without being read; a new tracekit version or a
changed option invalidates exactly the formats it affects.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

UNREADABLE_DIGEST = "-"
"""The digest recorded for a file that could not be read to hash: never reused."""
VALUES_CHUNK = 500
"""Rows per multi-row INSERT (bounds the statement size)."""


class RunOptions(msgspec.Struct, frozen=True):
    """The options of an audit run that can change a verdict, in our terms only."""

    strict_sources: bool = False
    roots: tuple[tuple[str, str], ...] = ()
    """Trusted roots as (NAME, folder) pairs, sorted."""
    scenario: str | None = None
    """BLAKE3 of the scenario file's bytes, or None without ``--scenario``."""

    def to_json(self) -> str:
        """Canonical JSON (sorted keys), as stored in ``runs.options``."""
        return msgspec.json.encode(msgspec.to_builtins(self), order="sorted").decode()


def _blake3(text: str) -> str:
    from blake3 import blake3

    return blake3(text.encode()).hexdigest()


def affecting(fmt: str, options: RunOptions) -> dict[str, Any]:
    """The options that can change the audit of a file of format ``fmt`` (step 2 of the rule)."""
    if fmt == "agentguard":
        return {
            "strict_sources": options.strict_sources,
            "roots": [list(pair) for pair in options.roots],
            "scenario_given": options.scenario is not None,
        }
    if fmt == "harness":
        return {"scenario": options.scenario}
    return {}


def options_key(version: str, fmt: str, options: RunOptions) -> str:
    """The options key of ``fmt`` under ``options`` with tracekit ``version``."""
    body = {"version": version, "format": fmt, "options": affecting(fmt, options)}
    return _blake3(msgspec.json.encode(body, order="sorted").decode())


def result_id(digest: str, key: str) -> str:
    """The content address of a result: BLAKE3 of the file digest and the options key."""
    return _blake3(f"{digest}\n{key}")[:40]


class Candidate(msgspec.Struct, frozen=True):
    """A file found in the campaign, hashed."""

    path: str
    """Relative to the campaign root, ``/``-separated."""
    absolute: str
    size: int
    digest: str


def insert_rows(con: Any, table: str, rows: Sequence[tuple[Any, ...]]) -> None:
    """Insert ``rows`` into ``table`` with multi-row VALUES statements of bounded size."""
    if not rows:
        return
    width = len(rows[0])
    for start in range(0, len(rows), VALUES_CHUNK):
        chunk = rows[start : start + VALUES_CHUNK]
        marks = ",".join(["(" + ",".join(["?"] * width) + ")"] * len(chunk))
        con.execute(f"INSERT INTO {table} VALUES {marks}", [v for row in chunk for v in row])


def link_unchanged(
    con: Any, run_id: int, candidates: Sequence[Candidate], version: str, options: RunOptions
) -> list[Candidate]:
    """Link every candidate whose (digest, options key) already has a result to ``run_id``, in
    one transaction; return the candidates that must be read (in the given order)."""
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute("CREATE OR REPLACE TEMP TABLE current_files (path VARCHAR, size BIGINT, "
                    "digest VARCHAR)")
        insert_rows(con, "current_files", [(c.path, c.size, c.digest) for c in candidates])
        formats = {str(r[0]) for r in con.execute("SELECT DISTINCT format FROM results").fetchall()}
        con.execute("CREATE OR REPLACE TEMP TABLE current_keys (format VARCHAR, options_key VARCHAR)")
        insert_rows(
            con, "current_keys", [(f, options_key(version, f, options)) for f in sorted(formats)]
        )
        con.execute(
            "INSERT INTO files SELECT ?, c.path, c.size, c.digest, r.format, r.result_id, true "
            "FROM current_files c JOIN results r ON r.digest = c.digest "
            "JOIN current_keys k ON k.format = r.format AND k.options_key = r.options_key "
            "WHERE c.digest <> ?",
            [run_id, UNREADABLE_DIGEST],
        )
        linked = {
            str(r[0])
            for r in con.execute("SELECT path FROM files WHERE run_id = ?", [run_id]).fetchall()
        }
        con.execute("DROP TABLE current_files")
        con.execute("DROP TABLE current_keys")
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return [c for c in candidates if c.path not in linked]
