"""Each stored result bound to what it judged, under a key the store does not hold
(docs/threat-model.md, "The campaign store").

A result's *seal* is keyed BLAKE3 over its row (which names the file digest and the options key)
and every row that belongs to it (episodes, findings, completeness, verdicts), in canonical
JSON. It is written with the rows; before a later run reuses a result instead of reading the
file again, the seal is recomputed from the rows as stored and must match. Rows edited after
they were written (a digest swapped, an exit code lowered, a finding deleted) therefore fail,
and the file is read and judged again. Someone who can read the key can forge seals: the key
file is the user's, outside the store, readable by its owner only.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

KEY_BYTES = 32
"""The store key's length (BLAKE3's key size); the key file is read by tracekit/store/db.py."""
CHILD_TABLES = ("episodes", "findings", "completeness", "verdicts")
"""The tables whose rows belong to one result, in seal order."""


def seal(key: bytes, result: Sequence[Any], children: Mapping[str, Sequence[Sequence[Any]]]) -> str:
    """The seal of one result row without its ``first_run`` (which run wrote a result is not
    part of its verdict: a resumed, a local and a Dask run seal it alike) and its child rows
    (each table's rows in key order)."""
    from blake3 import blake3

    body = [list(result), *([list(r) for r in sorted(children.get(t, ()), key=_sort_key)]
                            for t in CHILD_TABLES)]
    return blake3(msgspec.json.encode(body), key=key).hexdigest()


def _sort_key(row: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(row[1:3])


CHECK_BATCH = 1000
"""Results whose seals are checked together: bounds the rows held at once while checking."""


def broken(con: Any, key: bytes | None, sealed: dict[str, str | None]) -> set[str]:
    """The result ids among ``sealed`` (result id -> seal as stored) whose rows no longer match
    their seal (all of them without a key). Reads each table once per batch of
    :data:`CHECK_BATCH` results, joined on their ids."""
    if key is None:
        return set(sealed)
    ids = sorted(sealed)
    out: set[str] = set()
    for start in range(0, len(ids), CHECK_BATCH):
        batch = {rid: sealed[rid] for rid in ids[start : start + CHECK_BATCH]}
        out |= _broken_batch(con, key, batch)
    return out


def _broken_batch(con: Any, key: bytes, sealed: dict[str, str | None]) -> set[str]:
    from tracekit.store.schema import insert_rows

    con.execute("CREATE OR REPLACE TEMP TABLE sealed_ids (result_id VARCHAR)")
    insert_rows(con, "sealed_ids", [(rid,) for rid in sealed])
    rows: dict[str, tuple[Any, ...]] = {
        str(r[0]): tuple(r) for r in con.execute(
            "SELECT r.* EXCLUDE (seal, first_run) FROM results r JOIN sealed_ids USING (result_id)"
        ).fetchall()
    }
    children: dict[str, dict[str, list[Any]]] = {rid: {t: [] for t in CHILD_TABLES} for rid in sealed}
    for table in CHILD_TABLES:
        for row in con.execute(
            f"SELECT t.* FROM {table} t JOIN sealed_ids USING (result_id)"
        ).fetchall():
            children[str(row[0])][table].append(row)
    con.execute("DROP TABLE sealed_ids")
    return {
        rid for rid, stored in sealed.items()
        if not stored or rid not in rows
        or not secrets.compare_digest(seal(key, rows[rid], children[rid]), stored)
    }
