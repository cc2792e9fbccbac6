"""Audit a file of an imported format (Inspect, OTel, AgentDojo, garak) from its evidence
(docs/audit.md, "Tool-using agent traces"; docs/formats.md, "Completeness per episode").

Pure: takes the :class:`~tracekit.evidence.EvidenceFile` an importer produced. Per episode: the
tool-using completeness profile (``assess_episode``), the evidence consistency rules
(``tracekit.findings.consistency.check_episode``) and the episode's gap findings. Per file: the
no-integrity note, one note per exporter loss that applies, the gap findings of the file's
completeness (each field's worst status over its episodes, the episodes lacking it named), and
every episode's consistency findings located at ``episodes[i]``, so they reach the exit code.
"""

from __future__ import annotations

from collections.abc import Sequence

from tracekit.audit.completeness.base import indexed
from tracekit.audit.completeness.episode import FIELDS, LOSS_FIELDS, assess_episode
from tracekit.audit.model import (
    AuditFinding,
    AuditReport,
    EpisodeAudit,
    FieldStatus,
    Format,
    Status,
    episode_label,
    gap_findings,
    note,
)
from tracekit.errors import Code
from tracekit.evidence import Episode, EvidenceFile
from tracekit.findings.consistency import check_episode

IMPORTED: frozenset[str] = frozenset({"inspect", "otel", "agentdojo", "garak"})


def _combined(per_episode: Sequence[tuple[FieldStatus, ...]]) -> tuple[FieldStatus, ...]:
    """One row per field over every episode: the status every episode shares, else ``partial``
    (``missing`` when no episode has any of it), located at the episodes that lack it."""
    rows: list[FieldStatus] = []
    for column, spec in enumerate(FIELDS):
        cells = [episode_rows[column] for episode_rows in per_episode]
        statuses = {cell.status for cell in cells}
        status: Status
        if len(statuses) == 1:
            status = cells[0].status
            where = cells[0].where if len(cells) == 1 else f"every episode: {cells[0].where}"
        else:
            status = "partial" if statuses & {"present", "partial"} else "missing"
            where = indexed("episodes", [i for i, cell in enumerate(cells) if cell.status != "present"])
        rows.append(FieldStatus(spec.name, status, where, spec.needed_to_rerun))
    return tuple(rows)


def _episode(index: int, episode: Episode, fmt: str) -> tuple[EpisodeAudit, list[AuditFinding]]:
    rows = assess_episode(episode, fmt)
    consistency = check_episode(episode)
    mine = [AuditFinding(f, "episode") for f in consistency] + gap_findings(rows)
    at_file = [AuditFinding(f, f"episodes[{index}]") for f in consistency]
    return EpisodeAudit(episode_label(episode.id), rows, tuple(mine)), at_file


def _outcome(episodes: Sequence[Episode]) -> str | None:
    if len(episodes) != 1:
        return None
    facts = episodes[0].facts
    if facts.outcome is not None:
        return facts.outcome
    return None


def audit_evidence(path: str, evidence: EvidenceFile) -> AuditReport:
    """Audit one imported file; ``intact`` is None (the formats carry no integrity data)."""
    fmt: Format = evidence.format if evidence.format in IMPORTED else "unknown"  # type: ignore[assignment]
    findings = [note(Code.AUDIT_FORMAT_NO_INTEGRITY, format=evidence.format)]
    # Loss names are the evidence model's vocabulary; anything else is not repeated.
    losses = sorted(
        {loss if loss in LOSS_FIELDS else "unnamed" for e in evidence.episodes for loss in e.losses}
    )
    findings += [note(Code.AUDIT_EXPORTER_LOSS, format=evidence.format, loss=loss) for loss in losses]
    episodes: list[EpisodeAudit] = []
    per_episode: list[tuple[FieldStatus, ...]] = []
    for index, episode in enumerate(evidence.episodes):
        audited, at_file = _episode(index, episode, evidence.format)
        episodes.append(audited)
        per_episode.append(audited.completeness)
        findings += at_file
    rows = _combined(per_episode) if per_episode else ()
    findings += gap_findings(rows)
    outcome = _outcome(evidence.episodes)
    return AuditReport(
        path=path,
        format=fmt,
        readable=True,
        intact=None,
        findings=tuple(findings),
        completeness=rows,
        outcome=outcome if outcome in _OUTCOME_WORDS else None,
        episodes=tuple(episodes),
    )


_OUTCOME_WORDS = frozenset({"pass", "fail", "PASS", "FAIL", "error", "hit", "failure", "success"})
"""Recorded outcomes shown as they are; any other outcome text is input and left out."""
