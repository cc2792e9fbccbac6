"""Evaluating scenarios: one pair, a dry run, and a suite (docs/harness.md, "Suite mode").

Pure: scenarios and traces come in as bytes (or as the finding that says why they could not be
read) and results come out. The suite reads traces through a callable the CLI passes in, so the
pairing rules live here and are tested without files.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import PurePath
from typing import Literal

import msgspec

from tracekit.formats.harness.trace import Trace, parse_trace
from tracekit.judging.harness.assertions import evaluate_one
from tracekit.judging.harness.model import (
    DRY_RUN_EVIDENCE,
    ERROR,
    FAIL,
    NOT_RUN,
    PASS,
    AssertionResult,
    HarnessResult,
    Outcome,
    Semantics,
    aggregate,
    semantics,
)
from tracekit.judging.harness.scenario import Scenario, parse_scenario
from tracekit.kernel.errors import CODE_INFO, Code, Finding, TracekitError, finding


def evaluate(scenario: Scenario, trace: Trace, strict: bool = False) -> HarnessResult:
    """Every assertion of ``scenario`` against ``trace``, in file order, then the aggregate."""
    results = tuple(evaluate_one(scenario, trace, config, strict) for config in scenario.assertions)
    return HarnessResult(scenario.id, "trace", aggregate(r.result for r in results), results, semantics(strict))


def dry_run(scenario: Scenario, strict: bool = False) -> HarnessResult:
    """Upstream's ``--dry-run``: every assertion ``not_run`` with fixed evidence."""
    results = tuple(
        AssertionResult(str(config["type"]), NOT_RUN, DRY_RUN_EVIDENCE) for config in scenario.assertions
    )
    return HarnessResult(scenario.id, "dry_run", aggregate(r.result for r in results), results, semantics(strict))


ErrorReason = Literal["missing_trace", "invalid_scenario", "invalid_trace", "duplicate_scenario_id"]
ERROR_REASONS: tuple[ErrorReason, ...] = ("missing_trace", "invalid_scenario", "invalid_trace", "duplicate_scenario_id")
INVALID_INPUT: tuple[ErrorReason, ...] = ("invalid_scenario", "invalid_trace")
"""Error reasons that mean unreadable or invalid input (exit 2)."""


class EntryDetail(msgspec.Struct, frozen=True, omit_defaults=True):
    """``detail`` of a suite entry: ``{code}`` for an entry that could not be evaluated, or
    ``{assertions}`` for an evaluated one (one Struct, so a spooled entry decodes typed)."""

    code: str | None = None
    """A stable :class:`~tracekit.kernel.errors.Code` value: why the entry could not be evaluated."""
    assertions: tuple[AssertionResult, ...] | None = None
    """One per assertion, in file order, as upstream reports them."""


class SuiteEntry(msgspec.Struct, frozen=True, omit_defaults=True):
    """One scenario of a suite, as upstream's ``suite_result.schema.json`` entry: evaluated, or
    an ``error`` with upstream's ``error_reason``. For an error, ``evidence`` is the fixed text
    of the tracekit finding and ``detail`` names its code. Fields left None are left out."""

    scenario_path: str
    """The scenario file as the user's suite path spells it."""
    result: Outcome
    """The scenario's aggregate result; ``error`` when it could not be evaluated."""
    scenario_id: str | None = None
    """The scenario's id, once the scenario was read."""
    category: str | None = None
    """The scenario's category, once the scenario was read."""
    severity: str | None = None
    """The scenario's severity, once the scenario was read."""
    trace_path: str | None = None
    """``<trace-dir>/<id>.json``, once paired."""
    error_reason: ErrorReason | None = None
    """Why the scenario could not be evaluated."""
    evidence: str | None = None
    """The fixed text of the finding behind ``error_reason``."""
    detail: EntryDetail | None = None
    """The finding's code, or the assertions' results."""

    @property
    def assertions(self) -> tuple[AssertionResult, ...] | None:
        """The assertions' results of an evaluated entry, else None."""
        return self.detail.assertions if self.detail is not None and self.scenario_id is not None else None

    @property
    def problem(self) -> Finding | None:
        """The finding behind an error (its code and fixed text), or None."""
        if self.detail is None or self.detail.code is None or self.evidence is None:
            return None
        code = Code(self.detail.code)
        return Finding(code, CODE_INFO[code].severity, self.evidence)

    def outcome(self, strict: bool) -> HarnessResult | None:
        """The scenario's own result document (``--output-dir``'s ``<id>.json``), when evaluated."""
        if self.assertions is None or self.scenario_id is None:
            return None
        return HarnessResult(self.scenario_id, "trace", self.result, self.assertions, semantics(strict))


def _failed(path: str, reason: ErrorReason, problem: Finding, scenario: Scenario | None = None,
            trace_path: str | None = None) -> SuiteEntry:
    detail = EntryDetail(code=problem.code.value)
    if scenario is None:
        return SuiteEntry(path, ERROR, error_reason=reason, evidence=problem.message, detail=detail)
    return SuiteEntry(
        path, ERROR, scenario.id, scenario.category, scenario.severity, trace_path, reason, problem.message, detail
    )


