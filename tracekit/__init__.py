"""tracekit: an independent verifier and forensic workbench for AI-agent execution traces.

The public API is deliberately small; replay, metamorphic, audit and the benchmark build on it.
Names are imported on first use (PEP 562) so that ``tracekit --help`` stays fast.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
REPORT_VERSION = 1
HOME_URI = "https://tracekit.dev/"
"""The project's home; SARIF's ``informationUri`` and every rule's ``helpUri`` are absolute
URIs under it (docs/cli.md, "SARIF")."""
"""The one version of every JSON report tracekit prints (docs/cli.md, "Conventions")."""

_EXPORTS = {
    "Code": "tracekit.errors",
    "Finding": "tracekit.errors",
    "Severity": "tracekit.errors",
    "TracekitError": "tracekit.errors",
    "DEFAULT_LIMITS": "tracekit.limits",
    "Limits": "tracekit.limits",
    "VerifyOptions": "tracekit.verify",
    "VerifyReport": "tracekit.verify",
    "verify_bytes": "tracekit.verify",
    "verify_file": "tracekit.verify",
    "verify_stream": "tracekit.verify",
}

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

if TYPE_CHECKING:
    from tracekit.errors import Code, Finding, Severity, TracekitError
    from tracekit.limits import DEFAULT_LIMITS, Limits
    from tracekit.verify import (
        VerifyOptions,
        VerifyReport,
        verify_bytes,
        verify_file,
        verify_stream,
    )


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tracekit' has no attribute {name!r}")
    return getattr(import_module(module), name)
