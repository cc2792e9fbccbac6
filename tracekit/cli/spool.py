"""Spools: per-trace results streamed to anonymous temporary files as they arrive, read back in
order when the report is written, so a campaign's memory holds only its summary (audit,
metamorphic)."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Iterator
from typing import IO, Any


class Spool:
    """Append-only JSON-lines spools for cases and skipped sources; read back in order."""

    def __init__(self) -> None:
        # Closed by close(); the spools live as long as the study, not one block.
        self.cases: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115
        self.skipped: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115

    def add(self, handle: IO[bytes], items: Iterable[dict[str, Any]]) -> None:
        for item in items:
            handle.write(json.dumps(item, sort_keys=True, ensure_ascii=True).encode("ascii") + b"\n")

    def read(self, handle: IO[bytes]) -> Iterator[dict[str, Any]]:
        handle.flush()
        handle.seek(0)
        for line in handle:
            yield json.loads(line)

    def close(self) -> None:
        self.cases.close()
        self.skipped.close()
