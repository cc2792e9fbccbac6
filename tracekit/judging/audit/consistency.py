"""Cross-field consistency of an intact AgentGuard trace (docs/audit.md, "Consistency rules").

Upstream checks none of these, so a forger who edits a value and re-hashes the chain gets a trace
that verifies; a careless forger leaves the edited value contradicting the values around it, and
these rules say so. Each rule is a pure function over the verified trace's events, folded once
(:class:`~tracekit.judging.replay.grouping.EventGroups`: the events the rules read, by type, and the
per-event rules applied as the events pass, so a streamed trace is never held whole), and returns
findings with one stable code; :data:`RULES` lists them in report order.

Severities: ``error`` when the recorded verdict contradicts itself (it cannot be both), ``warning``
for bookkeeping that disagrees with the evidence. Either way the audit exits 1: the trace was read
and is intact, but it is not consistent.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence

import msgspec
from msgspec import UNSET

from tracekit.formats.agentguard.records import EventRecord
from tracekit.formats.agentguard.schema import agentguard as ag
from tracekit.judging.audit.model import AuditFinding, note
from tracekit.judging.replay import crosschecks
from tracekit.judging.replay.checks import resolve_name
from tracekit.judging.replay.grouping import EventGroups, grouped
from tracekit.kernel.errors import Code

UPSTREAM_DEDUCTIONS: Mapping[str, int] = {"critical": 50, "error": 30, "warning": 10, "info": 0}
"""Upstream scorer's deductions: the weights a v1 trace (no snapshot) was scored with."""
BLOCKING = frozenset({"error", "critical"})


class Context(msgspec.Struct, frozen=True):
    """A verified trace, split by event type once for every rule, with what several rules read
    made once: the check_result payloads (``results``, in the order of ``checks``), the failed
    ones, the completion summary and the score weights. A Struct: built in C, once per trace."""

    header: ag.Header
    events: EventGroups
    started: EventRecord
    test: EventRecord
    completed: EventRecord
    checks: Sequence[EventRecord]
    changes: Sequence[EventRecord]
    results: tuple[ag.CheckResult, ...]
    failed: tuple[ag.CheckResult, ...]
    summary: ag.ExecutionCompleted
    weights: Mapping[str, int]


def context(header: ag.Header, events: Sequence[EventRecord] | EventGroups) -> Context | None:
    """Split ``events``; None unless the trace has its three singletons (verify guarantees it)."""
    groups = grouped(events)
    single = {
        kind: groups.of(kind) for kind in ("execution_started", "test_result", "execution_completed")
    }
    if any(len(found) != 1 for found in single.values()):
        return None
    checks = groups.of("check_result")
    results = tuple(_check_result(record) for record in checks)
    completed = single["execution_completed"][0]
    assert isinstance(completed.payload, ag.ExecutionCompleted)
    snapshot = header.policy_snapshot
    return Context(
        header=header,
        events=groups,
        started=single["execution_started"][0],
        test=single["test_result"][0],
        completed=completed,
        checks=checks,
        changes=groups.of("file_change"),
        results=results,
        failed=tuple(c for c in results if not c.passed),
        summary=completed.payload,
        weights=UPSTREAM_DEDUCTIONS if snapshot is UNSET else snapshot.score_weights,
    )


def _check_result(record: EventRecord) -> ag.CheckResult:
    assert isinstance(record.payload, ag.CheckResult)
    return record.payload


Rule = Callable[[Context], list[AuditFinding]]


def header_ids(ctx: Context) -> list[AuditFinding]:
    """Header task_id and execution_id equal execution_started's."""
    started = ctx.started.payload
    assert isinstance(started, ag.ExecutionStarted)
    return [
        note(Code.AUDIT_HEADER_IDS_MISMATCH, ctx.started.line, f"header.{name}", field=name)
        for name in ("task_id", "execution_id")
        if getattr(ctx.header, name) != getattr(started, name)
    ]


