"""Evaluating scenarios: one pair, a dry run, and a suite (docs/harness.md, "Suite mode").

Pure: scenarios and traces come in as bytes (or as the finding that says why they could not be
read) and results come out. The suite reads traces through a callable the CLI passes in, so the
pairing rules live here and are tested without files.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from tracekit.errors import Code, Finding, TracekitError, finding
from tracekit.harness.assertions import evaluate_one
from tracekit.harness.model import (
    DRY_RUN_EVIDENCE,
    ERROR,
    NOT_RUN,
    OUTCOMES,
    AssertionResult,
    HarnessResult,
    Outcome,
    aggregate,
)
from tracekit.harness.scenario import Scenario, parse_scenario
from tracekit.harness.trace import Trace, parse_trace


def evaluate(scenario: Scenario, trace: Trace, strict: bool = False) -> HarnessResult:
    """Every assertion of ``scenario`` against ``trace``, in file order, then the aggregate."""
    results = tuple(evaluate_one(scenario, trace, config, strict) for config in scenario.assertions)
    return HarnessResult(scenario.id, "trace", aggregate(r.result for r in results), results, strict)


def dry_run(scenario: Scenario, strict: bool = False) -> HarnessResult:
    """Upstream's ``--dry-run``: every assertion ``not_run`` with fixed evidence."""
    results = tuple(
        AssertionResult(str(config["type"]), NOT_RUN, DRY_RUN_EVIDENCE) for config in scenario.assertions
    )
    return HarnessResult(scenario.id, "dry_run", aggregate(r.result for r in results), results, strict)


ERROR_REASONS = ("missing_trace", "invalid_scenario", "invalid_trace", "duplicate_scenario_id")


@dataclass(frozen=True, slots=True)
class SuiteEntry:
    """One scenario of a suite: evaluated, or an ``error`` with upstream's ``error_reason``."""

    scenario_path: str
    result: Outcome
    scenario: Scenario | None = None
    trace_path: str | None = None
    error_reason: str | None = None
    finding: Finding | None = None
    outcome: HarnessResult | None = None

    def as_dict(self) -> dict[str, Any]:
        """Upstream's ``suite_result.schema.json`` entry. ``evidence`` for an error is the
        fixed text of the tracekit finding, and ``detail`` names its code."""
        data: dict[str, Any] = {"scenario_path": self.scenario_path, "result": self.result}
        if self.scenario is not None:
            data.update(
                scenario_id=self.scenario.id,
                category=self.scenario.category,
                severity=self.scenario.severity,
            )
        if self.trace_path is not None:
            data["trace_path"] = self.trace_path
        if self.error_reason is not None:
            data["error_reason"] = self.error_reason
        if self.finding is not None:
            data["evidence"] = self.finding.message
            data["detail"] = {"code": self.finding.code.value}
        if self.outcome is not None:
            data["detail"] = {"assertions": [a.as_dict() for a in self.outcome.assertions]}
        return data


@dataclass(frozen=True, slots=True)
class SuiteResult:
    """All entries, in scenario-path order, with upstream's aggregate and counts."""

    entries: tuple[SuiteEntry, ...]
    strict: bool = False

    @property
    def result(self) -> Outcome:
        """The suite's aggregate, by the same rule as one scenario's."""
        return aggregate(entry.result for entry in self.entries)

    @property
    def counts(self) -> dict[str, int]:
        """``{total, pass, fail, error, not_run}``."""
        tally = Counter(entry.result for entry in self.entries)
        return {"total": len(self.entries), **{outcome: tally[outcome] for outcome in OUTCOMES}}

    @property
    def invalid_input(self) -> bool:
        """True when a scenario or trace could not be read or was invalid (exit 2)."""
        return any(e.error_reason in ("invalid_scenario", "invalid_trace") for e in self.entries)

    def as_dict(self) -> dict[str, Any]:
        """Upstream's suite result: ``{result, counts, scenarios}``."""
        data: dict[str, Any] = {
            "result": self.result,
            "counts": self.counts,
            "scenarios": [entry.as_dict() for entry in self.entries],
        }
        if self.strict:
            data["semantics"] = "strict"
        return data


ScenarioInput = tuple[str, bytes | Finding]
TraceReader = Callable[[str], bytes | Finding | None]


def trace_path_for(trace_dir: str, scenario_id: str) -> str:
    """``<trace_dir>/<scenario id>.json``: ids are restricted to ``[A-Za-z0-9._-]`` by
    validation, so the name never leaves the folder."""
    return str(PurePath(trace_dir) / f"{scenario_id}.json")


def _pair(path: str, scenario: Scenario, trace_dir: str, read: TraceReader, strict: bool) -> SuiteEntry:
    trace_path = trace_path_for(trace_dir, scenario.id)
    data = read(trace_path)
    if data is None:
        return SuiteEntry(path, ERROR, scenario, trace_path, "missing_trace", finding(Code.HARNESS_TRACE_MISSING))
    if isinstance(data, Finding):
        return SuiteEntry(path, ERROR, scenario, trace_path, "invalid_trace", data)
    try:
        trace = parse_trace(data)
    except TracekitError as error:
        return SuiteEntry(path, ERROR, scenario, trace_path, "invalid_trace", error.finding)
    outcome = evaluate(scenario, trace, strict)
    return SuiteEntry(path, outcome.result, scenario, trace_path, outcome=outcome)


def run_suite(
    scenarios: Iterable[ScenarioInput], trace_dir: str, read: TraceReader, strict: bool = False
) -> SuiteResult:
    """Pair each scenario with ``<trace_dir>/<id>.json`` and evaluate it.

    A scenario that cannot be loaded is ``invalid_scenario``; a second scenario with an id
    already seen is ``duplicate_scenario_id`` (its trace is not read); a missing trace is
    ``missing_trace``, an unreadable or invalid one ``invalid_trace``. ``read`` returns the
    bytes, a finding when the file exists but cannot be read, or None when it is missing.
    """
    entries: list[SuiteEntry] = []
    seen: set[str] = set()
    for path, data in scenarios:
        if isinstance(data, Finding):
            entries.append(SuiteEntry(path, ERROR, error_reason="invalid_scenario", finding=data))
            continue
        try:
            scenario = parse_scenario(data)
        except TracekitError as error:
            entries.append(SuiteEntry(path, ERROR, error_reason="invalid_scenario", finding=error.finding))
            continue
        if scenario.id in seen:
            dup = finding(Code.HARNESS_DUPLICATE_SCENARIO_ID)
            entries.append(SuiteEntry(path, ERROR, scenario, error_reason="duplicate_scenario_id", finding=dup))
            continue
        seen.add(scenario.id)
        entries.append(_pair(path, scenario, trace_dir, read, strict))
    return SuiteResult(tuple(entries), strict)