class SuiteCounts(msgspec.Struct, frozen=True):
    """``{total, pass, fail, error, not_run}``: scenarios by result."""

    total: int = 0
    passed: int = msgspec.field(default=0, name="pass")
    fail: int = 0
    error: int = 0
    not_run: int = 0

    def add(self, result: Outcome) -> SuiteCounts:
        """These counts with one more scenario whose result is ``result``."""
        return SuiteCounts(
            self.total + 1, self.passed + (result == PASS), self.fail + (result == FAIL),
            self.error + (result == ERROR), self.not_run + (result == NOT_RUN),
        )

    @property
    def result(self) -> Outcome:
        """The suite's aggregate, by the same rule as one scenario's (:func:`aggregate`)."""
        if self.fail:
            return FAIL
        if self.error:
            return ERROR
        if self.total and self.passed == self.total:
            return PASS
        return NOT_RUN


class SuiteResult(msgspec.Struct, frozen=True, omit_defaults=True):
    """Upstream's suite result, ``{result, counts, scenarios}``: all entries in scenario-path
    order, with ``semantics: "strict"`` under strict semantics."""

    result: Outcome
    """The suite's aggregate."""
    counts: SuiteCounts
    """Scenarios by result."""
    scenarios: tuple[SuiteEntry, ...]
    """One entry per scenario file."""
    semantics: Semantics | None = None
    """``strict``, or None (left out) in compatible mode."""

    @classmethod
    def of(cls, entries: Iterable[SuiteEntry], strict: bool = False) -> SuiteResult:
        """The suite of ``entries``, with its aggregate and counts."""
        kept = tuple(entries)
        counts = SuiteCounts()
        for entry in kept:
            counts = counts.add(entry.result)
        return cls(counts.result, counts, kept, semantics(strict))

    @property
    def strict(self) -> bool:
        """True under strict semantics."""
        return self.semantics is not None

    @property
    def invalid_input(self) -> bool:
        """True when a scenario or trace could not be read or was invalid (exit 2)."""
        return any(e.error_reason in INVALID_INPUT for e in self.scenarios)


ScenarioInput = tuple[str, bytes | Finding]
TraceReader = Callable[[str], bytes | Finding | None]


class SuitePair(msgspec.Struct, frozen=True):
    """A scenario paired with its trace's path, to evaluate (anywhere: plain data)."""

    scenario_path: str
    scenario: bytes
    """The scenario's bytes, already known to parse."""
    trace_path: str
    """``<trace-dir>/<id>.json`` as reported."""


def trace_path_for(trace_dir: str, scenario_id: str) -> str:
    """``<trace_dir>/<scenario id>.json``: ids are restricted to ``[A-Za-z0-9._-]`` by
    validation, so the name never leaves the folder."""
    return str(PurePath(trace_dir) / f"{scenario_id}.json")


def plan_suite(scenarios: Iterable[ScenarioInput], trace_dir: str) -> Iterator[SuiteEntry | SuitePair]:
    """Each scenario, in order: the entry when it cannot be evaluated, else the pair to evaluate.

    A scenario that cannot be loaded is ``invalid_scenario``; a second scenario with an id
    already seen is ``duplicate_scenario_id`` (its trace is not read). Memory: the ids seen.
    """
    seen: set[str] = set()
    for path, data in scenarios:
        if isinstance(data, Finding):
            yield _failed(path, "invalid_scenario", data)
            continue
        try:
            scenario = parse_scenario(data)
        except TracekitError as error:
            yield _failed(path, "invalid_scenario", error.finding)
            continue
        if scenario.id in seen:
            yield _failed(path, "duplicate_scenario_id", finding(Code.HARNESS_DUPLICATE_SCENARIO_ID), scenario)
            continue
        seen.add(scenario.id)
        yield SuitePair(path, data, trace_path_for(trace_dir, scenario.id))


def evaluate_pair(pair: SuitePair, data: bytes | Finding | None, strict: bool) -> SuiteEntry:
    """One paired scenario's entry: ``data`` is the trace's bytes, the finding that says why
    they could not be read, or None when no trace is there (``missing_trace``); an
    unreadable or invalid trace is ``invalid_trace``."""
    return judge_pair(pair, data, strict)[0]


def judge_pair(pair: SuitePair, data: bytes | Finding | None, strict: bool) -> tuple[SuiteEntry, Trace | None]:
    """:func:`evaluate_pair`'s entry and the trace it judged (None when it judged none), so a
    caller can compare the trace's recorded outcome without parsing it again."""
    scenario = parse_scenario(pair.scenario)
    path, trace_path = pair.scenario_path, pair.trace_path
    if data is None:
        return _failed(path, "missing_trace", finding(Code.HARNESS_TRACE_MISSING), scenario, trace_path), None
    if isinstance(data, Finding):
        return _failed(path, "invalid_trace", data, scenario, trace_path), None
    try:
        trace = parse_trace(data)
    except TracekitError as error:
        return _failed(path, "invalid_trace", error.finding, scenario, trace_path), None
    outcome = evaluate(scenario, trace, strict)
    entry = SuiteEntry(
        path, outcome.result, scenario.id, scenario.category, scenario.severity, trace_path,
        detail=EntryDetail(assertions=outcome.assertions),
    )
    return entry, trace


def run_suite(
    scenarios: Iterable[ScenarioInput], trace_dir: str, read: TraceReader, strict: bool = False
) -> SuiteResult:
    """Pair each scenario with ``<trace_dir>/<id>.json`` and evaluate it, here and in order
    (:func:`plan_suite`, :func:`evaluate_pair`). ``read`` returns the bytes, a finding when the
    file exists but cannot be read, or None when it is missing."""
    entries = (
        step if isinstance(step, SuiteEntry) else evaluate_pair(step, read(step.trace_path), strict)
        for step in plan_suite(scenarios, trace_dir)
    )
    return SuiteResult.of(entries, strict)
