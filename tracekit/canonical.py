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
import re
from typing import Any

import rfc8785

_AGENTGUARD = json.JSONEncoder(
    ensure_ascii=True, sort_keys=True, separators=(",", ":"), allow_nan=False
)

# A JSON number token with a fraction or an exponent, as it can only appear in canonical
# (whitespace-free) text: after ':', ',' or '[' and before ',', ']' or '}'. Tokens inside strings
# can match too; that only sends a record down the exact path.
_FLOAT_TOKEN = re.compile(rb"[:,\[](-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)(?=[,\]}])")


def agentguard_bytes(value: Any) -> bytes:
    """Return ``value`` in AgentGuard's canonical JSON, as ASCII bytes.

    Raises ValueError for NaN or Infinity (which tracekit never lets into a value).
    """
    return _AGENTGUARD.encode(value).encode("ascii")


def jcs_bytes(value: Any) -> bytes:
    """Return ``value`` in RFC 8785 canonical form; raises ``rfc8785.CanonicalizationError``."""
    return rfc8785.dumps(value)


def floats_spelled_canonically(raw: bytes) -> bool:
    """True when every float-looking token in ``raw`` is spelled as Python's repr spells it.

    The fast path (step 3) relies on msgspec's encoder reproducing a line byte for byte; msgspec
    and Python agree on digits but not always on layout (``1e-06`` vs ``1e-6``, ``1e-05`` vs
    ``0.00001``, ``1e+16`` vs ``1e16``). Requiring Python's spelling of every token closes that gap.
    """
    for match in _FLOAT_TOKEN.finditer(raw):
        token = match.group(1)
        if b"." in token or b"e" in token or b"E" in token:
            if repr(float(token)).encode("ascii") != token:
                return False
    return True
