"""The SARIF 2.1.0 log of ``tracekit check`` (docs/findings.md, "Command line"; docs/harness.md,
"Results and output formats"): one file's episodes, a campaign or a suite, each one run whatever
the trace's format (report/findings_render.py and report/harness_findings.py fill it). Results
are located at the file, the episode named as a logical location; one rule per assertion id or
code. The log is a tree of Structs, encoded with its keys sorted."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

import msgspec

from tracekit.report.sarif import ArtifactLocation, Text, doc_uri, rule_text
from tracekit.report.text import display_path

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


class PhysicalLocation(msgspec.Struct, frozen=True):
    artifactLocation: ArtifactLocation  # noqa: N815 - SARIF's key


class LogicalLocation(msgspec.Struct, frozen=True):
    name: str
    kind: Literal["episode"] = "episode"


class Location(msgspec.Struct, frozen=True):
    """The file, and the episode in it."""

    physicalLocation: PhysicalLocation  # noqa: N815 - SARIF's key
    logicalLocations: tuple[LogicalLocation, ...]  # noqa: N815 - SARIF's key


class FindingResult(msgspec.Struct, frozen=True):
    """One SARIF result of ``check`` on evidence."""

    ruleId: str  # noqa: N815 - SARIF's key
    level: Literal["error", "warning", "note"]
    message: Text
    locations: tuple[Location, ...]


class FindingRule(msgspec.Struct, frozen=True):
    id: str
    shortDescription: Text  # noqa: N815 - SARIF's key


class FindingsDriver(msgspec.Struct, frozen=True, kw_only=True):
    name: str = "tracekit"
    version: str
    informationUri: str = doc_uri("findings.md")  # noqa: N815 - SARIF's key
    rules: tuple[FindingRule, ...]


class FindingsTool(msgspec.Struct, frozen=True):
    driver: FindingsDriver


MISMATCH = "audit.outcome_mismatch"
"""The one code every command that judges a scenario reports a disagreement with (docs/cli.md,
"Verdicts and modes"); a SARIF rule of ``check`` on evidence."""


class FindingsRunProperties(msgspec.Struct, frozen=True, omit_defaults=True):
    command: Literal["check"]
    scenario: str | None = None
    """The scenario id (shown), for one file's run."""
    mode: Literal["compatible", "strict"] | None = None
    """The mode one file's episodes were judged in (docs/cli.md, "Verdicts and modes")."""
    modes: tuple[str, ...] | None = None
    """A campaign's or suite's ``format:mode`` pairs."""


class FindingsRun(msgspec.Struct, frozen=True):
    """One SARIF run of tracekit check."""

    tool: FindingsTool
    properties: FindingsRunProperties
    results: tuple[FindingResult, ...]


class Log(msgspec.Struct, frozen=True, kw_only=True):
    """A SARIF 2.1.0 log."""

    schema: str = msgspec.field(default=SCHEMA, name="$schema")
    version: str = "2.1.0"
    runs: tuple[FindingsRun, ...]


def dumps_log(log: Log) -> str:
    """The log as JSON text (two-space indent, ASCII escapes, keys sorted)."""
    data: dict[str, Any] = msgspec.to_builtins(log)
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def location(path: str, episode: str | None = None) -> Location:
    """The file ``path`` (escaped like a path) and, when given, the episode in it (already shown:
    escaped and bounded by the caller)."""
    episodes = (LogicalLocation(episode),) if episode is not None else ()
    return Location(PhysicalLocation(ArtifactLocation(display_path(path))), episodes)


def findings_run(
    rules: Sequence[str], results: Sequence[FindingResult], properties: FindingsRunProperties
) -> FindingsRun:
    """One SARIF 2.1.0 run of tracekit check: one rule per assertion id (or consistency code)."""
    from tracekit import __version__

    described = tuple(
        FindingRule(r, Text(rule_text(r) if "." in r else f"tracekit check: {r}")) for r in rules
    )
    return FindingsRun(
        FindingsTool(FindingsDriver(version=__version__, rules=described)),
        properties,
        tuple(results),
    )


def sarif_text(run: FindingsRun) -> str:
    return dumps_log(Log(runs=(run,)))


