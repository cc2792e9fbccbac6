"""A summary across the audited traces of a campaign (docs/audit.md, "Campaign summary").

Pure, and streaming: :class:`Tally` takes each trace's :class:`AuditReport` as it arrives and
keeps counters and digests only (never a trace's findings, messages or evidence), so a campaign
of any size holds a few counters per format, field and finding code, plus one digest per trace
that records a hit or a finding. It answers what a reviewer asks of a campaign: how many traces
could a colleague rerun, how many are intact and consistent, whose verdict follows from the
evidence, which evidence fields are missing most, and how many distinct demonstrations the
recorded hits stand for (identical payload digests are one demonstration, however many traces
repeat it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TypeVar

import msgspec

from tracekit.judging.audit.consistency import CONSISTENCY_CODES
from tracekit.judging.audit.model import AuditReport, FieldStatus
from tracekit.kernel.errors import Code, ExitCode, Severity, worst

REPRODUCED = frozenset({Code.REPLAY_EXACT, Code.AUDIT_OUTCOME_REPRODUCED})
NOT_REPRODUCED = frozenset(
    {Code.REPLAY_SEMANTIC, Code.REPLAY_DIVERGENT, Code.AUDIT_OUTCOME_MISMATCH}
)
HIT_OUTCOMES = frozenset({"FAIL", "fail", "hit", "failure"})
"""Recorded outcomes that claim the attack or policy violation happened."""
SHOWN_DIGEST = 16
TABLES = 256
"""Distinct completeness tables a tally holds, each with its count, before it counts them field
by field: the traces of a campaign mostly repeat a few tables, and one table counted n times is
one pass over its rows instead of n."""
K = TypeVar("K", str, tuple[str, str])


class FormatRow(msgspec.Struct, frozen=True):
    """Per format: files, episodes, intact (formats with integrity data), readable, rerunnable."""

    traces: int
    episodes: int
    intact: int
    readable: int
    rerunnable: int


class PolicyRow(msgspec.Struct, frozen=True):
    """With ``--scenario``, per format and scenario: the episodes judged and failed, and those
    where the tool's own verdict disagrees with the scenario's (``audit.outcome_mismatch``)."""

    episodes: int
    failed: int
    disagreements: int = 0


class ExitCounts(msgspec.Struct, frozen=True):
    """Traces per exit code; JSON keys ``"0"``, ``"1"``, ``"2"``."""

    ok: int = msgspec.field(name="0")
    findings: int = msgspec.field(name="1")
    error: int = msgspec.field(name="2")


class SeverityCounts(msgspec.Struct, frozen=True):
    """Findings per severity over every trace."""

    error: int
    warning: int
    notice: int
    info: int


class FieldGap(msgspec.Struct, frozen=True):
    """One evidence field of one format, counted over the traces that lack it."""

    format: str
    field: str
    missing: int
    partial: int
    not_carried: int
    present: int
    needed_to_rerun: bool


class Repeated(msgspec.Struct, frozen=True):
    """A demonstration digest (its first 16 hex digits) that several traces share."""

    digest: str
    traces: int


class Demonstrations(msgspec.Struct, frozen=True):
    traces_recording_a_hit: int
    distinct_demonstrations: int
    repeated: tuple[Repeated, ...]
    recorded_findings: int
    distinct_recorded_findings: int


class CampaignSummary(msgspec.Struct, frozen=True):
    """The campaign summary (JSON ``summary``). The mappings are keyed by our own names only:
    format names, scenario ids as ``display_path`` shows them, finding codes."""

    total: int
    skipped_non_trace_files: int
    formats: dict[str, int]
    by_format: dict[str, FormatRow]
    by_policy: dict[str, dict[str, PolicyRow]]
    episodes: int
    exit_codes: ExitCounts
    unreadable: int
    intact: int
    not_intact: int
    no_integrity_mechanism: int
    consistent: int
    verdict_reproduced: int
    verdict_not_reproduced: int
    rerunnable: int
    not_rerunnable: int
    findings_by_severity: SeverityCounts
    traces_by_finding_code: dict[str, int]
    fields_missing_most: tuple[FieldGap, ...]
    demonstrations: Demonstrations


class Tally:
    """The campaign summary, counted one report at a time (:meth:`add`), then :meth:`summary`.

    Memory: counters bounded by the formats, fields, scenarios and codes seen, plus the
    demonstration digest of each trace recording a hit and the recorded-finding digests
    (distinct ones held once)."""

    def __init__(self) -> None:
        self.total = 0
        self.exit = ExitCode.OK
        self._exits: Counter[int] = Counter()
        self._count: Counter[str] = Counter()
        self._severity: Counter[Severity] = Counter()
        self._codes: Counter[str] = Counter()
        self._by_format: dict[str, Counter[str]] = {}
        self._by_policy: dict[tuple[str, str], Counter[str]] = {}
        self._gaps: dict[tuple[str, str], Counter[str]] = {}
        self._rerun: dict[tuple[str, str], bool] = {}
        self._tables: dict[tuple[str, tuple[FieldStatus, ...]], list[int]] = {}
        """Each distinct (format, completeness) not yet counted: [times seen, last trace]."""
        self._hits: Counter[str] = Counter()
        self._recorded = 0
        self._distinct_recorded: set[str] = set()

    def add(self, report: AuditReport, episodes: int | None = None) -> None:
        """Count one trace's report (episodes as :func:`~tracekit.judging.audit.model.with_episodes`
        gives them: an AgentGuard or harness trace is one); ``episodes``, their count when the
        report comes without them (spooled one at a time: cli/audit_spool.py)."""
        count_episodes = len(report.episodes) if episodes is None else episodes
        self.total += 1
        self.exit = worst(self.exit, report.exit_code)
        self._exits[report.exit_code] += 1
        codes: set[Code] = set()
        serious: set[Code] = set()
        severity = self._severity
        for f in report.findings:
            codes.add(f.code)
            severity[f.severity] += 1
            if f.severity is not Severity.INFO:
                serious.add(f.code)
        traces = self._codes
        for code in serious:
            traces[code.value] += 1
        count = self._count
        count["unreadable"] += not report.readable
        count["intact"] += report.intact is True
        count["not_intact"] += report.intact is False
        count["no_integrity"] += report.readable and report.intact is None
        count["consistent"] += report.intact is True and not codes & CONSISTENCY_CODES
        count["reproduced"] += bool(codes & REPRODUCED)
        count["not_reproduced"] += bool(codes & NOT_REPRODUCED)
        count["rerunnable"] += report.rerunnable
        count["episodes"] += count_episodes
        row = self._by_format.get(report.format)
        if row is None:
            row = self._by_format[report.format] = Counter()
        row["traces"] += 1
        row["episodes"] += count_episodes
        row["intact"] += report.intact is True
        row["readable"] += report.readable
        row["rerunnable"] += report.rerunnable
        table = (report.format, report.completeness)
        seen = self._tables.get(table)
        if seen is None:
            if len(self._tables) >= TABLES:
                self._count_tables()
            self._tables[table] = [1, self.total]
        else:
            seen[0] += 1
            seen[1] = self.total
        self._policy(report)
        if report.outcome in HIT_OUTCOMES and report.demonstration:
            self._hits[report.demonstration] += 1
        self._recorded += len(report.finding_digests)
        self._distinct_recorded.update(report.finding_digests)

    def merge(self, other: Tally) -> None:
        """Add the counts of ``other``, a tally of the reports that came after this one's (a
        worker's batch, docs/cli.md "Executors"): the result is the tally of both runs of
        reports, in order, counter for counter."""
        self._count_tables()
        other._count_tables()
        self.total += other.total
        self.exit = worst(self.exit, other.exit)
        self._exits.update(other._exits)
        self._count.update(other._count)
        self._severity.update(other._severity)
        self._codes.update(other._codes)
        self._hits.update(other._hits)
        _merge_rows(self._by_format, other._by_format)
        _merge_rows(self._by_policy, other._by_policy)
        _merge_rows(self._gaps, other._gaps)
        self._rerun.update(other._rerun)
        self._recorded += other._recorded
        self._distinct_recorded |= other._distinct_recorded

    def _policy(self, report: AuditReport) -> None:
        """With ``--scenario`` (docs/findings.md, "Campaigns"): a harness trace is one episode
        judged, failed when its scenario result is ``fail``."""
        policy = report.harness
        if policy is None:
            return
        row = self._by_policy.setdefault((report.format, policy.scenario_id), Counter())
        judged, failed = policy.episodes_judged, policy.episodes_failed
        row["episodes"] += 1 if judged is None else judged
        row["failed"] += (policy.result == "fail") if failed is None else failed
        row["disagreements"] += sum(1 for f in report.findings if f.code == Code.AUDIT_OUTCOME_MISMATCH)

    def _count_tables(self) -> None:
        """Count the held completeness tables field by field, the one seen last counted last
        (so a field's ``needed_to_rerun`` is the last trace's, as when counted trace by trace)."""
        gaps, rerun = self._gaps, self._rerun
        for (fmt, rows), (times, _) in sorted(self._tables.items(), key=lambda item: item[1][1]):
            for field in rows:
                key = (fmt, field.field)
                counts = gaps.get(key)
                if counts is None:
                    counts = gaps[key] = Counter()
                counts[field.status] += times
                rerun[key] = field.needed_to_rerun
        self._tables.clear()

    def __getstate__(self) -> dict[str, object]:
        """Pickled (a worker's batch, docs/cli.md "Executors") as counters only."""
        self._count_tables()
        return self.__dict__

    def _fields_missing_most(self) -> tuple[FieldGap, ...]:
        gaps = [
            FieldGap(fmt, name, c["missing"], c["partial"], c["not_carried"], c["present"], self._rerun[(fmt, name)])
            for (fmt, name), c in self._gaps.items()
            if c["missing"] or c["partial"] or c["not_carried"]
        ]
        return tuple(
            sorted(gaps, key=lambda g: (-(g.missing + g.partial), -g.not_carried, g.format, g.field))
        )

    def _demonstrations(self) -> Demonstrations:
        ranked = sorted(self._hits.items(), key=lambda item: (-item[1], item[0]))
        return Demonstrations(
            traces_recording_a_hit=sum(self._hits.values()),
            distinct_demonstrations=len(self._hits),
            repeated=tuple(Repeated(d[:SHOWN_DIGEST], n) for d, n in ranked if n > 1),
            recorded_findings=self._recorded,
            distinct_recorded_findings=len(self._distinct_recorded),
        )

    def summary(self, skipped: int = 0) -> CampaignSummary:
        """The summary so far; ``skipped`` counts files found in folders that are not traces."""
        self._count_tables()
        count, severity = self._count, self._severity
        formats = sorted(self._by_format.items())
        by_policy: dict[str, dict[str, PolicyRow]] = {}
        for (fmt, scenario), row in sorted(self._by_policy.items()):
            by_policy.setdefault(fmt, {})[scenario] = PolicyRow(row["episodes"], row["failed"], row["disagreements"])
        return CampaignSummary(
            total=self.total,
            skipped_non_trace_files=skipped,
            formats={fmt: row["traces"] for fmt, row in formats},
            by_format={
                fmt: FormatRow(row["traces"], row["episodes"], row["intact"], row["readable"], row["rerunnable"])
                for fmt, row in formats
            },
            by_policy=by_policy,
            episodes=count["episodes"],
            exit_codes=ExitCounts(self._exits[0], self._exits[1], self._exits[2]),
            unreadable=count["unreadable"],
            intact=count["intact"],
            not_intact=count["not_intact"],
            no_integrity_mechanism=count["no_integrity"],
            consistent=count["consistent"],
            verdict_reproduced=count["reproduced"],
            verdict_not_reproduced=count["not_reproduced"],
            rerunnable=count["rerunnable"],
            not_rerunnable=self.total - count["rerunnable"],
            findings_by_severity=SeverityCounts(
                severity[Severity.ERROR], severity[Severity.WARNING], severity[Severity.NOTICE], severity[Severity.INFO]
            ),
            traces_by_finding_code=dict(sorted(self._codes.items(), key=lambda i: (-i[1], i[0]))),
            fields_missing_most=self._fields_missing_most(),
            demonstrations=self._demonstrations(),
        )


def _merge_rows(rows: dict[K, Counter[str]], more: dict[K, Counter[str]]) -> None:
    """Add ``more``'s counters to ``rows``, key by key (new keys after the ones held, in
    ``more``'s order: first seen first, as one tally of both would have met them)."""
    for key, row in more.items():
        rows.setdefault(key, Counter()).update(row)


def summarise(reports: Iterable[AuditReport], skipped: int = 0) -> CampaignSummary:
    """The campaign summary of ``reports`` (a :class:`Tally` over them)."""
    tally = Tally()
    for report in reports:
        tally.add(report)
    return tally.summary(skipped)
