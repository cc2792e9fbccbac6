"""The incremental rule: which files of a campaign need reading again (docs/campaign-store.md,
"The incremental rule").

A result is keyed by the file's BLAKE3 digest and an *options key*: the tracekit version plus
only those options that can change the audit of that format (a scenario and any other audit
option affect every format, source options AgentGuard traces only). A file whose digest has a result under the key its
format has now is linked to the new run without being read; a new tracekit version or a
changed option invalidates exactly the formats it affects.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from tracekit.store.schema import VALUES_CHUNK, insert_rows

UNREADABLE_DIGEST = "-"
"""The digest recorded for a file that could not be read to hash: never reused."""


class RunOptions(msgspec.Struct, frozen=True):
    """The options of an audit run that can change a verdict, in our terms only."""

    strict_sources: bool = False
    roots: tuple[tuple[str, str], ...] = ()
    """Trusted roots as (NAME, folder) pairs, sorted."""
    scenario: str | None = None
    """BLAKE3 of the scenario file's bytes, or None without ``--scenario``."""
    other: tuple[tuple[str, str], ...] = ()
    """Every other audit option (``--input-format``, a judging mode...) as sorted (name, JSON
    value) pairs: each is part of every format's key, so an option added to the audit later
    invalidates stored results until it is known to affect fewer formats."""

    def to_json(self) -> str:
        """Canonical JSON (sorted keys), as stored in ``runs.options``."""
        return msgspec.json.encode(msgspec.to_builtins(self), order="sorted").decode()


def _blake3(text: str) -> str:
    from blake3 import blake3

    return blake3(text.encode()).hexdigest()


def affecting(fmt: str, options: RunOptions) -> dict[str, Any]:
    """The options that can change the audit of a file of format ``fmt`` (step 2 of the rule):
    the scenario and every other option for every trace format (a scenario judges harness
    traces and every imported format, and adds a note to AgentGuard traces), the source options
    for AgentGuard only, and for a walked file that is no trace only the other options."""
    other = [list(pair) for pair in options.other]
    if fmt == "not_a_trace":  # a walked file no reader takes: only how it is read matters
        return {"other": other}
    common: dict[str, Any] = {"scenario": options.scenario, "other": other}
    if fmt == "agentguard":
        return {
            **common,
            "strict_sources": options.strict_sources,
            "roots": [list(pair) for pair in options.roots],
        }
    return common


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


def link_unchanged(
    con: Any, run_id: int, candidates: Sequence[Candidate], version: str, options: RunOptions,
    key: bytes | None = None,
) -> tuple[list[Candidate], int]:
    """Link every candidate whose (digest, options key) already has a result with an intact
    seal to ``run_id``, in one transaction; return the candidates that must be read (in the
    given order) and how many stored results failed their seal (their rows are deleted, so the
    files are read and judged again)."""
    from tracekit.store.seal import CHILD_TABLES, broken

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
        matched = con.execute(
            "SELECT c.path, c.size, c.digest, r.format, r.result_id, r.seal "
            "FROM current_files c JOIN results r ON r.digest = c.digest "
            "JOIN current_keys k ON k.format = r.format AND k.options_key = r.options_key "
            "WHERE c.digest <> ?",
            [UNREADABLE_DIGEST],
        ).fetchall()
        bad = broken(con, key, {str(m[4]): m[5] for m in matched})
        for table in ("results", *CHILD_TABLES):
            for start in range(0, len(bad), VALUES_CHUNK):
                chunk = sorted(bad)[start : start + VALUES_CHUNK]
                marks = ",".join(["?"] * len(chunk))
                con.execute(f"DELETE FROM {table} WHERE result_id IN ({marks})", chunk)
        linked = [(run_id, *m[:5], True) for m in matched if str(m[4]) not in bad]
        insert_rows(con, "files", linked)
        con.execute("DROP TABLE current_files")
        con.execute("DROP TABLE current_keys")
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    done = {str(row[1]) for row in linked}
    return [c for c in candidates if c.path not in done], len(bad)
