"""Audit a file of an imported format (Inspect, OTel, AgentDojo, garak) from its evidence
(docs/audit.md, "Tool-using agent traces"; docs/formats.md, "Completeness per episode").

Pure: takes the :class:`~tracekit.kernel.evidence.EvidenceFile` an importer produced. Per episode: the
tool-using completeness profile (``assess_episode``), the evidence consistency rules
(``tracekit.judging.findings.consistency.check_episode``) and the episode's gap findings. Per file: the
no-integrity note, one note per exporter loss that applies, the gap findings of the file's
completeness (each field's worst status over its episodes, the episodes lacking it named), and
every episode's consistency findings located at ``episodes[i]``, so they reach the exit code.
With a scenario (``audit --scenario``), its policies are judged on every episode, as
``tracekit check`` does (strict: docs/cli.md, "Verdicts and modes"), and the tools' own verdicts are compared with them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from tracekit.formats.base import EpisodeStream, in_order
from tracekit.judging.audit.completeness.base import indexed
from tracekit.judging.audit.completeness.episode import FIELDS, LOSS_FIELDS, assess_episode
from tracekit.judging.audit.model import (
    AuditFinding,
    AuditReport,
    EpisodeAudit,
    FieldStatus,
    Format,
    PolicyEpisode,
    ScenarioSummary,
    audit_report,
    by_severity,
    gap_findings,
    located,
    note,
)
from tracekit.judging.findings.consistency import check_episode
from tracekit.judging.findings.judge import EpisodeVerdict, judge_episode
from tracekit.judging.harness.model import FAIL, aggregate
from tracekit.judging.harness.scenario import Scenario
from tracekit.kernel.episode_id import episode_label
from tracekit.kernel.errors import Code, Finding
from tracekit.kernel.evidence import Episode, EvidenceFile, RunProblem, Status

IMPORTED: frozenset[str] = frozenset({"inspect", "otel", "agentdojo", "garak", "claude_code", "codex", "atif"})
OUTCOME_WORDS = frozenset({"pass", "fail", "PASS", "FAIL", "error", "hit", "failure", "success"})
"""Recorded outcomes shown and stored as they are; any other outcome text is input, left out."""


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


def audit_episode(episode: Episode, fmt: str) -> tuple[EpisodeAudit, tuple[Finding, ...]]:
    """One episode of an imported file, the one conversion ``audit`` and the campaign store
    share (docs/audit.md, "Tool-using agent traces"): the completeness profile, the evidence
    consistency findings (located at ``episode``) and the gap findings; and the consistency
    findings alone, for the file to locate at ``episodes[i]``."""
    rows = assess_episode(episode, fmt)
    consistency = tuple(check_episode(episode))
    mine = [located(f, "episode") for f in consistency] + gap_findings(rows)
    audited = EpisodeAudit(episode_label(episode.id), rows, by_severity(mine))
    return audited, consistency


def recorded_outcome(episode: Episode) -> str | None:
    """The episode's recorded outcome when it is one of :data:`OUTCOME_WORDS`, else None."""
    outcome = episode.facts.outcome
    return outcome if outcome in OUTCOME_WORDS else None


class _Audited(NamedTuple):
    """What the file's audit keeps of one episode (its evidence is let go as the file is read)."""

    audit: EpisodeAudit
    consistency: tuple[Finding, ...]
    losses: frozenset[str]
    outcome: str | None
    verdict: EpisodeVerdict | None


def _audited(episode: Episode, fmt: str, scenario: Scenario | None, strict: bool) -> _Audited:
    audited, consistency = audit_episode(episode, fmt)
    # Loss names are the evidence model's vocabulary; anything else is not repeated.
    losses = frozenset(loss if loss in LOSS_FIELDS else "unnamed" for loss in episode.losses)
    verdict = None if scenario is None else judge_episode(scenario, episode, strict)
    return _Audited(audited, consistency, losses, recorded_outcome(episode), verdict)


