"""The campaign store: every audit verdict in an embedded DuckDB database, incremental
re-audits, and the queries an auditor asks (docs/campaign-store.md).

DuckDB is imported only when a store is opened (tracekit/store/db.py), never at import time.
"""

from __future__ import annotations

from tracekit.store.schema import SCHEMA_VERSION

__all__ = ["SCHEMA_VERSION"]
