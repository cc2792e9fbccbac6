"""Canonical JSON profiles, each with its documented domain.

* **agentguard** (docs/trace-format.md step 3): Python's
  ``json.dumps(v, ensure_ascii=True, sort_keys=True, separators=(",", ":"))``. Its domain is the
  values Python's ``json`` parses, minus NaN/Infinity (tracekit rejects them while parsing).
  Every character outside printable ASCII is escaped, ``\\u007f`` included; floats use Python's
  repr (``1e-05``, ``1e+16``, ``-0.0``); keys sort by code point.
* **jcs** (RFC 8785) via the ``rfc8785`` package, for digests tracekit itself defines (payload
  digests in audit reports). Domain: I-JSON (integers within +/-(2**53-1), no lone surrogates).
"""

from __future__ import annotations

import json
from typing import Any

_AGENTGUARD = json.JSONEncoder(
    ensure_ascii=True, sort_keys=True, separators=(",", ":"), allow_nan=False
)


def agentguard_bytes(value: Any) -> bytes:
    """Return ``value`` in AgentGuard's canonical JSON, as ASCII bytes.

    Raises ValueError for NaN or Infinity (which tracekit never lets into a value).
    """
    return _AGENTGUARD.encode(value).encode("ascii")


def jcs_bytes(value: Any) -> bytes:
    """Return ``value`` in RFC 8785 canonical form; raises ``rfc8785.CanonicalizationError``.

    rfc8785 is imported here, not at module level: verify never needs it, and every command
    imports this module (docs/performance.md, "Rules that keep it fast").
    """
    import rfc8785

    return rfc8785.dumps(value)
