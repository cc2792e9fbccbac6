"""Audit a file of an imported format (Inspect, OTel, AgentDojo, garak) from its evidence
(docs/audit.md, "Tool-using agent traces"; docs/formats.md, "Completeness per episode").

Pure: takes the :class:`~tracekit.kernel.evidence.EvidenceFile` an importer produced. Per episode: the
tool-using completeness profile (``assess_episode``), the evidence consistency rules
(``tracekit.judging.findings.consistency.check_episode``) and the episode's gap findings, made
once per distinct completeness summary and consistency findings (a file's episodes repeat a few). Per file: the
no-integrity note, one note per exporter loss that applies, the gap findings of the file's
completeness (each field's worst status over its episodes, the episodes lacking it named), and
every episode's consistency findings located at ``episodes[i]``, so they reach the exit code.
With a scenario (``audit --scenario``), its policies are judged on every episode, as
``tracekit check`` does (strict: docs/cli.md, "Verdicts and modes"), and the tools' own verdicts are compared with them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, NamedTuple

import msgspec

from tracekit.formats.base import EpisodeStream
from tracekit.judging.audit.completeness.base import INDEXED, indexed
from tracekit.judging.audit.completeness.episode import (
    FIELDS,
    LOSS_FIELDS,
    Summary,
    rows_of,
    summarise,
)
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
from tracekit.judging.harness.model import FAIL, Outcome, aggregate
from tracekit.judging.harness.scenario import Scenario
from tracekit.kernel.episode_id import episode_label
from tracekit.kernel.errors import Code, Finding
from tracekit.kernel.evidence import Episode, EvidenceFile, RunProblem, Status

IMPORTED: frozenset[str] = frozenset({"inspect", "otel", "agentdojo", "garak", "claude_code", "codex", "atif"})
OUTCOME_WORDS = frozenset({"pass", "fail", "PASS", "FAIL", "error", "hit", "failure", "success"})
"""Recorded outcomes shown and stored as they are; any other outcome text is input, left out."""


def _combined(statuses: Sequence[tuple[Status, ...]], first: tuple[FieldStatus, ...]) -> tuple[FieldStatus, ...]:
    """One row per field over every episode (``statuses``: each episode's, in the file's order;
    ``first``: the first episode's rows): the status every episode shares, else ``partial``
    (``missing`` when no episode has any of it), located at the episodes that lack it."""
    rows: list[FieldStatus] = []
    distinct = set(statuses)  # few distinct status rows, however many episodes
    for column, spec in enumerate(FIELDS):
        seen = {row[column] for row in distinct}
        status: Status
        if len(seen) == 1:
            status = first[column].status
            where = first[column].where if len(statuses) == 1 else f"every episode: {first[column].where}"
        else:
            status = "partial" if seen & {"present", "partial"} else "missing"
            where = indexed("episodes", _lacking(statuses, column))
        rows.append(FieldStatus(spec.name, status, where, spec.needed_to_rerun))
    return tuple(rows)


def _lacking(statuses: Sequence[tuple[Status, ...]], column: int) -> list[int]:
    """The first positions (enough for :func:`indexed`) whose ``column`` is not present."""
    found: list[int] = []
    for index, row in enumerate(statuses):
        if row[column] != "present":
            found.append(index)
            if len(found) > INDEXED:
                break
    return found


def audit_episode(episode: Episode, fmt: str) -> tuple[EpisodeAudit, tuple[Finding, ...]]:
    """One episode of an imported file, the one conversion ``audit`` and the campaign store
    share (docs/audit.md, "Tool-using agent traces"): the completeness profile, the evidence
    consistency findings (located at ``episode``) and the gap findings; and the consistency
    findings alone, for the file to locate at ``episodes[i]``."""
    audited, consistency, _ = _audit_parts(episode, fmt)
    return audited, consistency


class _Parts(NamedTuple):
    """What every episode with the same summary and consistency findings shares."""

    rows: tuple[FieldStatus, ...]
    findings: tuple[AuditFinding, ...]
    statuses: tuple[Status, ...]


@lru_cache(maxsize=1024)
def _parts(summary: Summary, consistency: tuple[Finding, ...]) -> _Parts:
    """An episode's rows, its findings (most severe first) and its row of statuses, from what
    decides them (a file's episodes repeat a few: each is made once; frozen, shared safely)."""
    rows = rows_of(summary)
    mine = [located(f, "episode") for f in consistency] + gap_findings(rows)
    return _Parts(rows, by_severity(mine), tuple(row.status for row in rows))


def _audit_parts(episode: Episode, fmt: str) -> tuple[EpisodeAudit, tuple[Finding, ...], tuple[Status, ...]]:
    consistency = check_episode(episode)
    rows, findings, statuses = _parts(summarise(episode, fmt), consistency)
    return EpisodeAudit(episode_label(episode.id), rows, findings), consistency, statuses


def recorded_outcome(episode: Episode) -> str | None:
    """The episode's recorded outcome when it is one of :data:`OUTCOME_WORDS`, else None."""
    outcome = episode.facts.outcome
    return outcome if outcome in OUTCOME_WORDS else None


class _Judged(NamedTuple):
    """What the file's policy summary keeps of one episode's verdict under the scenario."""

    episode: str
    result: Outcome
    failed: tuple[str, ...]
    compared: Code | None
    """``audit.outcome_mismatch`` or ``audit.outcome_reproduced``, None when not compared."""


def _judged(verdict: EpisodeVerdict) -> _Judged:
    compared: Code | None = None
    if verdict.tool_verdicts and not all(t.agreement == "no_verdict" for t in verdict.tool_verdicts):
        compared = Code.AUDIT_OUTCOME_MISMATCH if verdict.disagrees else Code.AUDIT_OUTCOME_REPRODUCED
    failed = tuple(a.id for a in verdict.assertions if a.result == FAIL)
    return _Judged(episode_label(verdict.episode), verdict.result, failed, compared)


def _policy(judged: Sequence[_Judged], scenario: Scenario, strict: bool = True) -> tuple[ScenarioSummary, list[AuditFinding]]:
    """The scenario's policies on every episode (docs/findings.md): how many episodes were judged
    and failed, and each tool verdict set beside the policy's (a disagreement is a warning)."""
    summary = ScenarioSummary(
        scenario_id=scenario.id,
        result=aggregate(j.result for j in judged),
        strict=strict,
        episodes_judged=len(judged),
        episodes_failed=sum(1 for j in judged if j.result == FAIL),
        episodes=tuple(PolicyEpisode(j.episode, j.result, j.failed) for j in judged),
    )
    found = [note(j.compared, where=f"episodes[{i}]") for i, j in enumerate(judged) if j.compared is not None]
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


EpisodeSink = Callable[[EpisodeAudit], None]
"""Takes each episode's audit as it is made, in the order the file holds the episodes."""


class _Fold:
    """What a file's audit keeps of its episodes as they stream by: per episode, its key, its
    row of statuses (one object per distinct row), its consistency findings and (with a
    scenario) its verdict's summary, each row and findings tuple held once however many episodes
    share it; over the file, the losses, the rows of the episode that comes first and the one
    outcome. Each episode's :class:`EpisodeAudit` goes to the sink."""

    def __init__(self, fmt: str, scenario: Scenario | None, strict: bool, sink: EpisodeSink) -> None:
        self.fmt, self.scenario, self.strict, self.sink = fmt, scenario, strict, sink
        self.keys: list[Any] = []
        self.statuses: list[tuple[Status, ...]] = []
        self.consistency: list[tuple[Finding, ...]] = []
        self.judged: list[_Judged] = []
        self.losses: set[str] = set()
        self.first: tuple[Any, tuple[FieldStatus, ...]] | None = None
        self.outcome: str | None = None
        self._rows: dict[tuple[Status, ...], tuple[Status, ...]] = {}
        self._found: dict[tuple[Finding, ...], tuple[Finding, ...]] = {}

    def add(self, key: Any, episode: Episode) -> None:
        audited, consistency, statuses = _audit_parts(episode, self.fmt)
        self.sink(audited)
        rows = audited.completeness
        self.keys.append(key)
        self.statuses.append(self._rows.setdefault(statuses, statuses))
        self.consistency.append(self._found.setdefault(consistency, consistency))
        # Loss names are the evidence model's vocabulary; anything else is not repeated.
        self.losses.update(loss if loss in LOSS_FIELDS else "unnamed" for loss in episode.losses)
        if self.first is None or key < self.first[0]:  # the first in the file's (stable) order
            self.first = (key, rows)
        self.outcome = recorded_outcome(episode)
        if self.scenario is not None:
            self.judged.append(_judged(judge_episode(self.scenario, episode, self.strict)))

    def order(self) -> list[int]:
        """The episodes' positions as they came, in the file's order (stable, as :func:`in_order`)."""
        keys = self.keys
        return sorted(range(len(keys)), key=keys.__getitem__)

    def findings(self, order: Sequence[int]) -> list[AuditFinding]:
        """The file's consistency findings, each located at its episode in the file's order."""
        found: list[AuditFinding] = []
        for index, arrived in enumerate(order):
            found += [located(f, f"episodes[{index}]") for f in self.consistency[arrived]]
        return found


def audit_stream(
    path: str, stream: EpisodeStream, scenario: Scenario | None, strict: bool, sink: EpisodeSink
) -> tuple[AuditReport, list[int]]:
    """:func:`audit_evidence` with each episode's audit handed to ``sink`` as it is made instead
    of kept: the report without its episodes, and the order to put the sink's episodes in (their
    positions as they came, in the file's order). Only small aggregates are kept per episode."""
    fold = _Fold(stream.format, scenario, strict, sink)
    for key, episode in stream.pairs:
        fold.add(key, episode)
    order = fold.order()
    fmt: Format = stream.format if stream.format in IMPORTED else "unknown"  # type: ignore[assignment]
    findings = [note(Code.AUDIT_FORMAT_NO_INTEGRITY, format=stream.format)]
    findings += [note(Code.AUDIT_EXPORTER_LOSS, format=stream.format, loss=loss) for loss in sorted(fold.losses)]
    findings += run_findings(fmt, stream.run_problems)
    findings += fold.findings(order)
    rows = _combined([fold.statuses[i] for i in order], fold.first[1]) if fold.first is not None else ()
    findings += gap_findings(rows)
    harness = None
    if scenario is not None:
        harness, compared = _policy([fold.judged[i] for i in order], scenario, strict)
        findings += compared
    report = audit_report(
        path,
        fmt,
        readable=True,
        intact=None,
        findings=findings,
        completeness=rows,
        outcome=fold.outcome if len(order) == 1 else None,
        harness=harness,
    )
    return report, order


def audit_evidence(
    path: str, evidence: EvidenceFile | EpisodeStream, scenario: Scenario | None = None, *, strict: bool = True
) -> AuditReport:
    """Audit one imported file; ``intact`` is None (the formats carry no integrity data). With
    ``scenario``, its policies are judged on every episode (``harness`` in the report), in strict
    mode unless told otherwise (docs/cli.md, "Verdicts and modes"). From a stream, each episode
    is audited as it is read and only its audit kept (docs/formats.md, "Streaming episodes";
    :func:`audit_stream` keeps not even that)."""
    stream = evidence if isinstance(evidence, EpisodeStream) else EpisodeStream.whole(evidence)
    kept: list[EpisodeAudit] = []
    report, order = audit_stream(path, stream, scenario, strict, kept.append)
    return msgspec.structs.replace(report, episodes=tuple(kept[i] for i in order))
