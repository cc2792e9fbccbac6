"""The HTML report's page, folded one input file at a time (docs/report.md).

Paths are the user's, but a campaign folder's file names are not: every path is shown through
:func:`~tracekit.report.text.display_path` (non-printable characters and undecodable bytes
escaped) before the templates escape it as HTML.

:class:`PageBuilder` takes each file's typed results from the existing pipelines (the audit's
:class:`~tracekit.judging.audit.model.AuditReport`, the file's evidence, ``check``'s episode verdicts,
the bundle verifier's report) and keeps only the bounded, folded page: memory holds at most
:data:`FILE_LIMIT` file rows and :data:`EPISODE_LIMIT` episode sections, never a file's evidence.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from tracekit.judging.audit.model import AuditReport, EpisodeAudit
from tracekit.judging.findings.judge import EpisodeVerdict
from tracekit.kernel.errors import Code
from tracekit.kernel.evidence import EvidenceFile
from tracekit.report.bundle_render import BundleCheck
from tracekit.report.html import model
from tracekit.report.html.episode import completeness_rows, finding_rows, spend, verdict_parts
from tracekit.report.html.fold import Budget, name
from tracekit.report.html.trace_fold import Held, Judge, TraceFold
from tracekit.report.text import display_path

FILE_LIMIT = 10_000
"""Most files the overview lists one by one; the rest are counted by kind."""
EPISODE_LIMIT = 100
"""Most episode sections one report holds; later episodes are listed in the overview only."""
LINK_LIMIT = 50
"""Most episode links one file row holds."""
BUNDLE_LIMIT = 100
"""Most bundle sections one report holds; later bundles are listed in the overview only."""
WITHHELD_LIMIT = 1000
"""Most withheld blobs one bundle section lists; the rest are counted."""
BAR_WIDTH = 400

Judged = Mapping[str, EpisodeVerdict | Code]


def integrity(audit: AuditReport) -> str:
    """The file's integrity status in our words."""
    if not audit.readable:
        return "unreadable"
    if audit.intact is None:
        return "no integrity data in this format"
    return "intact (hash chain verified)" if audit.intact else "NOT intact"