def functional_pass(ctx: Context) -> list[AuditFinding]:
    """functional_pass == (exit_code == 0 and not timed_out), as upstream's builder writes it."""
    test = ctx.test.payload
    assert isinstance(test, ag.TestResult)
    if test.functional_pass == (test.exit_code == 0 and not test.timed_out):
        return []
    return [note(Code.AUDIT_FUNCTIONAL_PASS_MISMATCH, ctx.test.line, "test_result.functional_pass")]


def score_contribution(ctx: Context) -> list[AuditFinding]:
    """0 when passed, else minus the weight of the severity (unknowable weights are skipped)."""
    wrong = []
    weights = ctx.weights
    for record, check in zip(ctx.checks, ctx.results, strict=True):
        if check.passed:
            expected: int | None = 0
        else:
            weight = weights.get(check.severity)
            expected = None if weight is None else -weight
        if expected is not None and check.score_contribution != expected:
            wrong.append(record)
    if not wrong:
        return []
    return [
        note(
            Code.AUDIT_SCORE_CONTRIBUTION_MISMATCH,
            wrong[0].line,
            "check_result.score_contribution",
            count=len(wrong),
        )
    ]


def _same_names(names: Iterable[str], recorded: Sequence[str]) -> bool:
    """The two lists hold the same names, each as often (order aside)."""
    return sorted(names) == sorted(recorded)


def failed_checks(ctx: Context) -> list[AuditFinding]:
    """failed_checks lists exactly the names of the failed check events (order aside)."""
    if _same_names((c.name for c in ctx.failed), ctx.summary.failed_checks):
        return []
    return [
        note(
            Code.AUDIT_FAILED_CHECKS_MISMATCH,
            ctx.completed.line,
            "execution_completed.failed_checks",
        )
    ]


def warning_checks(ctx: Context) -> list[AuditFinding]:
    """warning_checks lists exactly the failed checks of severity warning."""
    if _same_names((c.name for c in ctx.failed if c.severity == "warning"), ctx.summary.warning_checks):
        return []
    return [
        note(
            Code.AUDIT_WARNING_CHECKS_MISMATCH,
            ctx.completed.line,
            "execution_completed.warning_checks",
        )
    ]


def modified_count(ctx: Context) -> list[AuditFinding]:
    """count == len(paths); with ``truncated``, count may exceed the listed paths, never less."""
    files = ctx.summary.modified_files
    listed = len(files.paths)
    if files.count == listed or (files.truncated and files.count > listed):
        return []
    return [
        note(
            Code.AUDIT_MODIFIED_COUNT_MISMATCH,
            ctx.completed.line,
            "execution_completed.modified_files.count",
            count=files.count,
            paths=listed,
        )
    ]


def modified_paths(ctx: Context) -> list[AuditFinding]:
    """The paths equal the file_change paths in event order (a prefix of them when truncated)."""
    files = ctx.summary.modified_files
    changed = [e.payload.path for e in ctx.changes if isinstance(e.payload, ag.FileChange)]
    listed = list(files.paths)
    if listed == changed or (files.truncated and changed[: len(listed)] == listed):
        return []
    return [
        note(
            Code.AUDIT_MODIFIED_PATHS_MISMATCH,
            ctx.completed.line,
            "execution_completed.modified_files.paths",
            count=len(changed),
        )
    ]


def line_totals(ctx: Context) -> list[AuditFinding]:
    """lines_added and lines_deleted equal the sums over the file_change events."""
    if crosschecks.line_totals_match(ctx.summary.modified_files, ctx.changes):
        return []
    return [
        note(
            Code.AUDIT_LINE_TOTALS_MISMATCH,
            ctx.completed.line,
            "execution_completed.modified_files",
        )
    ]


def score(ctx: Context) -> list[AuditFinding]:
    """score == max(0, 100 - sum of weights over failed checks), when every weight is known."""
    failed, weights = ctx.failed, ctx.weights
    if any(c.severity not in weights for c in failed):
        return []
    expected = max(0, 100 - sum(weights[c.severity] for c in failed))
    if float(ctx.summary.score) == float(expected):
        return []
    return [note(Code.AUDIT_SCORE_MISMATCH, ctx.completed.line, "execution_completed.score")]