def _policy(
    verdicts: Sequence[EpisodeVerdict], scenario: Scenario, strict: bool = True
) -> tuple[ScenarioSummary, list[AuditFinding]]:
    """The scenario's policies on every episode (docs/findings.md): how many episodes were judged
    and failed, and each tool verdict set beside the policy's (a disagreement is a warning)."""
    summary = ScenarioSummary(
        scenario_id=scenario.id,
        result=aggregate(v.result for v in verdicts),
        strict=strict,
        episodes_judged=len(verdicts),
        episodes_failed=sum(1 for v in verdicts if v.result == FAIL),
        episodes=tuple(
            PolicyEpisode(
                episode_label(v.episode),
                v.result,
                tuple(a.id for a in v.assertions if a.result == FAIL),
            )
            for v in verdicts
        ),
    )
    found: list[AuditFinding] = []
    for index, verdict in enumerate(verdicts):
        if verdict.tool_verdicts and all(t.agreement == "no_verdict" for t in verdict.tool_verdicts):
            continue
        if verdict.disagrees:
            found.append(note(Code.AUDIT_OUTCOME_MISMATCH, where=f"episodes[{index}]"))
        elif verdict.tool_verdicts:
            found.append(note(Code.AUDIT_OUTCOME_REPRODUCED, where=f"episodes[{index}]"))
    return summary, found


_RUN_STATUS = frozenset({"error", "cancelled", "started", "unknown"})
_RUN_WHERE = frozenset({"results", "eval entries", "status", "summaries"})


def run_findings(fmt: str, problems: Sequence[RunProblem]) -> list[AuditFinding]:
    """One error finding per run-level problem the importer recorded (docs/formats.md, "Run
    status"): a run that did not finish or whose totals disagree with its records is evidence,
    never a clean or rerunnable file."""
    found: list[AuditFinding] = []
    for problem in problems:
        where = problem.where if problem.where in _RUN_WHERE else "file"
        claimed, held = problem.claimed or 0, problem.held or 0
        if problem.kind == "not_finished":
            status = problem.status if problem.status in _RUN_STATUS else "unknown"
            found.append(note(Code.AUDIT_RUN_NOT_FINISHED, format=fmt, status=status))
        elif problem.kind == "samples_missing":
            found.append(note(Code.AUDIT_RUN_SAMPLES_MISSING, where=where, format=fmt, claimed=claimed, held=held))
        else:
            found.append(note(Code.AUDIT_RUN_TOTALS_CONTRADICT, where=where, format=fmt, claimed=claimed, held=held))
    return found


def audit_evidence(
    path: str, evidence: EvidenceFile | EpisodeStream, scenario: Scenario | None = None, *, strict: bool = True
) -> AuditReport:
    """Audit one imported file; ``intact`` is None (the formats carry no integrity data). With
    ``scenario``, its policies are judged on every episode (``harness`` in the report), in strict
    mode unless told otherwise (docs/cli.md, "Verdicts and modes"). From a stream, each episode
    is audited as it is read and only its audit kept (docs/formats.md, "Streaming episodes")."""
    stream = evidence if isinstance(evidence, EpisodeStream) else EpisodeStream.whole(evidence)
    kept = in_order((key, _audited(e, stream.format, scenario, strict)) for key, e in stream.pairs)
    fmt: Format = stream.format if stream.format in IMPORTED else "unknown"  # type: ignore[assignment]
    findings = [note(Code.AUDIT_FORMAT_NO_INTEGRITY, format=stream.format)]
    losses = sorted(frozenset[str]().union(*(one.losses for one in kept)))
    findings += [note(Code.AUDIT_EXPORTER_LOSS, format=stream.format, loss=loss) for loss in losses]
    findings += run_findings(fmt, stream.run_problems)
    for index, one in enumerate(kept):
        findings += [located(f, f"episodes[{index}]") for f in one.consistency]
    rows = _combined([one.audit.completeness for one in kept]) if kept else ()
    findings += gap_findings(rows)
    harness = None
    if scenario is not None:
        harness, compared = _policy([one.verdict for one in kept if one.verdict is not None], scenario, strict)
        findings += compared
    return audit_report(
        path,
        fmt,
        readable=True,
        intact=None,
        findings=findings,
        completeness=rows,
        outcome=kept[0].outcome if len(kept) == 1 else None,
        episodes=tuple(one.audit for one in kept),
        harness=harness,
    )
