"""The one check every hostile corpus file of an imported format goes through."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from tracekit.formats import registry
from tracekit.formats.base import FormatError
from tracekit.formats.reading import load_file
from tracekit.kernel.errors import Finding, Severity

MEMORY_BOUND = 64 * 1024 * 1024


def check_hostile(path: Path, fmt: str, code: str | None, canary: str) -> Finding | None:
    """``path`` is detected as ``fmt`` alone; a case without a code loads; any other is refused
    with ``code`` (one of ``fmt``'s own, at error severity), under the memory bound, without
    the canary. Returns the finding."""
    assert registry.accepting(path.read_bytes()[:65536], path.suffix) == (fmt,)
    if code is None:
        assert load_file(path).episodes
        return None
    tracemalloc.start()
    try:
        with pytest.raises(FormatError) as raised:
            load_file(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    found = raised.value.finding
    assert found.code.value == code and code.startswith(f"{fmt}.")
    assert found.severity is Severity.ERROR  # exit 2
    assert canary not in str(found.as_dict()) and canary not in str(raised.value)
    assert peak < MEMORY_BOUND  # bounded: never the whole expansion
    return found
