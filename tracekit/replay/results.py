"""The values replay compares: one check's outcome and a run's verdict, recorded or recomputed.

Plain frozen dataclasses with a ``to_dict`` each; the JSON form is the one ``tracekit replay
--format json`` prints (docs/replay.md "JSON output").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tracekit.records import EventRecord
from tracekit.replay.checks import resolve_name
from tracekit.schema import agentguard as ag


@dataclass(frozen=True, slots=True)
class CheckOutcome:
    """One check's result. ``id`` is None for a recorded name that denotes no registered check."""

    id: str | None
    name: str
    passed: bool
    severity: str
    score_contribution: int
    message: str
    evidence: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "passed": self.passed,
            "severity": self.severity,
            "score_contribution": self.score_contribution,
            "message": self.message,
            "evidence": list(self.evidence),
        }


@dataclass(frozen=True, slots=True)
class Verdict:
    """A run's verdict: result, score, the failed and warning check names, and the checks."""

    result: str
    score: int | float
    failed_checks: tuple[str, ...]
    warning_checks: tuple[str, ...]
    checks: tuple[CheckOutcome, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "result": self.result,
            "score": self.score,
            "failed_checks": list(self.failed_checks),
            "warning_checks": list(self.warning_checks),
            "checks": [check.to_dict() for check in self.checks],
        }


def recorded_verdict(events: list[EventRecord]) -> Verdict | None:
    """The verdict the trace records: its check_result events and its completion summary.

    Returns None when the trace has no completion event (verify guarantees exactly one).
    """
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
        for e in events
        if isinstance(e.payload, ag.CheckResult)
    )
    completed = next(
        (e.payload for e in events if isinstance(e.payload, ag.ExecutionCompleted)), None
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
