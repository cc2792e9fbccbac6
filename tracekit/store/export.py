"""``db export``: every store table as Parquet or CSV, for pandas, polars and DuckDB users
(docs/campaign-store.md, "Export").

DuckDB writes the files itself (``COPY ... TO``) into a private staging folder the caller
chooses; the command's output sink then moves them into the output folder as one unit, so a
killed export leaves no half-written table under its final name.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from tracekit.store.schema import TABLES, VIEWS, view_body

Kind = Literal["parquet", "csv"]
EXPORTED = ("schema_version", *TABLES)
"""Every table, in export order."""
_OPTIONS = {"parquet": "(FORMAT parquet)", "csv": "(FORMAT csv, HEADER true)"}


class Exported(msgspec.Struct, frozen=True):
    """One table written: its name, file name and row count."""

    table: str
    file: str
    rows: int


class ExportReport(msgspec.Struct, frozen=True):
    """``db export``: the folder, the file kind and every table written."""

    folder: str
    kind: str
    tables: list[Exported]


def file_name(table: str, kind: Kind) -> str:
    """The exported file's name for ``table``."""
    return f"{table}.{kind}"


def _literal(text: str) -> str:
    # COPY takes its target as a string literal, not a parameter: quote it as SQL does.
    return "'" + text.replace("'", "''") + "'"


FORMULA_START = "^[-=+@\\t\\r]"
"""A text cell a spreadsheet may evaluate as a formula starts with ``=``, ``+``, ``-``, ``@``, a
tab or a carriage return (OWASP, "CSV Injection"); CSV export writes such a cell with a leading
``'`` so that it is shown as text."""


def _columns(con: Any, table: str) -> list[tuple[str, bool]]:
    """(quoted column name, holds text) for every column of ``table``, in order."""
    rows = con.execute(
        "SELECT column_name, data_type FROM information_schema.columns "
        "WHERE table_name = ? ORDER BY ordinal_position",
        [table],
    ).fetchall()
    return [('"' + str(name).replace('"', '""') + '"', str(kind) == "VARCHAR") for name, kind in rows]


def _neutralised(name: str) -> str:
    return (
        f"CASE WHEN regexp_matches({name}, {_literal(FORMULA_START)}) "
        f"THEN {_literal(chr(39))} || {name} ELSE {name} END AS {name}"
    )


def _source(table: str) -> str:
    """What ``table`` is read from: a view (schema version 5) in the order its rows were
    written, as the table it replaces was exported."""
    if table not in VIEWS:
        return table
    return f"({view_body(table, order=True)} ORDER BY _row, _item)"


def _select(con: Any, table: str, kind: Kind) -> str:
    """The rows exported: every column as stored; in CSV, text cells a spreadsheet would
    evaluate are neutralised (docs/campaign-store.md, "Export")."""
    if kind != "csv":
        names = ", ".join(name for name, _ in _columns(con, table))
        return f"SELECT {names} FROM {_source(table)}"
    columns = [_neutralised(name) if text else name for name, text in _columns(con, table)]
    return f"SELECT {', '.join(columns)} FROM {_source(table)}"


def export_table(con: Any, table: str, target: str, kind: Kind) -> int:
    """Write ``table`` (one of :data:`EXPORTED`) to ``target``; return its row count."""
    if table not in EXPORTED:
        raise ValueError(table)
    con.execute(f"COPY ({_select(con, table, kind)}) TO {_literal(target)} {_OPTIONS[kind]}")
    row = con.execute(f"SELECT count(*) FROM {table}").fetchone()
    return int(row[0]) if row else 0
