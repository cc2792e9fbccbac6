"""replay(report) -> ReplayReport: offline recomputation of a verified trace's policy verdict.

Pure: takes the :class:`~tracekit.formats.agentguard.verify.VerifyReport` of a trace verified with
``keep_events=True`` and returns a report; no file I/O, no clock, no external execution. The
pipeline (docs/replay.md):

    evidence.reconstruct -> replayability.assess -> checks (registry order, enabled only)
    -> scorer.score (snapshot weights) -> equivalence.compare (recorded vs recomputed)

Recorded check results are comparison targets only; they never feed the computation.
NOTE(threat-model): "exact" proves the recorded verdict is *consistent* with the recorded
evidence, not that the evidence is honest: anyone can rewrite and re-chain a trace
(docs/threat-model.md, the first section, on what "intact" proves).
"""

from __future__ import annotations

import msgspec
from msgspec import UNSET
from msgspec.structs import replace

from tracekit import REPORT_VERSION
from tracekit.formats.agentguard.schema.agentguard import Header, PolicySnapshot
from tracekit.formats.agentguard.verify import VerifyReport
from tracekit.judging.replay.checks import BY_ID, REGISTRY
from tracekit.judging.replay.checks.base import Work
from tracekit.judging.replay.containment import ContainmentSummary
from tracekit.judging.replay.equivalence import Classification, Difference, Equivalence, compare
from tracekit.judging.replay.evidence import Evidence, reconstruct
from tracekit.judging.replay.grouping import EventGroups
from tracekit.judging.replay.replayability import Replayability, assess
from tracekit.judging.replay.results import Verdict, recorded_verdict
from tracekit.judging.replay.scorer import outcome, score
from tracekit.kernel import collector
from tracekit.kernel.errors import Code, Finding, TracekitError, finding
from tracekit.kernel.limits import DEFAULT_BUDGET, BudgetExceeded, WorkBudget


class ReplayReport(msgspec.Struct, frozen=True):
    """Everything a replay established about one trace. Its JSON form is
    :class:`~tracekit.judging.replay.document.ReplayDocument`, derived from it."""

    trace_id: str
    schema_version: int
    replayability: Replayability
    notices: tuple[Finding, ...]
    """Non-blocking observations about the evidence (evidence.py)."""
    recorded: Verdict | None
    recomputed: Verdict | None
    """None when the trace is not replayable: tracekit does not guess."""
    comparison: Equivalence | None
    containment: ContainmentSummary | None

    @property
    def replayable(self) -> bool:
        """Whether the verdict could be recomputed (:class:`Replayability`)."""
        return self.replayability.replayable

    @property
    def reasons(self) -> tuple[Finding, ...]:
        """Why the trace is not replayable (empty when it is)."""
        return self.replayability.reasons

    @property
    def equivalence(self) -> Classification | None:
        """``exact``, ``semantic`` or ``divergent``; None when not replayable."""
        return self.comparison.classification if self.comparison else None

    @property
    def differences(self) -> tuple[Difference, ...]:
        """Every recorded/recomputed difference (empty when not compared)."""
        return self.comparison.differences if self.comparison else ()


def evaluate(evidence: Evidence, policy: PolicySnapshot) -> Verdict:
    """Run the enabled registered checks in registry order and score them with the snapshot.

    The snapshot must be replayable (every enabled check registered and given a severity);
    :func:`replay` guarantees that before calling. Raises KeyError otherwise, and
    :class:`~tracekit.kernel.limits.BudgetExceeded` past the default work budget.
    """
    verdict, _ = evaluate_bounded(evidence, policy, Work())
    return verdict