def result(ctx: Context) -> list[AuditFinding]:
    """FAIL exactly when a failed check has severity error or critical."""
    expected = "FAIL" if any(c.severity in BLOCKING for c in ctx.failed) else "PASS"
    if ctx.summary.result == expected:
        return []
    return [note(Code.AUDIT_RESULT_MISMATCH, ctx.completed.line, "execution_completed.result")]


def unique_names(ctx: Context) -> list[AuditFinding]:
    """No check name is recorded twice."""
    names = [c.name for c in ctx.results]
    if len(set(names)) == len(names):  # the usual case: no name twice
        return []
    counts = Counter(names)
    repeated = [name for name, n in counts.items() if n > 1]
    first = next(r for r, c in zip(ctx.checks, ctx.results, strict=True) if c.name in repeated)
    return [
        note(Code.AUDIT_DUPLICATE_CHECK_NAME, first.line, "check_result.name", count=len(repeated))
    ]


def severities(ctx: Context) -> list[AuditFinding]:
    """A registered check's recorded severity equals the snapshot's severity for its id."""
    snapshot = ctx.header.policy_snapshot
    if snapshot is UNSET:
        return []
    wrong = []
    wanted = snapshot.severities
    for record, check in zip(ctx.checks, ctx.results, strict=True):
        check_id = resolve_name(check.name)
        if check_id in wanted and wanted[check_id] != check.severity:
            wrong.append(record)
    if not wrong:
        return []
    return [
        note(Code.AUDIT_SEVERITY_MISMATCH, wrong[0].line, "check_result.severity", count=len(wrong))
    ]


def offsets(ctx: Context) -> list[AuditFinding]:
    """relative_offset_seconds never decreases along the trace (nulls are skipped)."""
    drops = ctx.events.offsets.drops.hit()
    if drops is None:
        return []
    return [
        note(
            Code.AUDIT_NON_MONOTONIC_OFFSETS,
            drops[0],
            "event.relative_offset_seconds",
            count=drops[1],
        )
    ]


def working_directory_roles(ctx: Context) -> list[AuditFinding]:
    """Every agent_command's working_directory_role is one upstream's builder writes."""
    odd = ctx.events.roles.hit()
    if odd is None:
        return []
    return [
        note(
            Code.AUDIT_UNKNOWN_WORKING_DIRECTORY_ROLE,
            odd[0],
            "agent_command.working_directory_role",
            count=odd[1],
        )
    ]


RULES: tuple[Rule, ...] = (
    header_ids,
    functional_pass,
    score_contribution,
    failed_checks,
    warning_checks,
    modified_count,
    modified_paths,
    line_totals,
    score,
    result,
    unique_names,
    severities,
    offsets,
    working_directory_roles,
)
"""Every consistency rule, in report order; tests walk this registry."""


def check_consistency(
    header: ag.Header, events: Sequence[EventRecord] | EventGroups
) -> list[AuditFinding]:
    """All consistency findings for a verified trace's header and typed events (or their fold)."""
    ctx = context(header, events)
    if ctx is None:
        return []
    return [found for rule in RULES for found in rule(ctx)]


CONSISTENCY_CODES = frozenset(
    code.value
    for code in (
        Code.AUDIT_HEADER_IDS_MISMATCH,
        Code.AUDIT_FUNCTIONAL_PASS_MISMATCH,
        Code.AUDIT_SCORE_CONTRIBUTION_MISMATCH,
        Code.AUDIT_FAILED_CHECKS_MISMATCH,
        Code.AUDIT_WARNING_CHECKS_MISMATCH,
        Code.AUDIT_MODIFIED_COUNT_MISMATCH,
        Code.AUDIT_MODIFIED_PATHS_MISMATCH,
        Code.AUDIT_LINE_TOTALS_MISMATCH,
        Code.AUDIT_SCORE_MISMATCH,
        Code.AUDIT_RESULT_MISMATCH,
        Code.AUDIT_DUPLICATE_CHECK_NAME,
        Code.AUDIT_SEVERITY_MISMATCH,
        Code.AUDIT_NON_MONOTONIC_OFFSETS,
        Code.AUDIT_UNKNOWN_WORKING_DIRECTORY_ROLE,
    )
)
"""The codes the rules above emit, one per rule (campaign.py counts traces without any)."""
