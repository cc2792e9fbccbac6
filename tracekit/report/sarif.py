"""SARIF 2.1.0's small shared objects, for every SARIF renderer (report/findings.py for verify,
audit and replay; report/harness_sarif.py for check)."""

from __future__ import annotations

import msgspec


class Text(msgspec.Struct, frozen=True):
    """A SARIF message or description."""

    text: str


class ArtifactLocation(msgspec.Struct, frozen=True):
    uri: str


class Region(msgspec.Struct, frozen=True):
    startLine: int  # noqa: N815 - SARIF's key
