"""SARIF 2.1.0 of a suite (``check --suite``) in upstream's shape (``--sarif-out``); one harness
trace's SARIF takes check's findings shape instead (tracekit/report/harness_findings.py).

Only ``fail`` (level ``error``) and ``error`` (level ``warning``) assertions become results;
``ruleId`` is ``agent-harness/<assertion id>``, as upstream, so code-scanning alerts line up
with upstream's; ``locations`` is empty; properties carry scenario id, assertion id, result and
evidence; the run carries ``{overall_result, counts}``. The driver is tracekit.

The log is a tree of Structs built from the typed results, encoded in declaration order (upstream
writes its keys unsorted, in this order). The Structs of tracekit's own run for ``check`` on
evidence (report/findings_render.py, keys sorted) live here too, so suite mode can put both runs
in one log.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import msgspec

from tracekit import __version__
from tracekit.judging.harness.evaluate import SuiteCounts, SuiteResult
from tracekit.judging.harness.model import AssertionResult, Outcome
from tracekit.report.sarif import ArtifactLocation, Text, doc_uri

SCHEMA = "https://schemastore.azurewebsites.net/schemas/json/sarif-2.1.0-rtm.5.json"
Level = Literal["error", "warning"]
_LEVEL: dict[str, Level] = {"fail": "error", "error": "warning"}


class RuleTags(msgspec.Struct, frozen=True):
    """Upstream's rule properties."""

    tags: tuple[str, ...] = ("security", "regression")


class Rule(msgspec.Struct, frozen=True):
    """One ``agent-harness/<assertion id>`` rule."""

    id: str
    name: str
    shortDescription: Text  # noqa: N815 - SARIF's key
    properties: RuleTags = RuleTags()


class ResultProperties(msgspec.Struct, frozen=True):
    """Which assertion of which scenario, and its evidence (null when there is none)."""

    scenario_id: str
    assertion_id: str
    result: Outcome
    evidence: str | None


class Result(msgspec.Struct, frozen=True):
    """One assertion that failed or errored."""

    ruleId: str  # noqa: N815 - SARIF's key
    level: Level
    message: Text
    properties: ResultProperties
    locations: tuple[()] = ()


class Driver(msgspec.Struct, frozen=True, kw_only=True):
    """tracekit as the SARIF tool, with the rules its results use."""

    name: str = "tracekit"
    version: str = __version__
    informationUri: str = doc_uri("findings.md")  # noqa: N815 - SARIF's key
    rules: tuple[Rule, ...]


class Tool(msgspec.Struct, frozen=True):
    driver: Driver


class SuiteRunProperties(msgspec.Struct, frozen=True):
    """A suite's run."""

    overall_result: Outcome
    counts: SuiteCounts


class Run(msgspec.Struct, frozen=True):
    """One SARIF run."""

    tool: Tool
    results: tuple[Result, ...]
    properties: SuiteRunProperties


class Log(msgspec.Struct, frozen=True, kw_only=True):
    """A SARIF 2.1.0 log; ``runs`` may also hold other Struct runs (check's findings run)."""

    schema: str = msgspec.field(default=SCHEMA, name="$schema")
    version: str = "2.1.0"
    runs: tuple[msgspec.Struct, ...]


# tracekit's own SARIF run for ``check`` on evidence (report/findings_render.py) ---------------

FINDINGS_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


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
    """A campaign's ``format:mode`` pairs."""


class FindingsRun(msgspec.Struct, frozen=True):
    """One SARIF run of tracekit check on evidence."""

    tool: FindingsTool
    properties: FindingsRunProperties
    results: tuple[FindingResult, ...]


def dumps_log(log: Log, sort_keys: bool = False) -> str:
    """The log as JSON text (two-space indent, ASCII escapes), in the Structs' declaration order
    (upstream's key order) unless ``sort_keys``."""
    data: dict[str, Any] = msgspec.to_builtins(log)
    return json.dumps(data, indent=2, sort_keys=sort_keys) + "\n"


def _results(scenario_id: str, assertions: tuple[AssertionResult, ...], rules: dict[str, Rule]) -> list[Result]:
    found: list[Result] = []
    for assertion in assertions:
        level = _LEVEL.get(assertion.result)
        if level is None:
            continue
        rule_id = f"agent-harness/{assertion.id}"
        rules.setdefault(rule_id, Rule(rule_id, assertion.id, Text(f"Security assertion: {assertion.id}")))
        text = f"Scenario '{scenario_id}' assertion '{assertion.id}' {assertion.result}"
        if assertion.evidence:
            text += f": {assertion.evidence}"
        properties = ResultProperties(scenario_id, assertion.id, assertion.result, assertion.evidence)
        found.append(Result(rule_id, level, Text(text), properties))
    return found


def suite_run(suite: SuiteResult) -> Run:
    """A suite as one run; a scenario that could not be evaluated is an ``error`` result under
    ``agent-harness/<error_reason>``."""
    rules: dict[str, Rule] = {}
    results: list[Result] = []
    for entry in suite.scenarios:
        if entry.assertions is not None and entry.scenario_id is not None:
            results += _results(entry.scenario_id, entry.assertions, rules)
            continue
        name = entry.scenario_id if entry.scenario_id is not None else entry.scenario_path
        failed = AssertionResult(str(entry.error_reason), "error", entry.evidence)
        results += _results(name, (failed,), rules)
    properties = SuiteRunProperties(suite.result, suite.counts)
    return Run(Tool(Driver(rules=tuple(rules.values()))), tuple(results), properties)


def render_suite(suite: SuiteResult) -> str:
    """A suite as a SARIF log with one run."""
    return dumps_log(Log(runs=(suite_run(suite),)))
