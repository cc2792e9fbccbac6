"""What an audit establishes about one trace: findings with a location, a completeness table,
and the per-trace verdict (docs/audit.md, "Report").

A finding's ``where`` and a field's ``where`` are locations in tracekit's own terms
(``header.agent_model``, ``tool_calls[3].arguments``): our field names and indices, never a value
or key taken from the trace.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Literal

import msgspec

from tracekit.judging.replay.document import ReplaySummary
from tracekit.kernel.episode_id import UNNAMED, episode_label
from tracekit.kernel.errors import CODE_INFO, Code, Finding, Severity, finding
from tracekit.kernel.evidence import Status

Format = Literal["agentguard", "harness", "inspect", "otel", "agentdojo", "garak", "claude_code", "codex", "atif", "unknown"]
Outcome = Literal["pass", "fail", "error", "not_run"]

SEVERITY_RANK = {Severity.INFO: 0, Severity.NOTICE: 1, Severity.WARNING: 2, Severity.ERROR: 3}
EXIT_OK, EXIT_FINDINGS, EXIT_UNREADABLE = 0, 1, 2

#: Finding codes that mean a colleague cannot rerun the finding from the trace alone.
FAILURE_MODE_CODES = frozenset(
    {
        Code.AUDIT_ARGUMENTS_STRINGIFIED,
        Code.AUDIT_RESULT_TRUNCATED,
        Code.AUDIT_PARALLEL_CALLS_FLATTENED,
        Code.AUDIT_VERDICT_WITHOUT_PAYLOADS,
    }
)


class AuditFinding(msgspec.Struct, frozen=True):
    """A finding plus where it applies, in our own terms (None when it concerns the trace).
    JSON: ``{code, severity, line, message, where}``."""

    code: Code
    severity: Severity
    line: int | None
    message: str
    """The code's fixed text, filled with integers and our own names only."""
    where: str | None = None


def located(found: Finding, where: str | None = None) -> AuditFinding:
    """A :class:`Finding` from another layer (verify, replay, evidence rules), located."""
    return AuditFinding(found.code, found.severity, found.line, found.message, where)


def note(
    code: Code,
    line: int | None = None,
    where: str | None = None,
    severity: Severity | None = None,
    **params: int | str,
) -> AuditFinding:
    """An :class:`AuditFinding` from a code's fixed text (``params``: integers and our names)."""
    if where is not None and "{where}" in CODE_INFO[code].message:
        params["where"] = where
    return located(finding(code, line, severity, **params), where)


def by_severity(findings: Iterable[AuditFinding]) -> tuple[AuditFinding, ...]:
    """Most severe first; equal severities keep the order they were found in."""
    ranked: tuple[list[AuditFinding], ...] = ([], [], [], [])
    for f in findings:  # a stable sort on four ranks: one pass
        ranked[SEVERITY_RANK[f.severity]].append(f)
    error, warning, notice, info = ranked[3], ranked[2], ranked[1], ranked[0]
    return (*error, *warning, *notice, *info)


class FieldStatus(msgspec.Struct, frozen=True):
    """One row of a completeness table."""

    field: str
    """The evidence field, in the profile's vocabulary (``tool_arguments``, ``agent_model``)."""
    status: Status
    where: str
    """Where it was found or looked for, in our own terms."""
    needed_to_rerun: bool
    """True when a colleague cannot rerun the finding without it."""


def gap_findings(rows: Iterable[FieldStatus]) -> list[AuditFinding]:
    """One finding per gap: warning when the field is needed to rerun, notice otherwise;
    a field the format cannot carry is info (not the operator's fault)."""
    return [_gap(row) for row in rows if row.status != "present"]


@lru_cache(maxsize=4096)
def _gap(row: FieldStatus) -> AuditFinding:
    """:func:`gap_findings`' finding for one row; the episodes of a file repeat the same rows,
    so each distinct row's finding is made once (the findings are frozen: shared safely)."""
    if row.status == "not_carried":
        return note(Code.AUDIT_FIELD_NOT_CARRIED, where=row.where, field=row.field)
    code = Code.AUDIT_FIELD_MISSING if row.status == "missing" else Code.AUDIT_FIELD_PARTIAL
    severity = Severity.WARNING if row.needed_to_rerun else Severity.NOTICE
    return note(code, where=row.where, severity=severity, field=row.field)


class EpisodeAudit(msgspec.Struct, frozen=True):
    """One episode's completeness and findings (an imported file holds one or more)."""

    id: str
    """:func:`episode_label` of the format's own id."""
    completeness: tuple[FieldStatus, ...]
    findings: tuple[AuditFinding, ...] = ()
    """Most severe first (:func:`by_severity`)."""


class AssertionView(msgspec.Struct, frozen=True, omit_defaults=True):
    """One scenario assertion's verdict, as upstream reports it (``evidence`` left out when
    there is none; it may quote the trace by upstream's design and is shown in JSON only)."""

    id: str
    result: Outcome
    evidence: str | None = None


class PolicyEpisode(msgspec.Struct, frozen=True):
    """One episode judged by the scenario's policies: its label, result and failed assertions."""

    episode: str
    result: Outcome
    failed: tuple[str, ...]


