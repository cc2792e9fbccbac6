"""The campaign store's tables and their migrations (docs/campaign-store.md, "Schema").

A store is a DuckDB file. ``schema_version`` holds one row per applied migration; a store whose
highest version is above :data:`SCHEMA_VERSION` was written by a newer tracekit and is refused
(``store.newer_schema``): this tracekit would misread tables it does not know. Each migration
runs in its own transaction, so a crash mid-migration leaves the previous version intact.

Results are content-addressed: ``results.result_id`` is a digest of (file digest, options key),
so a local run and a Dask run of the same campaign write the same rows, and a result written by
an interrupted run is found again by the next one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tracekit.kernel.errors import Code, TracekitError, finding

SCHEMA_VERSION = 5

_V1 = (
    """CREATE TABLE runs (
        run_id INTEGER PRIMARY KEY,
        started_at TIMESTAMP NOT NULL,
        ended_at TIMESTAMP,
        status VARCHAR NOT NULL,            -- running | complete | interrupted
        tool_version VARCHAR NOT NULL,
        root VARCHAR NOT NULL,              -- the campaign folder as given
        options VARCHAR NOT NULL,           -- our options in canonical JSON (no trace content)
        files_seen INTEGER NOT NULL DEFAULT 0,
        files_audited INTEGER NOT NULL DEFAULT 0,
        files_reused INTEGER NOT NULL DEFAULT 0
    )""",
    """CREATE TABLE results (
        result_id VARCHAR PRIMARY KEY,      -- blake3(digest, options_key)
        digest VARCHAR NOT NULL,            -- BLAKE3 of the file's bytes
        options_key VARCHAR NOT NULL,       -- tool version + the options that affect the format
        format VARCHAR NOT NULL,            -- agentguard | harness | ... | not_a_trace | unknown
        format_version VARCHAR,
        size BIGINT NOT NULL,
        exit_code INTEGER,                  -- NULL for not_a_trace
        readable BOOLEAN,
        intact BOOLEAN,
        rerunnable BOOLEAN,
        episodes INTEGER NOT NULL,
        first_run INTEGER NOT NULL,
        UNIQUE (digest, options_key)
    )""",
    """CREATE TABLE files (
        run_id INTEGER NOT NULL,
        path VARCHAR NOT NULL,              -- relative to the campaign root, '/' separated
        size BIGINT NOT NULL,
        digest VARCHAR NOT NULL,
        format VARCHAR NOT NULL,
        result_id VARCHAR NOT NULL,
        reused BOOLEAN NOT NULL,            -- linked from an earlier result, not read again
        PRIMARY KEY (run_id, path)
    )""",
    """CREATE TABLE episodes (
        result_id VARCHAR NOT NULL,
        episode INTEGER NOT NULL,           -- 0-based position in the file
        episode_id VARCHAR,                 -- the id every report prints (version 3; docs/cli.md)
        format VARCHAR NOT NULL,
        exit_code INTEGER NOT NULL,
        readable BOOLEAN NOT NULL,
        intact BOOLEAN,
        rerunnable BOOLEAN NOT NULL,
        outcome VARCHAR,
        demonstration VARCHAR,
        PRIMARY KEY (result_id, episode)
    )""",
    """CREATE TABLE findings (
        result_id VARCHAR NOT NULL,
        episode INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        code VARCHAR NOT NULL,
        severity VARCHAR NOT NULL,
        policy VARCHAR NOT NULL,            -- the check family (docs/campaign-store.md)
        line INTEGER,
        "where" VARCHAR,
        message VARCHAR NOT NULL,
        PRIMARY KEY (result_id, episode, seq)
    )""",
    """CREATE TABLE completeness (
        result_id VARCHAR NOT NULL,
        episode INTEGER NOT NULL,
        field VARCHAR NOT NULL,
        status VARCHAR NOT NULL,            -- present | partial | missing | not_carried
        "where" VARCHAR NOT NULL,
        needed_to_rerun BOOLEAN NOT NULL,
        PRIMARY KEY (result_id, episode, field)
    )""",
    """CREATE TABLE verdicts (
        result_id VARCHAR NOT NULL,
        episode INTEGER NOT NULL,
        kind VARCHAR NOT NULL,              -- verify | replay | check
        verdict VARCHAR NOT NULL,
        PRIMARY KEY (result_id, episode, kind)
    )""",
)

_V2 = (
    # The keyed seal over a result and its rows (tracekit/store/seal.py); NULL for a result
    # written before version 2, which is therefore read again instead of reused.
    "ALTER TABLE results ADD COLUMN seal VARCHAR",
)

_V3 = (
    # episodes.episode_id holds the id every report prints (docs/cli.md, "Episode ids"); before,
    # an imported episode's was a digest no report shows, so it is cleared, and every seal is
    # cleared so that the next run reads every file again and stores its ids.
    "UPDATE episodes SET episode_id = NULL WHERE format <> 'agentguard'",
    "UPDATE results SET seal = NULL",
)

_V4_TABLES = {
    "findings": """(
        result_id VARCHAR NOT NULL,
        episode INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        code VARCHAR NOT NULL,
        severity VARCHAR NOT NULL,
        policy VARCHAR NOT NULL,
        line INTEGER,
        "where" VARCHAR,
        message VARCHAR NOT NULL
    )""",
    "completeness": """(
        result_id VARCHAR NOT NULL,
        episode INTEGER NOT NULL,
        field VARCHAR NOT NULL,
        status VARCHAR NOT NULL,
        "where" VARCHAR NOT NULL,
        needed_to_rerun BOOLEAN NOT NULL
    )""",
    "verdicts": """(
        result_id VARCHAR NOT NULL,
        episode INTEGER NOT NULL,
        kind VARCHAR NOT NULL,
        verdict VARCHAR NOT NULL
    )""",
}

_V4 = (
    # The per-episode tables lose their primary keys: DuckDB holds a key's index in memory,
    # about 100 bytes a row, so a file of 50,000 episodes (two million rows) cost 230 MiB
    # (docs/threat-model.md, "The campaign store"). The writer makes each key once; the seal
    # counts rows, so a duplicated row fails it. Seals are now a keyed set hash
    # (tracekit/store/seal.py): every stored seal is cleared, so the next run reads each file
    # again, once.
    *(statement for table, columns in _V4_TABLES.items() for statement in (
        f"CREATE TABLE {table}_v4 {columns}",
        f"INSERT INTO {table}_v4 SELECT * FROM {table}",
        f"DROP TABLE {table}",
        f"ALTER TABLE {table}_v4 RENAME TO {table}",
    )),
    "UPDATE results SET seal = NULL",
)

EPISODE_COLUMNS = (
    "episode_id", "format", "exit_code", "readable", "intact", "rerunnable", "outcome",
    "demonstration",
)
"""The documented ``episodes`` columns after (result_id, episode), in order."""

_DETAILS = {
    # view: (the detail column, the element's columns as (name, SQL type)); each element of a
    # detail list is a JSON array of those values, in order (tracekit/store/ingest.py)
    "findings": ("findings", (
        ("code", "VARCHAR"), ("severity", "VARCHAR"), ("policy", "VARCHAR"), ("line", "INTEGER"),
        ("where", "VARCHAR"), ("message", "VARCHAR"),
    )),
    "completeness": ("completeness", (
        ("field", "VARCHAR"), ("status", "VARCHAR"), ("where", "VARCHAR"),
        ("needed_to_rerun", "BOOLEAN"),
    )),
    "verdicts": ("verdicts", (("kind", "VARCHAR"), ("verdict", "VARCHAR"))),
}


def view_body(view: str, order: bool = False) -> str:
    """The SELECT behind the documented table ``view`` (episodes, findings, completeness,
    verdicts); ``order``: with the columns ``_row`` (the episode row's position) and ``_item``
    (the element's in its list) to put rows in the order they were written (db export)."""
    if view == "episodes":
        extra = ", rowid AS _row, 0 AS _item" if order else ""
        return f"SELECT result_id, episode, {', '.join(EPISODE_COLUMNS)}{extra} FROM episode_rows"
    seq = "d.seq, " if view == "findings" else ""
    extra = ", e.rowid AS _row, d.seq AS _item" if order else ""
    return (
        f"SELECT e.result_id, e.episode, {seq}{detail_columns(view)}{extra} "
        f"FROM episode_rows e JOIN {detail_items(view)} d "
        "ON d.result_id = e.result_id AND d.detail = e.detail"
    )


def detail_items(view: str) -> str:
    """Every element of every detail's list of ``view`` (findings, completeness, verdicts), as
    (result_id, detail, item: its values as text, seq: its position)."""
    column = _DETAILS[view][0]
    return (
        "(SELECT result_id, detail, unnest(items) AS item, "
        "unnest(range(len(items)))::INTEGER AS seq FROM (SELECT result_id, detail, "
        f"""from_json({column}, '[["VARCHAR"]]') AS items FROM episode_details))"""
    )


def detail_columns(view: str, alias: str = "d") -> str:
    """The columns of ``view`` from :func:`detail_items` rows named ``alias``, typed."""
    return ", ".join(
        f'{alias}.item[{i}]{"" if kind == "VARCHAR" else "::" + kind} AS "{name}"'
        for i, (name, kind) in enumerate(_DETAILS[view][1], start=1)
    )


def _json_list(view: str) -> str:
    """A V4 table's rows of one episode as the JSON text of its detail list (migration 5), for
    the episodes of one part (parameters: the number of parts, the part)."""
    column, elements = _DETAILS[view]
    values = ", ".join(f'"{name}"' for name, _ in elements)
    order = "seq" if view == "findings" else "rowid"
    return (
        f"(SELECT result_id, episode, '[' || string_agg(item, ',' ORDER BY o) || ']' AS {column} "
        f"FROM (SELECT result_id, episode, {order} AS o, json_array({values})::VARCHAR AS item "
        f"FROM {view} WHERE {_PART}) GROUP BY result_id, episode)"
    )


_PART = "hash(result_id, episode) % ? = ?"
"""An episode's part of migration 5 (parameters: the number of parts, the part)."""
MIGRATE_ROWS = 100_000
"""Per-episode rows migration 5 aggregates at once: DuckDB's aggregate of lists does not spill,
so a store of two million rows is moved in parts within its memory limit."""


def _move_details(con: Any) -> None:
    """Migration 5's ``episode_details``: one row per V4 episode, its lists aggregated in SQL,
    a part of the episodes at a time."""
    counts = [con.execute(f"SELECT count(*) FROM {t}").fetchone() for t in _DETAILS]
    parts = 1 + sum(int(c[0]) for c in counts if c) // MIGRATE_ROWS
    for part in range(parts):
        con.execute(_DETAILS_INSERT, [parts, part] * 4)


_DETAILS_INSERT = (
    "INSERT INTO episode_details SELECT e.result_id, e.episode, coalesce(f.findings, '[]'), "
    "coalesce(c.completeness, '[]'), coalesce(v.verdicts, '[]') "
    f"FROM (SELECT result_id, episode FROM episodes WHERE {_PART}) e "
    f"LEFT JOIN {_json_list('findings')} f ON f.result_id = e.result_id AND f.episode = e.episode "
    f"LEFT JOIN {_json_list('completeness')} c "
    "ON c.result_id = e.result_id AND c.episode = e.episode "
    f"LEFT JOIN {_json_list('verdicts')} v ON v.result_id = e.result_id AND v.episode = e.episode"
)

Step = str | Callable[[Any], None]
"""A migration's step: a statement, or a function of the connection (inside the transaction)."""

_V5: tuple[Step, ...] = (
    # One row per episode (docs/campaign-store.md, "Schema"): an episode's findings,
    # completeness and verdicts are lists in a *detail* row its episode row names, one per
    # distinct detail of a file, so a file of N episodes writes N rows and its few distinct
    # details, each encoded and sealed once. The documented tables become views over them.
    # Every seal is cleared: the next run reads each file again, once, and seals its new rows.
    """CREATE TABLE episode_rows (
        result_id VARCHAR NOT NULL,
        episode INTEGER NOT NULL,
        episode_id VARCHAR,
        format VARCHAR NOT NULL,
        exit_code INTEGER NOT NULL,
        readable BOOLEAN NOT NULL,
        intact BOOLEAN,
        rerunnable BOOLEAN NOT NULL,
        outcome VARCHAR,
        demonstration VARCHAR,
        detail INTEGER NOT NULL             -- episode_details.detail of the same result
    )""",
    """CREATE TABLE episode_details (
        result_id VARCHAR NOT NULL,
        detail INTEGER NOT NULL,
        findings VARCHAR NOT NULL,          -- JSON: [[code, severity, policy, line, where, message]]
        completeness VARCHAR NOT NULL,      -- JSON: [[field, status, where, needed_to_rerun]]
        verdicts VARCHAR NOT NULL           -- JSON: [[kind, verdict]]
    )""",
    # A V4 store's rows: one detail per episode (numbered as the episode).
    f"INSERT INTO episode_rows SELECT result_id, episode, {', '.join(EPISODE_COLUMNS)}, episode "
    "FROM episodes ORDER BY rowid",
    _move_details,
    *(f"DROP TABLE {table}" for table in ("episodes", *_DETAILS)),
    *(f"CREATE VIEW {view} AS {view_body(view)}" for view in ("episodes", *_DETAILS)),
    "UPDATE results SET seal = NULL",
)

MIGRATIONS: tuple[tuple[int, tuple[Step, ...]], ...] = (
    (1, _V1), (2, _V2), (3, _V3), (4, _V4), (5, _V5),
)
"""(version, statements) in order; a new schema appends a migration, never edits one."""

TABLES = ("runs", "files", "results", "episodes", "findings", "completeness", "verdicts")
"""Every documented table, in export order (since version 5, episodes, findings, completeness
and verdicts are views over episode_rows and episode_details)."""
VIEWS = ("episodes", *_DETAILS)
"""The documented tables that are views."""


def current_version(con: Any) -> int:
    """The store's schema version: 0 for an empty database."""
    exists = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_version'"
    ).fetchone()
    if not exists or not exists[0]:
        return 0
    row = con.execute("SELECT max(version) FROM schema_version").fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def check_version(con: Any, writable: bool, supported: int = SCHEMA_VERSION) -> int:
    """The version, after refusing a newer schema (``store.newer_schema``) and, for a read-only
    open, a store that still needs a migration (``store.older_schema``) or is empty
    (``store.not_a_store``)."""
    version = current_version(con)
    if version > supported:
        raise TracekitError(finding(Code.STORE_NEWER_SCHEMA, found=version, supported=supported))
    if not writable and version == 0:
        raise TracekitError(finding(Code.STORE_NOT_A_STORE))
    if not writable and version < supported:
        raise TracekitError(finding(Code.STORE_OLDER_SCHEMA, found=version, supported=supported))
    return version


def migrate(
    con: Any, migrations: Sequence[tuple[int, Sequence[Step]]] = MIGRATIONS
) -> int:
    """Apply every migration above the store's version, each in one transaction; return the
    version reached. Raises TracekitError(store.newer_schema) for a newer store."""
    version = check_version(con, writable=True, supported=max(v for v, _ in migrations))
    con.execute(
        "CREATE TABLE IF NOT EXISTS schema_version "
        "(version INTEGER PRIMARY KEY, applied_at TIMESTAMP NOT NULL)"
    )
    for target, statements in migrations:
        if target <= version:
            continue
        con.execute("BEGIN TRANSACTION")
        try:
            for statement in statements:
                if callable(statement):
                    statement(con)
                else:
                    con.execute(statement)
            con.execute("INSERT INTO schema_version VALUES (?, current_timestamp)", [target])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        version = target
    return version


VALUES_CHUNK = 500
"""Values per ``IN (...)`` list of a statement (bounds the statement size)."""
INSERT_ROWS = 50_000
"""Rows per INSERT of :func:`insert_rows` (bounds the lists bound to one statement)."""


def insert_rows(con: Any, table: str, rows: Sequence[tuple[Any, ...]]) -> None:
    """Insert ``rows`` into ``table``, in order, one statement per :data:`INSERT_ROWS` rows:
    each column bound as one list and unnested (DuckDB binds a list about ten times faster than
    the same values as the parameters of a multi-row VALUES)."""
    if not rows:
        return
    width = len(rows[0])
    values = ", ".join(["unnest(?)"] * width)
    for start in range(0, len(rows), INSERT_ROWS):
        chunk = rows[start : start + INSERT_ROWS]
        con.execute(f"INSERT INTO {table} SELECT {values}", [[row[i] for row in chunk] for i in range(width)])