class PageBuilder:
    """The report, folded in file by file; :meth:`page` returns it."""

    def __init__(self, scenario: str | None, strict: bool) -> None:
        self.scenario, self.strict = scenario, strict
        self.budget = Budget()
        self.files: list[model.File] = []
        self.episodes: list[model.Episode] = []
        self.bundles: list[model.Bundle] = []
        self.kinds: Counter[str] = Counter()
        self.formats: Counter[str] = Counter()
        self.results: Counter[str] = Counter()
        self.policies: Counter[str] = Counter()
        """Episodes not passing, per assertion (policy) id and result."""
        self.files_folded = self.episodes_folded = self.bundles_folded = 0
        self.disagreements = self.timeline_folded = 0
        self.exit_code = 0

    def _anchor(self) -> str:
        """The next file row's anchor; empty when the row will not be listed (no link to it)."""
        return f"f{len(self.files) + 1}" if len(self.files) < FILE_LIMIT else ""

    def _add_file(self, row: model.File) -> None:
        self.kinds[row.kind] += 1
        if row.exit_code is not None:
            self.exit_code = max(self.exit_code, row.exit_code)
        if len(self.files) < FILE_LIMIT:
            self.files.append(row)
        else:
            self.files_folded += 1

    def skipped(self, path: str) -> None:
        """A walked file that no format accepts: listed, not judged."""
        self._add_file(model.File(self._anchor(), display_path(path), "skipped", "-", None, "-", "no format accepts it (not a trace)"))

    def fold(self, judge: Judge | None) -> TraceFold:
        """A fold for the next trace's episodes, as they are read: :meth:`folded` takes it once
        the file's audit is made. ``judge``: ``check``'s verdict of an episode, with a scenario."""
        return TraceFold(max(0, EPISODE_LIMIT - len(self.episodes)), self.budget.limit, judge)

    def trace(self, audit: AuditReport, evidence: EvidenceFile | None, judged: Judged) -> None:
        """One trace read whole: its audit, its evidence (None when unreadable) and ``check``'s
        verdicts by episode id; an episode's audit is the last of its label, else the one at its
        place when the audit holds as many episodes as the evidence."""
        if evidence is None:
            self.folded(audit, None)
            return
        fold = self.fold((lambda episode: judged[episode.id]) if judged else None)
        parts = audit.episodes if len(audit.episodes) == len(evidence.episodes) else None
        for position, episode in enumerate(evidence.episodes):
            fold.add(position, episode, None if parts is None else parts[position])
        self.folded(audit, fold, {e.id: e for e in audit.episodes})

    def folded(self, audit: AuditReport, fold: TraceFold | None, audits: Mapping[str, EpisodeAudit] | None = None) -> None:
        """One trace: its audit and its episodes as ``fold`` kept them (None: no evidence read).
        ``audits``: each label's episode audit, when the report holds them (else the fold's)."""
        anchor = self._anchor()
        self.formats[audit.format] += 1
        first = audit.findings[0] if audit.findings and audit.exit_code == 2 else None
        reason = f"{first.code.value}: {first.message}" if first is not None else ""
        kind = "trace" if audit.readable else "unreadable"
        links: list[tuple[str, str]] = []
        total = 0
        if fold is not None:
            total = fold.count
            self.disagreements += fold.tally(self.results, self.policies)
            sections = fold.sections(audits)
            self.episodes_folded += total - len(sections)
            for held, part, verdict in sections:
                section = self._episode(anchor, audit, held, part, verdict)
                if len(links) < LINK_LIMIT:
                    links.append((section.anchor, section.label))
        self._add_file(
            model.File(anchor, display_path(audit.path), kind, audit.format, audit.exit_code, integrity(audit), reason,
                       tuple(links), total)
        )

    def _episode(
        self, anchor: str, audit: AuditReport, held: Held, part: EpisodeAudit | None, judged: EpisodeVerdict | Code | None,
    ) -> model.Episode:
        assertions: tuple[model.Assertion, ...] = ()
        chains: tuple[model.Chain, ...] = ()
        tools: tuple[model.ToolVerdict, ...] = ()
        result: str | None = None
        refused: str | None = None
        if isinstance(judged, Code):
            result, refused = "error", judged.value
        elif judged is not None:
            assertions, chains, tools = verdict_parts(judged)
            result = judged.result
        else:  # no scenario: the tool's own verdicts, with no policy verdict to compare them to
            tools = held.tools
        self.timeline_folded += held.folded
        found = list(part.findings) if part is not None and part.findings else list(audit.findings)
        section = model.Episode(
            f"e{len(self.episodes) + 1}", anchor, display_path(audit.path), held.label, audit.format, held.counts, result,
            refused, assertions, chains, tools, any(t.agreement == "disagree" for t in tools), completeness_rows(part),
            finding_rows(found), spend(held.timeline, self.budget), held.folded,
        )
        self.episodes.append(section)
        return section

    def bundle(self, check: BundleCheck) -> None:
        """One sealed bundle: its verification, signers and withheld blobs."""
        anchor = self._anchor()
        signature = _signature(check)
        self.formats["bundle"] += 1
        reason = check.findings[0].code if check.findings and check.exit_code == 2 else ""
        if len(self.bundles) >= BUNDLE_LIMIT:
            self.bundles_folded += 1
            self._add_file(model.File(anchor, display_path(check.path), "bundle", "bundle", check.exit_code, signature, reason))
            return
        section = f"b{len(self.bundles) + 1}"
        withheld = tuple(model.Row(w.digest, str(w.length), w.reason) for w in check.withheld[:WITHHELD_LIMIT])
        findings = tuple(model.Row(f.code, f.severity, str(f.line or "-"), f.message) for f in check.findings)
        self.bundles.append(model.Bundle(
            section, display_path(check.path), check.exit_code, check.kind or "-", check.root or "-", check.records, check.blobs,
            ", ".join(check.formats) or "-", signature, check.signers, check.trusted_signers, withheld,
            len(check.withheld), findings,
        ))
        self._add_file(
            model.File(anchor, display_path(check.path), "bundle", "bundle", check.exit_code, signature, reason, ((section, "bundle"),))
        )

    def page(self, notes: tuple[str, ...] = ()) -> model.Page:
        """The report as it stands."""
        return model.Page(
            "tracekit report", self.exit_code, self.scenario, self.strict, self._summary(), self._charts(),
            tuple(self.files), self.files_folded, tuple(self.bundles), tuple(self.episodes),
            self.episodes_folded, (*notes, *self._notes()),
        )

    def _summary(self) -> tuple[model.Row, ...]:
        total = len(self.files) + self.files_folded
        rows = [model.Row("files", str(total), "")]
        rows += [model.Row(f"{kind} files", str(n), "") for kind, n in sorted(self.kinds.items())]
        rows.append(model.Row("episodes", str(len(self.episodes) + self.episodes_folded), ""))
        if self.scenario is not None:
            rows.append(model.Row("episodes where the tool's own verdict disagrees with ours", str(self.disagreements), ""))
        return tuple(rows)

    def _charts(self) -> tuple[model.Chart, ...]:
        charts = [_chart("Files per format", self.formats)]
        if self.scenario is not None:
            charts.append(_chart("Episodes per policy result", self.results))
            charts.append(_chart("Episodes not passing, per policy assertion", self.policies))
        return tuple(charts)

    def _notes(self) -> list[str]:
        notes = []
        if self.files_folded:
            notes.append(f"{self.files_folded} file(s) beyond the first {FILE_LIMIT} are counted, not listed.")
        if self.episodes_folded:
            notes.append(f"{self.episodes_folded} episode(s) beyond the first {EPISODE_LIMIT} have no section.")
        if self.bundles_folded:
            notes.append(f"{self.bundles_folded} bundle(s) beyond the first {BUNDLE_LIMIT} have no section.")
        if self.timeline_folded:
            notes.append(f"{self.timeline_folded} timeline entr(ies) left out (each episode shows its first and last 100).")
        if self.budget.cut:
            notes.append(f"{self.budget.cut} text(s) shown in part: each shows its full size.")
        return notes


def _signature(check: BundleCheck) -> str:
    if check.trusted_signers:
        return f"signed by {len(check.trusted_signers)} trusted key(s)"
    if check.signers:
        return "valid signature, but by no trusted key (pass --trusted-key)"
    if check.exit_code == 2:
        return "not verified (see the bundle's findings)"
    return "unsigned"


def _chart(title: str, counts: Counter[str]) -> model.Chart:
    top = max(counts.values(), default=0)
    bars = tuple(
        model.Bar(name(label), count, max(1, count * BAR_WIDTH // top) if top else 0, 24 * i)
        for i, (label, count) in enumerate(sorted(counts.items()))
    )
    return model.Chart(title, bars, max(24, 24 * len(bars)))