class ScenarioSummary(msgspec.Struct, frozen=True, omit_defaults=True):
    """``--scenario`` on one file. A harness trace carries its ``assertions``; an imported file
    carries the episodes judged and failed and one :class:`PolicyEpisode` each."""

    scenario_id: str
    result: Outcome
    strict: bool
    assertions: tuple[AssertionView, ...] | None = None
    episodes_judged: int | None = None
    episodes_failed: int | None = None
    episodes: tuple[PolicyEpisode, ...] | None = None


class AuditReport(msgspec.Struct, frozen=True):
    """The audit of one trace, and its JSON form (report_version 1): build it with
    :func:`audit_report`, which derives ``exit_code`` and ``rerunnable`` from the rest.
    ``intact`` is None for formats that carry no integrity."""

    path: str
    format: Format
    exit_code: int
    readable: bool
    intact: bool | None
    rerunnable: bool
    trace_id: str | None
    outcome: str | None
    """The recorded verdict, from a fixed vocabulary (``PASS``/``FAIL``, ``pass``/``fail``...)."""
    demonstration: str | None
    """sha256 over the evidence behind the verdict, volatile fields removed (campaign.py)."""
    finding_digests: tuple[str, ...]
    """Digests of the recorded findings' payloads (repeated findings across a campaign)."""
    replay: ReplaySummary | None
    harness: ScenarioSummary | None
    findings: tuple[AuditFinding, ...]
    """Most severe first."""
    completeness: tuple[FieldStatus, ...]
    episodes: tuple[EpisodeAudit, ...] = ()
    """Per episode (imported formats); AgentGuard and harness traces hold none here and are
    shown as one episode by :func:`with_episodes`."""

    @property
    def replayable(self) -> bool | None:
        """AgentGuard: whether replay could recompute the verdict; None for other formats."""
        return None if self.replay is None else self.replay.replayable


def _exit_code(readable: bool, intact: bool | None, findings: Iterable[AuditFinding]) -> int:
    """2 unreadable or not intact; 1 any finding of severity warning or above; else 0."""
    if not readable or intact is False:
        return EXIT_UNREADABLE
    serious = (Severity.ERROR, Severity.WARNING)
    return EXIT_FINDINGS if any(f.severity in serious for f in findings) else EXIT_OK


def _rerunnable(
    readable: bool,
    intact: bool | None,
    replayable: bool | None,
    findings: Iterable[AuditFinding],
    completeness: Iterable[FieldStatus],
) -> bool:
    """Could a colleague rerun the finding from this trace alone? (docs/audit.md)

    Readable and not shown tampered; every field needed to rerun present; no failure mode
    that loses evidence; no self-contradiction (an error-severity consistency finding);
    for AgentGuard, replayable and not divergent."""
    if not readable or intact is False or replayable is False:
        return False
    for row in completeness:  # a loop, not any(): this runs per trace over every row
        if row.needed_to_rerun and row.status != "present":
            return False
    for f in findings:
        if f.code in _BLOCKING or (
            f.severity is Severity.ERROR and f.code.value.startswith(("audit.", "evidence."))
        ):
            return False
    return True


_BLOCKING = FAILURE_MODE_CODES | {Code.REPLAY_DIVERGENT}
"""Finding codes that make a trace not rerunnable whatever their severity."""


def audit_report(
    path: str,
    format: Format,
    *,
    readable: bool,
    intact: bool | None,
    findings: Iterable[AuditFinding] = (),
    completeness: tuple[FieldStatus, ...] = (),
    replay: ReplaySummary | None = None,
    harness: ScenarioSummary | None = None,
    replayable: bool | None = None,
    trace_id: str | None = None,
    outcome: str | None = None,
    demonstration: str | None = None,
    finding_digests: tuple[str, ...] = (),
    episodes: tuple[EpisodeAudit, ...] = (),
) -> AuditReport:
    """An :class:`AuditReport` with its exit code and rerunnability derived, findings ordered."""
    ordered = by_severity(findings)
    return AuditReport(
        path=path,
        format=format,
        exit_code=_exit_code(readable, intact, ordered),
        readable=readable,
        intact=intact,
        rerunnable=_rerunnable(readable, intact, replayable, ordered, completeness),
        trace_id=trace_id,
        outcome=outcome,
        demonstration=demonstration,
        finding_digests=finding_digests,
        replay=replay,
        harness=harness,
        findings=ordered,
        completeness=completeness,
        episodes=episodes,
    )


_IMPORTED = frozenset({"inspect", "otel", "agentdojo", "garak"})


def with_episodes(report: AuditReport) -> AuditReport:
    """The report with ``episodes`` (docs/formats.md, "Using it from the command line"): an
    imported file has its own; a readable AgentGuard or harness trace is one episode holding
    the trace's completeness; an unreadable or not-intact file has none. Added where the report
    is rendered, so the per-file result the store reads keeps its former shape. An imported
    file without episodes (a run that failed before any sample) has none: a missing sample is
    never counted as an episode (docs/formats.md, "Run status")."""
    if report.episodes or not report.readable or report.intact is False or report.format in _IMPORTED:
        return report
    label = episode_label(report.trace_id) if report.trace_id else UNNAMED
    return msgspec.structs.replace(report, episodes=(EpisodeAudit(label, report.completeness),))

