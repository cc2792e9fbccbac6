"""Payload digests: one demonstration is one digest, however many times it was recorded.

Digests are sha256 over RFC 8785 canonical JSON (tracekit.canonical.jcs_bytes) of a payload with
its volatile keys removed (ids, timestamps, latencies, order and retry counters), so two records
that differ only in when or how often they happened have the same digest. Values outside RFC
8785's domain (integers beyond 2**53) fall back to AgentGuard's canonical JSON, which is equally
deterministic.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from tracekit.audit.harness_view import (
    ID_KEYS,
    LATENCY_KEYS,
    ORDER_KEYS,
    RETRY_KEYS,
    START_KEYS,
)
from tracekit.canonical import agentguard_bytes, jcs_bytes

VOLATILE_KEYS = frozenset(
    {
        *ID_KEYS,
        *START_KEYS,
        *LATENCY_KEYS,
        *ORDER_KEYS,
        *RETRY_KEYS,
        "created_at",
        "ended_at",
        "duration_seconds",
        "time",
        "attempt_id",
        "run_id",
        "trace_id",
    }
)
"""Keys that say when, in what order or how often something happened, not what happened."""


def strip_volatile(value: Any, depth: int = 0) -> Any:
    """``value`` with :data:`VOLATILE_KEYS` removed from every object (to a bounded depth)."""
    if depth > 64:
        return value
    if isinstance(value, Mapping):
        return {k: strip_volatile(v, depth + 1) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [strip_volatile(v, depth + 1) for v in value]
    return value


def payload_digest(value: Any) -> str:
    """sha256 hex of ``value``'s canonical JSON (volatile keys removed)."""
    stable = strip_volatile(value)
    try:
        data = jcs_bytes(stable)
    except ValueError:
        data = agentguard_bytes(stable)
    return hashlib.sha256(data).hexdigest()


def distinct(digests: Iterable[str]) -> int:
    """How many different demonstrations a list of digests stands for."""
    return len(set(digests))
