"""The values replay compares: one check's outcome and a run's verdict, recorded or recomputed.

Frozen msgspec Structs whose fields, in order, are the JSON form ``tracekit replay --format
json`` prints (docs/replay.md "JSON output"); the JSON is derived with msgspec, never written by
hand.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from tracekit.formats.agentguard.records import EventRecord
from tracekit.formats.agentguard.schema import agentguard as ag
from tracekit.judging.replay.checks import resolve_name
from tracekit.judging.replay.grouping import EventGroups, grouped


class CheckOutcome(msgspec.Struct, frozen=True):
    """One check's result. ``id`` is None for a recorded name that denotes no registered check."""

    id: str | None
    name: str
    passed: bool
    severity: str
    score_contribution: int
    message: str
    evidence: tuple[str, ...]


class Verdict(msgspec.Struct, frozen=True):
    """A run's verdict: result, score, the failed and warning check names, and the checks."""

    result: str
    score: int | float
    failed_checks: tuple[str, ...]
    warning_checks: tuple[str, ...]
    checks: tuple[CheckOutcome, ...]


def recorded_verdict(events: Sequence[EventRecord] | EventGroups) -> Verdict | None:
    """The verdict the trace records: its check_result events and its completion summary.

    Returns None when the trace has no completion event (verify guarantees exactly one).
    """
    groups = grouped(events)
    checks = tuple(
        CheckOutcome(
            id=resolve_name(e.payload.name),
            name=e.payload.name,
            passed=e.payload.passed,
            severity=e.payload.severity,
            score_contribution=e.payload.score_contribution,
            message=e.payload.message,
            evidence=tuple(e.payload.evidence),
        )
        for e in groups.of("check_result")
        if isinstance(e.payload, ag.CheckResult)
    )
    completed = next(
        (
            e.payload
            for e in groups.of("execution_completed")
            if isinstance(e.payload, ag.ExecutionCompleted)
        ),
        None,
    )
    if completed is None:
        return None
    return Verdict(
        result=completed.result,
        score=completed.score,
        failed_checks=tuple(completed.failed_checks),
        warning_checks=tuple(completed.warning_checks),
        checks=checks,
    )
