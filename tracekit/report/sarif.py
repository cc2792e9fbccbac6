"""SARIF 2.1.0's small shared objects, for every SARIF renderer (report/findings.py for verify,
audit and replay; report/findings_sarif.py for check)."""

from __future__ import annotations

import msgspec


class Text(msgspec.Struct, frozen=True):
    """A SARIF message or description."""

    text: str


class ArtifactLocation(msgspec.Struct, frozen=True):
    uri: str


class Region(msgspec.Struct, frozen=True):
    startLine: int  # noqa: N815 - SARIF's key


def doc_uri(page: str, anchor: str = "") -> str:
    """The absolute URI of one of tracekit's documentation pages (SARIF asks for absolute
    ``informationUri`` and ``helpUri``)."""
    from tracekit import HOME_URI

    return f"{HOME_URI}docs/{page}" + (f"#{anchor}" if anchor else "")


def rule_text(code: str) -> str:
    """A code's fixed message as a rule's description: each ``{placeholder}`` becomes ``<placeholder>``,
    since a rule describes every result of its code, not one of them."""
    import re

    from tracekit.kernel.errors import CODE_INFO, Code

    if code not in Code._value2member_map_:
        return code
    return re.sub(r"\{(\w+)\}", r"<\1>", CODE_INFO[Code(code)].message)
