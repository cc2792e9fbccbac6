"""One trace file's episodes folded into the report as they are read (docs/report.md, "Bounds").

A reader hands episodes over in the order the file stores them, and the file's episode order
(the one sections, links and the text budget follow) is their stable order by key
(docs/formats.md, "Streaming episodes"). :class:`TraceFold` keeps, for the file, only what the
page needs once that order is known: a section's worth (:class:`Held`: its timeline with each
text held to the per-text limit) for the episodes that may yet be among the first the page has
room for, and a few words per episode id and label. No episode is kept, so memory does not grow
with the file's evidence (tests/cli/test_report_memory.py).
"""

from __future__ import annotations

from bisect import insort
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tracekit.judging.audit.model import EpisodeAudit
from tracekit.judging.findings.judge import EpisodeVerdict
from tracekit.kernel.episode_id import episode_label
from tracekit.kernel.errors import Code
from tracekit.kernel.evidence import Episode
from tracekit.report.html import model
from tracekit.report.html.episode import Pending, entries, own_verdicts, verdict_parts

Judge = Callable[[Episode], EpisodeVerdict | Code]
Order = tuple[Any, int]
"""An episode's place in the file: its key, then the position it came at (ties keep that order)."""


@dataclass(frozen=True, slots=True)
class Held:
    """What an episode's section needs, made when the episode is read."""

    id: str
    label: str
    counts: str
    timeline: tuple[Pending, ...]
    folded: int
    own: EpisodeAudit | None
    """The episode's own audit (the section's when no episode of its label comes later)."""
    tools: tuple[model.ToolVerdict, ...]
    """The tool's own verdicts (no scenario)."""
    verdict: EpisodeVerdict | Code | None
    """``check``'s verdict of this episode, when it was judged (the first of its id so far)."""


@dataclass(slots=True)
class _Verdict:
    """``check``'s verdict for one episode id: the first of its episodes in the file's order."""

    order: Order
    result: str | None
    failing: tuple[str, ...]
    disagrees: bool
    episodes: int = 0


@dataclass(slots=True)
class TraceFold:
    """Episodes in, the page's parts for the file out (:meth:`sections`, :meth:`tally`)."""

    room: int
    """Episode sections the page still has room for."""
    limit: int
    """The per-text limit texts are held to (the page's budget's)."""
    judge: Judge | None
    count: int = 0
    held: list[tuple[Order, Held]] = field(default_factory=list)
    """The ``room`` first episodes in the file's order so far, in that order."""
    verdicts: dict[str, _Verdict] = field(default_factory=dict)
    labels: dict[str, tuple[Order, EpisodeAudit]] = field(default_factory=dict)
    """Per label, the audit of its last episode in the file's order (what a section shows)."""
    disagreements: int = 0
    """Without a scenario: episodes whose tool's own verdicts disagree."""

    def add(self, key: Any, episode: Episode, audit: EpisodeAudit | None) -> None:
        """One episode as it is read, with its audit (None: the caller resolves audits)."""
        order = (key, self.count)
        self.count += 1
        if audit is not None:
            last = self.labels.get(audit.id)
            if last is None or last[0] < order:
                self.labels[audit.id] = (order, audit)
        verdict = self._judged(order, episode)
        tools: tuple[model.ToolVerdict, ...] = ()
        if self.judge is None:
            tools = own_verdicts(episode)
            self.disagreements += any(t.agreement == "disagree" for t in tools)
        if self.room and (len(self.held) < self.room or order < self.held[-1][0]):
            timeline, folded = entries(episode, self.limit)
            counts = f"{len(episode.messages)} message(s), {len(episode.turns)} turn(s), {len(episode.calls)} call(s)"
            held = Held(episode.id, episode_label(episode.id), counts, timeline, folded, audit, tools, verdict)
            insort(self.held, (order, held), key=lambda pair: pair[0])
            del self.held[self.room :]

    def _judged(self, order: Order, episode: Episode) -> EpisodeVerdict | Code | None:
        """``check``'s verdict when this episode is now the first of its id (else None)."""
        if self.judge is None:
            return None
        known = self.verdicts.get(episode.id)
        if known is not None:
            known.episodes += 1
            if known.order < order:
                return None
        judged = self.judge(episode)
        summary = _summary(order, judged)
        summary.episodes = 1 if known is None else known.episodes
        self.verdicts[episode.id] = summary
        return judged

    def tally(self, results: Counter[str], policies: Counter[str]) -> int:
        """Add every episode's policy result and failing assertions to the page's counts; the
        episodes whose tool's own verdicts disagree with ours (or with none)."""
        disagreements = self.disagreements
        for summary in self.verdicts.values():
            if summary.result is not None:
                results[summary.result] += summary.episodes
            for failing in summary.failing:
                policies[failing] += summary.episodes
            disagreements += summary.disagrees * summary.episodes
        return disagreements

    def sections(self, audits: Mapping[str, EpisodeAudit] | None = None) -> list[tuple[Held, EpisodeAudit | None, EpisodeVerdict | Code | None]]:
        """The held episodes in the file's order, each with its section's audit (by label:
        ``audits`` when given, else the last of the label read) and its id's verdict."""
        first: dict[str, EpisodeVerdict | Code] = {}
        for _, held in self.held:
            if held.verdict is not None:
                first.setdefault(held.id, held.verdict)
        found = []
        for _, held in self.held:
            by_label = audits.get(held.label) if audits is not None else self.labels.get(held.label, (None, None))[1]
            found.append((held, by_label or held.own, first.get(held.id)))
        return found


def _summary(order: Order, judged: EpisodeVerdict | Code) -> _Verdict:
    if isinstance(judged, Code):
        return _Verdict(order, "error", (), False)
    assertions, _, tools = verdict_parts(judged)
    failing = tuple(f"{a.id}: {a.result}" for a in assertions if a.result != "pass")
    return _Verdict(order, judged.result, failing, any(t.agreement == "disagree" for t in tools))
