"""tracekit: an independent verifier and forensic workbench for AI-agent execution traces.

The public API is deliberately small; replay, metamorphic, audit and the benchmark build on it.
"""

from __future__ import annotations

__version__ = "0.1.0"

from tracekit.errors import Code, Finding, Severity, TracekitError
from tracekit.limits import DEFAULT_LIMITS, Limits
from tracekit.verify import VerifyOptions, VerifyReport, verify_bytes, verify_file, verify_stream

__all__ = [
    "DEFAULT_LIMITS",
    "Code",
    "Finding",
    "Limits",
    "Severity",
    "TracekitError",
    "VerifyOptions",
    "VerifyReport",
    "__version__",
    "verify_bytes",
    "verify_file",
    "verify_stream",
]
