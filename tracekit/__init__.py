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
    "Code": "tracekit.kernel.errors",
    "Finding": "tracekit.kernel.errors",
    "Severity": "tracekit.kernel.errors",
    "TracekitError": "tracekit.kernel.errors",
    "DEFAULT_LIMITS": "tracekit.kernel.limits",
    "Limits": "tracekit.kernel.limits",
    "VerifyOptions": "tracekit.formats.agentguard.verify",
    "VerifyReport": "tracekit.formats.agentguard.verify",
    "verify_bytes": "tracekit.formats.agentguard.verify",
    "verify_file": "tracekit.formats.agentguard.verify",
    "verify_stream": "tracekit.formats.agentguard.verify",
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
    from tracekit.formats.agentguard.verify import (
        VerifyOptions,
        VerifyReport,
        verify_bytes,
        verify_file,
        verify_stream,
    )
    from tracekit.kernel.errors import Code, Finding, Severity, TracekitError
    from tracekit.kernel.limits import DEFAULT_LIMITS, Limits


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tracekit' has no attribute {name!r}")
    return getattr(import_module(module), name)
