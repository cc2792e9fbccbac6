"""Each stored result bound to what it judged, under a key the store does not hold
(docs/threat-model.md, "The campaign store").

A result's *seal* is keyed BLAKE3 over its row (which names the file digest and the options key)
and, for each child table (``episode_rows``: one row per episode; ``episode_details``: the
findings, completeness and verdicts lists its episodes name, schema version 5), the count of the
result's rows in it and the sum modulo 2**256 of each row's keyed BLAKE3 (the row in canonical
JSON, after the table's name): a keyed additive set hash (Bellare and Micciancio's AdHash with a
keyed function, a MAC for sets). The sums do not depend on the rows' order, so a seal is made as
the rows pass to the transaction and checked as they stream back from an unordered scan: neither
side holds a file's rows at once, however many episodes it has (docs/threat-model.md, "The
Inspect archive reader"). The counts are sealed too, and a sum does not cancel a row added
twice (as an exclusive-or would), so a duplicated row fails the seal: the per-episode tables
hold no primary key (docs/campaign-store.md, "Schema"). An edited finding changes its detail
row's text, so its hash; an episode row pointed at another detail changes that row's.

The seal is written with the rows; before a later run reuses a result instead of reading the
file again, it is recomputed from the rows as stored and must match. Rows edited after they were
written (a digest swapped, an exit code lowered, a finding deleted) therefore fail, and the file
is read and judged again. Someone who can read the key can forge seals: the key file is the
user's, outside the store, readable by its owner only.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Sequence
from typing import Any

import msgspec

KEY_BYTES = 32
"""The store key's length (BLAKE3's key size); the key file is read by tracekit/store/db.py."""
CHILD_TABLES = ("episode_rows", "episode_details")
"""The tables whose rows belong to one result, in seal order."""
_MODULUS = 1 << 256
_TAGS = {table: table.encode() + b"\n" for table in CHILD_TABLES}

encode_row = msgspec.json.Encoder().encode
"""A row (a tuple of str, int, bool, None) in the canonical JSON the seal hashes."""


class Sealer:
    """One result's seal, made as its child rows pass (:meth:`add`), in any order."""

    __slots__ = ("_key", "_sums", "_counts", "_tagged")

    def __init__(self, key: bytes) -> None:
        from blake3 import blake3

        self._key = key
        self._sums = dict.fromkeys(CHILD_TABLES, 0)
        self._counts = dict.fromkeys(CHILD_TABLES, 0)
        self._tagged = {table: blake3(tag, key=key) for table, tag in _TAGS.items()}

    def add(self, table: str, line: bytes) -> None:
        """Count one row of ``table``, given as :data:`encode_row` wrote it."""
        hashed = self._tagged[table].copy()  # the keyed state after the table's name
        hashed.update(line)
        self._sums[table] += int.from_bytes(hashed.digest())
        self._counts[table] += 1

    def seal(self, result: Sequence[Any]) -> str:
        """The seal of the result row ``result`` (without its ``first_run``: which run wrote a
        result is not part of its verdict, so a resumed, a local and a Dask run seal it alike)
        and every row added."""
        from blake3 import blake3

        sums = [[self._counts[t], format(self._sums[t] % _MODULUS, "064x")] for t in CHILD_TABLES]
        return blake3(encode_row([list(result), sums]), key=self._key).hexdigest()


CHECK_BATCH = 1000
"""Results whose seals are checked together: bounds what is held at once while checking."""
FETCH_ROWS = 10_000
"""Child rows fetched from the store at once while checking (a tenth as many details: each
holds an episode's findings and completeness)."""


def broken(con: Any, key: bytes | None, sealed: dict[str, str | None]) -> set[str]:
    """The result ids among ``sealed`` (result id -> seal as stored) whose rows no longer match
    their seal (all of them without a key). Scans each table once per batch of
    :data:`CHECK_BATCH` results, joined on their ids, :data:`FETCH_ROWS` rows at a time."""
    if key is None:
        return set(sealed)
    ids = sorted(sealed)
    out: set[str] = set()
    for start in range(0, len(ids), CHECK_BATCH):
        batch = {rid: sealed[rid] for rid in ids[start : start + CHECK_BATCH]}
        out |= _broken_batch(con, key, batch)
    return out


def _fetched(con: Any, query: str, size: int) -> Iterator[tuple[Any, ...]]:
    cursor = con.execute(query)
    while rows := cursor.fetchmany(size):
        yield from rows


def _broken_batch(con: Any, key: bytes, sealed: dict[str, str | None]) -> set[str]:
    from tracekit.store.schema import insert_rows

    con.execute("CREATE OR REPLACE TEMP TABLE sealed_ids (result_id VARCHAR)")
    insert_rows(con, "sealed_ids", [(rid,) for rid in sealed])
    rows: dict[str, tuple[Any, ...]] = {
        str(r[0]): tuple(r) for r in con.execute(
            "SELECT r.* EXCLUDE (seal, first_run) FROM results r JOIN sealed_ids USING (result_id)"
        ).fetchall()
    }
    sealers = {rid: Sealer(key) for rid in sealed}
    for table in CHILD_TABLES:
        size = FETCH_ROWS if table == "episode_rows" else max(1, FETCH_ROWS // 10)
        query = f"SELECT t.* FROM {table} t JOIN sealed_ids USING (result_id)"
        for row in _fetched(con, query, size):
            sealers[str(row[0])].add(table, encode_row(row))
    con.execute("DROP TABLE sealed_ids")
    return {
        rid for rid, stored in sealed.items()
        if not stored or rid not in rows
        or not secrets.compare_digest(sealers[rid].seal(rows[rid]), stored)
    }
