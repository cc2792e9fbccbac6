"""The loader's bounds: one frozen object, defaults from the AgentGuard loader (spec section 8).

The order in which they are enforced is documented in docs/trace-format.md, step 1 and step 2.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds enforced while a trace streams in, before the bytes they bound are decoded."""

    total_bytes: int = 16 * 1024 * 1024
    """Bytes in the whole trace, line terminators included."""
    line_bytes: int = 1024 * 1024
    """Bytes in one physical line, counting its terminator (``\\n`` or ``\\r\\n``)."""
    events: int = 10_000
    """Event records after the header; at most ``events + 1`` lines are read."""
    depth: int = 64
    """Nesting depth of one record; the record object itself is depth 0."""
    values: int = 100_000
    """JSON values in one record; every value, container or scalar, counts once."""
    string_chars: int = 4096
    """Characters in one string value."""
    diff_chars: int = 32_768
    """Characters in a string whose nearest key is ``unified_diff``."""
    list_items: int = 4096
    """Items in one list."""
    key_chars: int = 4096
    """Characters in one object key."""


DEFAULT_LIMITS = Limits()

#: Bounds for one OWASP harness trace: a single JSON document (docs/harness.md, "Bounds").
#: Harness traces carry whole tool results and documents, so strings may be far longer than an
#: AgentGuard record's; the document itself is capped at ``total_bytes`` before it is parsed.
HARNESS_LIMITS = Limits(
    total_bytes=16 * 1024 * 1024,
    line_bytes=16 * 1024 * 1024,
    events=100_000,
    depth=64,
    values=1_000_000,
    string_chars=1024 * 1024,
    diff_chars=1024 * 1024,
    list_items=100_000,
    key_chars=4096,
)

#: Bounds for one OWASP harness scenario YAML file, enforced on the YAML event stream before any
#: object is constructed: bytes, nesting depth, node count (``values``) and scalar length.
HARNESS_SCENARIO_LIMITS = Limits(
    total_bytes=1024 * 1024,
    line_bytes=1024 * 1024,
    events=0,
    depth=64,
    values=100_000,
    string_chars=256 * 1024,
    diff_chars=256 * 1024,
    list_items=10_000,
    key_chars=4096,
)
