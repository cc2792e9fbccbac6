"""Audit one trace: intact? consistent? does the verdict follow? could a colleague rerun it?

Pure given the loaded data: the CLI reads files and passes a :class:`VerifyReport` (AgentGuard,
verified with an :class:`AgentGuardFold` as ``VerifyOptions.observe``, or with
``keep_events=True``) or the bytes of a harness trace. The pipeline per format
(docs/audit.md):

* AgentGuard: verify findings -> (if intact) integrity-is-not-authenticity note -> consistency
  rules -> replay (replayability reasons and equivalence) -> completeness profile -> failure modes.
  A trace that is not intact stops after its verify findings (exit 2), as verify does.
* harness: bounded strict load -> no-integrity note -> completeness profile -> failure modes ->
  (with a scenario) the scenario's assertions, compared with the recorded outcome.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from tracekit.formats.agentguard.records import EventRecord
from tracekit.formats.agentguard.schema import agentguard as ag
from tracekit.formats.harness.view import HarnessView
from tracekit.judging.audit import consistency, failure_modes
from tracekit.judging.audit.completeness import PROFILES
from tracekit.judging.audit.completeness.agentguard import AgentGuardEvidence, CommandRecords
from tracekit.judging.audit.digests import DEMONSTRATION_TYPES, Demonstration, payload_digest
from tracekit.judging.audit.model import (
    AssertionView,
    AuditFinding,
    AuditReport,
    Format,
    ScenarioSummary,
    audit_report,
    gap_findings,
    located,
    note,
)
from tracekit.judging.replay.document import ReplaySummary, replay_summary
from tracekit.judging.replay.engine import replay
from tracekit.judging.replay.grouping import EventGroups
from tracekit.kernel import collector
from tracekit.kernel.errors import Code, Finding, TracekitError
from tracekit.kernel.limits import HARNESS_LIMITS, Limits

if TYPE_CHECKING:  # the harness package (and YAML) loads only when a harness trace is audited
    from tracekit.formats.agentguard.verify import VerifyReport
    from tracekit.judging.harness.scenario import Scenario

#: Replay notices that a consistency rule reports under its own audit code (no double counting).
#: Both commands evaluate these rules with the same functions (tracekit/judging/replay/crosschecks.py);
#: only the code a finding carries differs.
SUPERSEDED = frozenset(
    {
        Code.REPLAY_INCONSISTENT_LINE_TOTALS,
        Code.REPLAY_UNKNOWN_WORKING_DIRECTORY_ROLE,
        Code.REPLAY_NON_MONOTONIC_OFFSETS,
    }
)
_EQUIVALENCE = {
    "exact": Code.REPLAY_EXACT,
    "semantic": Code.REPLAY_SEMANTIC,
    "divergent": Code.REPLAY_DIVERGENT,
}
HARNESS_OUTCOMES = {
    "pass": "pass",
    "fail": "fail",
    "error": "error",
    "not_run": "not_run",
    "PASS": "pass",
    "FAIL": "fail",
}


def unreadable(path: str, fmt: Format, found: Finding) -> AuditReport:
    """The report for a file that could not be read or parsed (exit 2)."""
    return audit_report(path, fmt, readable=False, intact=None, findings=(located(found),))


# ------------------------------------------------------------------------------------ AgentGuard


class AgentGuardFold:
    """Everything the AgentGuard audit reads, folded from the verified events in one pass, so no
    event list is kept (docs/audit.md, "One pass"). Give :meth:`add` to the verifier as
    ``VerifyOptions.observe``, or the kept events to the constructor:

    * ``groups``: replay's fold (tracekit/judging/replay/grouping.py), which the consistency rules, the
      completeness profile and replay read;
    * ``commands``: the agent_command events as the completeness profile reads them;
    * ``failures``: the failure-mode fold;
    * ``demonstration``: the demonstration digest over the :data:`DEMONSTRATION_TYPES` events.
    """

    __slots__ = ("commands", "demonstration", "failures", "groups")

    def __init__(self, events: Iterable[EventRecord] = ()) -> None:
        self.groups = EventGroups()
        self.commands = CommandRecords()
        self.failures = failure_modes.AgentGuardFailures()
        self.demonstration = Demonstration()
        for event in events:  # verify bounds the number of events
            self.add(event)

    def add(self, event: EventRecord) -> None:
        """Take the next verified event, in trace order. Each fold is handed only the event
        types it reads (an event's type decides its payload's type: ``ag.PAYLOAD_TYPES``)."""
        self.groups.add(event)
        kind = event.event_type
        if kind in _FAILURE_TYPES:
            self.failures.add(event)
        if kind == "agent_command":
            self.commands.add(event)
        if kind in DEMONSTRATION_TYPES:
            self.demonstration.add(kind, event.payload)


_FAILURE_TYPES = frozenset(
    {"agent_command", "test_result", "file_change", "check_result", "execution_completed"}
)
"""The event types whose payloads the failure-mode fold reads (failure_modes.AgentGuardFailures)."""


def _replay(
    report: VerifyReport, strict_sources: bool, events: EventGroups
) -> tuple[ReplaySummary, list[AuditFinding]]:
    result = replay(report, strict_sources=strict_sources, events=events)
    found = [located(f) for f in (*result.reasons, *result.notices) if f.code not in SUPERSEDED]
    if result.equivalence is not None:
        found.append(note(_EQUIVALENCE[result.equivalence]))
    return replay_summary(result), found


def audit_agentguard(
    report: VerifyReport,
    *,
    strict_sources: bool = False,
    scenario_given: bool = False,
    events: AgentGuardFold | None = None,
) -> AuditReport:
    """Audit an AgentGuard trace from its verify report and ``events``, the
    :class:`AgentGuardFold` the verifier fed; without it, from the report's kept events (made
    with ``keep_events=True``).

    The cyclic collector is paused meanwhile, as verify's walk pauses it while keeping events
    (docs/performance.md, "Round 2, second pass"): the audit's steps make no reference cycles,
    and a collection would rescan every held payload to find nothing."""
    with collector.paused():
        return _audit_agentguard(report, strict_sources, scenario_given, events)


def _audit_agentguard(
    report: VerifyReport, strict_sources: bool, scenario_given: bool, events: AgentGuardFold | None
) -> AuditReport:
    findings = [located(f) for f in report.findings]
    if scenario_given:
        findings.append(note(Code.AUDIT_SCENARIO_NOT_APPLICABLE))
    header = report.header
    if not report.intact or header is None or (events is None and not report.events):
        return audit_report(
            report.path,
            "agentguard",
            readable=True,
            intact=False,
            findings=tuple(findings),
            trace_id=report.trace_id,
        )
    if events is None:
        events = AgentGuardFold(report.events)
    groups = events.groups
    findings.append(note(Code.AUDIT_INTEGRITY_NOT_AUTHENTICITY))
    findings += consistency.check_consistency(header, groups)
    summary, replay_found = _replay(report, strict_sources, groups)
    findings += replay_found
    evidence = AgentGuardEvidence(header, groups, events.commands, report.sources)
    rows = PROFILES["agentguard"].assess(evidence)
    findings += gap_findings(rows)
    findings += events.failures.findings()
    completed = groups.of("execution_completed")[0].payload
    assert isinstance(completed, ag.ExecutionCompleted)  # verify checked the one completion
    return audit_report(
        report.path,
        "agentguard",
        readable=True,
        intact=True,
        findings=findings,
        completeness=rows,
        replay=summary,
        replayable=summary.replayable,
        trace_id=header.trace_id,
        outcome=completed.result,
        demonstration=events.demonstration.hexdigest(),
    )


# --------------------------------------------------------------------------------------- harness


def load_harness(data: bytes, limits: Limits = HARNESS_LIMITS) -> HarnessView:
    """Parse a harness trace's bytes as tracekit.judging.harness does, keeping the top-level object.

    Raises :class:`TracekitError` (harness.trace_*, json.*)."""
    from tracekit.formats.harness.trace import parse_trace_document

    top, trace = parse_trace_document(data, limits)
    return HarnessView(top=top, trace=trace)


def _scenario(
    view: HarnessView, scenario: Scenario, strict: bool
) -> tuple[ScenarioSummary, list[AuditFinding]]:
    from tracekit.judging.harness.evaluate import evaluate

    result = evaluate(scenario, view.trace, strict)
    summary = ScenarioSummary(
        scenario_id=result.scenario_id,
        result=result.result,
        strict=strict,
        assertions=tuple(AssertionView(a.id, a.result, a.evidence) for a in result.assertions),
    )
    compared = recorded_comparison(view, result.result)
    found: list[AuditFinding] = []
    if compared is not None:
        found.append(note(compared[0], where=compared[1]))
    return summary, found


def recorded_comparison(view: HarnessView, result: str) -> tuple[Code, str] | None:
    """The harness trace's recorded outcome next to the scenario's ``result``: the code every
    command that judges a scenario reports (``audit.outcome_reproduced`` or
    ``audit.outcome_mismatch``) and where the outcome is; None when none is recorded."""
    recorded = view.recorded_outcome()
    if recorded is None or recorded[0] not in HARNESS_OUTCOMES:
        return None
    same = HARNESS_OUTCOMES[recorded[0]] == result
    return (Code.AUDIT_OUTCOME_REPRODUCED if same else Code.AUDIT_OUTCOME_MISMATCH), recorded[1]


def audit_harness(
    path: str, data: bytes, scenario: Scenario | None = None, *, strict: bool = False
) -> AuditReport:
    """Audit a harness trace from its bytes; an unparseable trace gives an exit-2 report."""
    try:
        view = load_harness(data)
    except TracekitError as error:
        return unreadable(path, "harness", error.finding)
    findings = [note(Code.AUDIT_NO_INTEGRITY)]
    rows = PROFILES["harness"].assess(view)
    findings += gap_findings(rows)
    findings += failure_modes.harness_failure_modes(view)
    harness = None
    if scenario is not None:
        harness, compared = _scenario(view, scenario, strict)
        findings += compared
    recorded = view.recorded_outcome()
    return audit_report(
        path,
        "harness",
        readable=True,
        intact=None,
        findings=findings,
        completeness=rows,
        harness=harness,
        outcome=recorded[0] if recorded else None,
        demonstration=payload_digest({"messages": view.trace.messages, "tool_calls": view.calls}),
        finding_digests=tuple(failure_modes.finding_digests(view)),
    )
