"""Fuzz targets for the OTel, AgentDojo, garak, Claude Code, Codex and ATIF importers
(docs/formats.md): each importer is forced onto any bytes, so the mutated real logs reach its
schema checks and not only detection.

Each target returns an outcome string; a :class:`FormatError` is an outcome (its code, which must
belong to the forced format and must not echo the canary), anything else escaping is a bug the
driver saves into corpus/regressions/. Registered into fuzz.targets.TARGETS on import (fuzz/run.py
imports this module). The ``format_`` prefix gives them the third-party and hostile seeds.
"""

from __future__ import annotations

import io

from fuzz.targets import CANARY, target

_LIMITS_KW = {"total_bytes": 4 * 1024 * 1024, "member_bytes": 1024 * 1024, "episodes": 64, "items_per_episode": 4096}


def _forced(data: bytes, name: str, suffix: str) -> str:
    from tracekit.formats import registry
    from tracekit.formats.base import FormatError, FormatLimits, Source

    try:
        evidence = registry.load(Source(io.BytesIO(data), len(data), suffix), name, FormatLimits(**_LIMITS_KW))
    except FormatError as error:
        code = error.finding.code.value
        if not code.startswith(f"{name}."):
            raise AssertionError("a forced importer reported another format's code") from None
        if CANARY in error.finding.message:
            raise AssertionError("a diagnostic echoed the input") from None
        return code
    return f"{evidence.format}:{len(evidence.episodes)}"


@target("format_otel")
def format_otel(data: bytes) -> str:
    """The OTel importer on any bytes (OTLP/JSON span and log lines)."""
    return _forced(data, "otel", ".jsonl")


@target("format_agentdojo")
def format_agentdojo(data: bytes) -> str:
    """The AgentDojo importer on any bytes (TraceLogger JSON)."""
    return _forced(data, "agentdojo", ".json")


@target("format_garak")
def format_garak(data: bytes) -> str:
    """The garak importer on any bytes (report and hit-log lines)."""
    return _forced(data, "garak", ".jsonl")


@target("format_claude_code")
def format_claude_code(data: bytes) -> str:
    """The Claude Code importer on any bytes (session transcript lines)."""
    return _forced(data, "claude_code", ".jsonl")


@target("format_codex")
def format_codex(data: bytes) -> str:
    """The Codex CLI importer on any bytes (rollout lines)."""
    return _forced(data, "codex", ".jsonl")


@target("format_atif")
def format_atif(data: bytes) -> str:
    """The ATIF importer on any bytes (one trajectory document)."""
    return _forced(data, "atif", ".json")
