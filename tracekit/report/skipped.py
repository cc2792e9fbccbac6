"""A file of a campaign that was not judged, and why: one small Struct shared by the verify,
audit, check and bundle reports. It lives alone so that ``tracekit verify`` does not import the
findings renderers (and the harness behind them) to name a skipped file (docs/performance.md,
"Start-up")."""

from __future__ import annotations

import msgspec


class SkippedFile(msgspec.Struct, frozen=True, omit_defaults=True):
    """A file of a campaign that was not judged, and why (a stable code)."""

    trace: str
    code: str
    error: bool = False
    """True for a file that could not be read (exit 2), not a walked non-trace file: JUnit
    shows it as an ``<error>`` testcase, SARIF as an error result (docs/cli.md, "Inputs and
    folders")."""