def evaluate_bounded(
    evidence: Evidence, policy: PolicySnapshot, work: Work
) -> tuple[Verdict, list[Finding]]:
    """:func:`evaluate` within ``work``'s budget; also returns a ``replay.evidence_capped``
    notice per check whose evidence was cut (docs/threat-model.md, "Work budget").

    Raises :class:`~tracekit.kernel.limits.BudgetExceeded` (carrying the check's id) when the
    pattern-matching work passes the budget.
    """
    enabled = set(policy.enabled_checks)
    outcomes = []
    notices: list[Finding] = []
    for check in REGISTRY:
        if check.id not in enabled:
            continue
        try:
            decision = check.evaluate(evidence, policy, work)
        except BudgetExceeded as error:
            raise _CheckOverBudget(check.id, error.limit) from None
        if decision.capped:
            notices.append(
                finding(Code.REPLAY_EVIDENCE_CAPPED, check=check.id, kept=len(decision.evidence))
            )
        outcomes.append(
            outcome(check.id, decision, policy.severities[check.id], policy.score_weights)
        )
    return score(outcomes, policy.score_weights), notices


class _CheckOverBudget(BudgetExceeded):
    def __init__(self, check_id: str, limit: int) -> None:
        super().__init__(limit)
        self.check_id = check_id


def replay(
    report: VerifyReport,
    strict_sources: bool = False,
    budget: WorkBudget = DEFAULT_BUDGET,
    events: EventGroups | None = None,
) -> ReplayReport:
    """Replay the trace behind ``report``; returns a :class:`ReplayReport`.

    The events come from ``report`` (verified with ``keep_events``) or, streamed, from
    ``events``: an :class:`EventGroups` given to the verifier as ``VerifyOptions.observe`` (the
    command line does this, so no event is held that replay does not read); both give the same
    report. ``strict_sources`` (or the report's own strict flag) makes a verify exit code of 1 a
    reason the trace is not replayable. Raises :class:`TracekitError` (``replay.trace_invalid``)
    when the trace did not verify, and ValueError when ``report`` was made without
    ``keep_events`` and no ``events`` are given.
    Pattern matching past ``budget`` makes the trace not replayable
    (``replay.work_budget_exceeded``); evidence past it is cut with a ``replay.evidence_capped``
    notice (docs/threat-model.md, "Work budget").
    """
    header = report.header
    if not report.intact or header is None:
        raise TracekitError(finding(Code.REPLAY_TRACE_INVALID))
    if events is None and not report.events:
        raise ValueError("verify the trace with VerifyOptions(keep_events=True) to replay it")
    with collector.paused():
        if events is None:
            events = EventGroups(report.events)  # one pass; each rule reads only its part
        return _replay(report, header, events, strict_sources, budget)


def _replay(
    report: VerifyReport,
    header: Header,
    events: EventGroups,
    strict_sources: bool,
    budget: WorkBudget,
) -> ReplayReport:
    rebuilt = reconstruct(events, header.schema_version)
    status = assess(
        header,
        events,
        rebuilt,
        verify_exit_code=report.exit_code,
        strict_sources=strict_sources or report.strict_sources,
    )
    recorded = recorded_verdict(events)
    recomputed: Verdict | None = None
    comparison: Equivalence | None = None
    notices = list(rebuilt.notices)
    snapshot = header.policy_snapshot
    if status.replayable and rebuilt.evidence is not None and snapshot is not UNSET:
        try:
            recomputed, capped = evaluate_bounded(rebuilt.evidence, snapshot, Work.of(budget))
        except _CheckOverBudget as error:
            over = finding(Code.REPLAY_WORK_BUDGET_EXCEEDED, check=error.check_id, limit=error.limit)
            status = replace(status, reasons=(*status.reasons, over))
        else:
            notices.extend(capped)
            if recorded is not None:
                comparison = compare(recorded, recomputed)
    return ReplayReport(
        trace_id=header.trace_id,
        schema_version=header.schema_version,
        replayability=status,
        notices=tuple(notices),
        recorded=recorded,
        recomputed=recomputed,
        comparison=comparison,
        containment=rebuilt.evidence.containment if rebuilt.evidence else None,
    )


__all__ = ["BY_ID", "REPORT_VERSION", "ReplayReport", "evaluate", "evaluate_bounded", "replay"]
