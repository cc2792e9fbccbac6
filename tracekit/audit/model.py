"""What an audit establishes about one trace: findings with a location, a completeness table,
and the per-trace verdict (docs/audit.md, "Report").

A finding's ``where`` and a field's ``where`` are locations in tracekit's own terms
(``header.agent_model``, ``tool_calls[3].arguments``): our field names and indices, never a value
or key taken from the trace.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from tracekit.errors import CODE_INFO, Code, Finding, Severity, finding

Status = Literal["present", "partial", "missing", "not_carried"]
STATUSES: tuple[Status, ...] = ("present", "partial", "missing", "not_carried")
Format = Literal["agentguard", "harness", "inspect", "otel", "agentdojo", "garak", "unknown"]

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


@dataclass(frozen=True, slots=True)
class AuditFinding:
    """A finding plus where it applies, in our own terms (None when it concerns the trace)."""

    finding: Finding
    where: str | None = None

    @property
    def code(self) -> Code:
        return self.finding.code

    @property
    def severity(self) -> Severity:
        return self.finding.severity

    def as_dict(self) -> dict[str, Any]:
        """``{code, severity, message, line, where}``."""
        return {**self.finding.as_dict(), "where": self.where}


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
    return AuditFinding(finding(code, line, severity, **params), where)


@dataclass(frozen=True, slots=True)
class FieldStatus:
    """One row of a completeness table."""

    field: str
    """The evidence field, in the profile's vocabulary (``tool_arguments``, ``agent_model``)."""
    status: Status
    where: str
    """Where it was found or looked for, in our own terms."""
    needed_to_rerun: bool
    """True when a colleague cannot rerun the finding without it."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "field": self.field,
            "status": self.status,
            "where": self.where,
            "needed_to_rerun": self.needed_to_rerun,
        }


def gap_findings(rows: Iterable[FieldStatus]) -> list[AuditFinding]:
    """One finding per gap: warning when the field is needed to rerun, notice otherwise;
    a field the format cannot carry is info (not the operator's fault)."""
    out: list[AuditFinding] = []
    for row in rows:
        if row.status == "present":
            continue
        if row.status == "not_carried":
            out.append(note(Code.AUDIT_FIELD_NOT_CARRIED, where=row.where, field=row.field))
            continue
        code = Code.AUDIT_FIELD_MISSING if row.status == "missing" else Code.AUDIT_FIELD_PARTIAL
        severity = Severity.WARNING if row.needed_to_rerun else Severity.NOTICE
        out.append(note(code, where=row.where, severity=severity, field=row.field))
    return out


_LABEL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-")
LABEL_MAX = 64


def episode_label(episode_id: str) -> str:
    """An episode id as reports show it (docs/formats.md, "Using it from the command line"): the
    id itself when it is at most 64 characters of ``[A-Za-z0-9._:-]`` (sample ids, epochs, trace
    ids, uuids), else ``sha256:`` and the first 16 hex digits of its UTF-8 digest, so a hostile id
    never reaches a terminal and two reports can still be matched."""
    if 0 < len(episode_id) <= LABEL_MAX and all(ch in _LABEL_CHARS for ch in episode_id):
        return episode_id
    import hashlib

    digest = hashlib.sha256(episode_id.encode("utf-8", "surrogatepass")).hexdigest()
    return f"sha256:{digest[:16]}"


@dataclass(frozen=True, slots=True)
class EpisodeAudit:
    """One episode's completeness and findings (an imported file holds one or more)."""

    id: str
    """:func:`episode_label` of the format's own id."""
    completeness: tuple[FieldStatus, ...]
    findings: tuple[AuditFinding, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        ordered = sorted(self.findings, key=lambda f: -SEVERITY_RANK[f.severity])
        return {
            "id": self.id,
            "completeness": [row.as_dict() for row in self.completeness],
            "findings": [f.as_dict() for f in ordered],
        }


@dataclass(frozen=True, slots=True)
class AuditReport:
    """The audit of one trace. ``intact`` is None for formats that carry no integrity."""

    path: str
    format: Format
    readable: bool
    intact: bool | None
    findings: tuple[AuditFinding, ...] = ()
    completeness: tuple[FieldStatus, ...] = ()
    replay: dict[str, Any] | None = None
    harness: dict[str, Any] | None = None
    replayable: bool | None = None
    """AgentGuard: whether replay could recompute the verdict; None for other formats."""
    trace_id: str | None = None
    outcome: str | None = None
    """The recorded verdict, from a fixed vocabulary (``PASS``/``FAIL``, ``pass``/``fail``...)."""
    demonstration: str | None = None
    """sha256 over the evidence behind the verdict, volatile fields removed (campaign.py)."""
    finding_digests: tuple[str, ...] = field(default_factory=tuple)
    """Digests of the recorded findings' payloads (repeated findings across a campaign)."""
    episodes: tuple[EpisodeAudit, ...] = ()
    """Per episode (imported formats); AgentGuard and harness traces hold none here and are
    shown as one episode by :func:`with_episodes`."""

    @property
    def exit_code(self) -> int:
        """2 unreadable or not intact; 1 any finding of severity warning or above; else 0."""
        if not self.readable or self.intact is False:
            return EXIT_UNREADABLE
        worst = max((SEVERITY_RANK[f.severity] for f in self.findings), default=0)
        return EXIT_FINDINGS if worst >= SEVERITY_RANK[Severity.WARNING] else EXIT_OK

    @property
    def rerunnable(self) -> bool:
        """Could a colleague rerun the finding from this trace alone? (docs/audit.md)

        Readable and not shown tampered; every field needed to rerun present; no failure mode
        that loses evidence; no self-contradiction (an error-severity consistency finding);
        for AgentGuard, replayable and not divergent."""
        if not self.readable or self.intact is False or self.replayable is False:
            return False
        if any(row.needed_to_rerun and row.status != "present" for row in self.completeness):
            return False
        blocking = FAILURE_MODE_CODES | {Code.REPLAY_DIVERGENT}
        return not any(
            f.code in blocking
            or (f.severity is Severity.ERROR and f.code.value.startswith(("audit.", "evidence.")))
            for f in self.findings
        )

    def to_dict(self) -> dict[str, Any]:
        """The per-trace JSON form (report_version 1)."""
        ordered = sorted(self.findings, key=lambda f: -SEVERITY_RANK[f.severity])
        return {
            "path": self.path,
            "format": self.format,
            "exit_code": self.exit_code,
            "readable": self.readable,
            "intact": self.intact,
            "rerunnable": self.rerunnable,
            "trace_id": self.trace_id,
            "outcome": self.outcome,
            "demonstration": self.demonstration,
            "finding_digests": list(self.finding_digests),
            "replay": self.replay,
            "harness": self.harness,
            "findings": [f.as_dict() for f in ordered],
            "completeness": [row.as_dict() for row in self.completeness],
            **({"episodes": [e.as_dict() for e in self.episodes]} if self.episodes else {}),
        }


def with_episodes(trace: dict[str, Any]) -> dict[str, Any]:
    """The report's JSON form with ``episodes`` (docs/formats.md, "Using it from the command
    line"): an imported file has its own; a readable AgentGuard or harness trace is one episode
    holding the trace's completeness; an unreadable or not-intact file has none. Added where
    the report is rendered, so the per-file result workers return keeps its former shape."""
    if "episodes" in trace:
        return trace
    whole = trace["readable"] and trace["intact"] is not False
    label = episode_label(str(trace["trace_id"])) if trace.get("trace_id") else "0"
    single = {"id": label, "completeness": trace["completeness"], "findings": []}
    return {**trace, "episodes": [single] if whole else []}
