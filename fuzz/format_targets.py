"""Fuzz targets for the format layer (docs/formats.md): detection and the bounded importers.

Each target takes bytes and returns an outcome string; a :class:`FormatError` is an outcome
(its code), anything else escaping is a bug the driver saves into corpus/regressions/.
Registered into fuzz.targets.TARGETS on import (fuzz/run.py imports this module).
"""

from __future__ import annotations

import io

from fuzz.targets import CANARY, target

_LIMITS_KW = {
    "total_bytes": 4 * 1024 * 1024,
    "member_bytes": 1024 * 1024,
    "total_decompressed": 4 * 1024 * 1024,
    "members": 64,
    "episodes": 64,
    "items_per_episode": 4096,
}


def _load(data: bytes, suffix: str, input_format: str | None) -> str:
    from tracekit.formats import registry
    from tracekit.formats.base import FormatError, FormatLimits, Source

    try:
        evidence = registry.load(
            Source(io.BytesIO(data), len(data), suffix), input_format, FormatLimits(**_LIMITS_KW)
        )
    except FormatError as error:
        if error.finding.code.value != "format.unknown" and CANARY in error.finding.message:
            raise AssertionError("a diagnostic echoed the input") from None
        return error.finding.code.value
    return f"{evidence.format}:{len(evidence.episodes)}"


@target("format_detect")
def format_detect(data: bytes) -> str:
    """At most one format accepts any prefix."""
    from tracekit.formats import registry

    accepted = registry.accepting(data, ".json") + registry.accepting(data, ".eval")
    if len(set(accepted)) > 1:
        raise AssertionError("two formats accepted one file")
    return accepted[0] if accepted else "none"


@target("format_load")
def format_load(data: bytes) -> str:
    """Detection then the detected importer, as the CLI will run it."""
    return _load(data, ".json", None)


@target("format_inspect")
def format_inspect(data: bytes) -> str:
    """The Inspect importer forced onto any bytes (.eval archives and .json logs)."""
    return _load(data, ".eval", "inspect")
