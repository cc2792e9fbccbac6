"""Score a list of check outcomes with the snapshot's weights (docs/replay.md,
"The seven checks", Scoring).

``score = max(0, 100 - sum of weights[severity] over failed checks)``; the result is FAIL when any
failed check has severity ``error`` or ``critical``, otherwise PASS. Replay only runs with a
weight table whose keys are exactly the four severities (replayability.py), so a missing weight
cannot occur here; it would count as 0, as upstream's ``.get(severity, 0)`` does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tracekit.judging.replay.checks import BY_ID, Decision
from tracekit.judging.replay.results import CheckOutcome, Verdict

BLOCKING_SEVERITIES = frozenset({"error", "critical"})
SEVERITIES = frozenset({"critical", "error", "warning", "info"})


def contribution(passed: bool, severity: str, weights: Mapping[str, int]) -> int:
    """A check's score contribution: 0 when it passed, else minus its severity's weight."""
    return 0 if passed else -weights.get(severity, 0)


def outcome(
    check_id: str, decision: Decision, severity: str, weights: Mapping[str, int]
) -> CheckOutcome:
    """A registered check's decision with its severity and contribution attached."""
    return CheckOutcome(
        id=check_id,
        name=BY_ID[check_id].name,
        passed=decision.passed,
        severity=severity,
        score_contribution=contribution(decision.passed, severity, weights),
        message=decision.message,
        evidence=decision.evidence,
    )


def score(checks: Sequence[CheckOutcome], weights: Mapping[str, int]) -> Verdict:
    """The verdict the checks imply: result, score, failed and warning check names."""
    failed = [check for check in checks if not check.passed]
    total = 100 - sum(weights.get(check.severity, 0) for check in failed)
    blocking = any(check.severity in BLOCKING_SEVERITIES for check in failed)
    return Verdict(
        result="FAIL" if blocking else "PASS",
        score=max(0, total),
        failed_checks=tuple(check.name for check in failed),
        warning_checks=tuple(check.name for check in failed if check.severity == "warning"),
        checks=tuple(checks),
    )
