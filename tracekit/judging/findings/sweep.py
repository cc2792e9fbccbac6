"""Metamorphic sweeps over evidence: transforms x episodes, judged by a scenario's policies
(docs/findings.md, "Metamorphic sweeps").

A case compares the policy verdict of the source episode with that of the transformed one:

* ``preserving``: every assertion's result is unchanged (``same verdict``);
* ``changing``: the named assertion fails (``<assertion> fails``); not applicable when the
  scenario does not have it, when it does not run on the source (``not_run``: compatible
  mode's ``no_secret_disclosure``), or when the source already fails it;
* ``invalid``: the consistency rules refuse the transformed episode (``refused (<code>)``).

A source episode that breaks a consistency rule is skipped, never swept. Results stream: the
caller folds each case into a :class:`SweepTally`, which keeps counts and a bounded sample.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from msgspec import Struct, field

from tracekit.formats.base import EpisodeStream, in_order
from tracekit.judging.findings.consistency import check_episode
from tracekit.judging.findings.judge import EpisodeVerdict, judge_episode
from tracekit.judging.findings.transforms import BY_NAME, TRANSFORMS, EvidenceTransform, Klass
from tracekit.judging.harness.model import FAIL, NOT_RUN
from tracekit.judging.harness.scenario import Scenario
from tracekit.kernel.episode_id import episode_label
from tracekit.kernel.evidence import Episode

if TYPE_CHECKING:  # imported where the head is made: every `check` imports this module
    from tracekit.judging.metamorphic.report import StudyHead

SAMPLE_LIMIT = 1000


class SweepCase(Struct, frozen=True):
    """One transform applied to one episode, and whether its relation held (None: n/a)."""

    trace: str
    episode: str
    """The episode's id as every report prints it (docs/cli.md, "Episode ids")."""
    transform: str
    klass: Klass = field(name="class")
    trial: int
    passed: bool | None
    reason: str


def _results(verdict: EpisodeVerdict) -> list[tuple[str, str]]:
    return [(a.id, a.result) for a in verdict.assertions]


def _case_reason(
    transform: EvidenceTransform, source: EpisodeVerdict, changed: Episode, scenario: Scenario, strict: bool
) -> tuple[bool | None, str]:
    if transform.klass == "invalid":
        refused = check_episode(changed)
        if refused:
            return True, f"refused ({refused[0].code.value})"
        return False, "not refused"
    after = judge_episode(scenario, changed, strict)
    if transform.klass == "preserving":
        before, now = _results(source), _results(after)
        if before == now:
            return True, "same verdict"
        moved = sorted({i for (i, r), (_, s) in zip(before, now, strict=True) if r != s})
        return False, "verdict changed: " + ", ".join(moved)
    target = transform.fails
    wanted = [a for a in source.assertions if a.id == target]
    if not wanted:
        return None, f"not applicable: the scenario has no {target} assertion"
    if all(a.result == NOT_RUN for a in wanted):
        return None, f"not applicable: {target} does not run in this mode"
    if any(a.result == FAIL for a in wanted):
        return None, f"not applicable: {target} already fails on the source"
    if any(a.id == target and a.result == FAIL for a in after.assertions):
        return True, f"{target} fails"
    return False, f"{target} did not fail"


def sweep_episode(
    trace: str,
    episode: Episode,
    scenario: Scenario,
    transforms: Sequence[EvidenceTransform] = TRANSFORMS,
    trials: int = 1,
    strict: bool = True,
) -> Iterator[SweepCase]:
    """Every case of ``transforms`` x ``trials`` on ``episode``. The caller checks the source
    with :func:`check_episode` first (a refused source is skipped, not swept)."""
    source = judge_episode(scenario, episode, strict)
    for transform in transforms:
        for trial in range(1, trials + 1):
            changed = transform.edit(episode, trial)
            if changed is None:
                yield SweepCase(trace, episode_label(episode.id), transform.name, transform.klass, trial, None,
                                "not applicable: nothing to act on")
                continue
            passed, reason = _case_reason(transform, source, changed, scenario, strict)
            yield SweepCase(trace, episode_label(episode.id), transform.name, transform.klass, trial, passed, reason)


class ClassCount(Struct):
    """Cases of one class or transform: passed, applicable total, not applicable."""

    passed: int = 0
    total: int = 0
    not_applicable: int = 0

    def add(self, case: SweepCase) -> None:
        if case.passed is None:
            self.not_applicable += 1
        else:
            self.total += 1
            self.passed += int(case.passed)


class SkippedEpisode(Struct, frozen=True):
    """A source episode that was not swept, and the code that says why (``episode`` is None
    when the whole file was skipped: no format reads it, or it did not load)."""

    trace: str
    episode: str | None
    code: str


class SweepTally(Struct):
    """Counts per class and per transform, with bounded samples of failures and skips."""

    summary: dict[str, ClassCount]
    transforms: dict[str, ClassCount]
    episodes: int = 0
    failures: list[SweepCase] = []
    skipped: list[SkippedEpisode] = []
    skipped_total: int = 0

    @classmethod
    def new(cls, transforms: Sequence[EvidenceTransform] = TRANSFORMS) -> SweepTally:
        return cls(
            summary={k: ClassCount() for k in ("preserving", "changing", "invalid")},
            transforms={t.name: ClassCount() for t in transforms},
        )

    def add(self, case: SweepCase) -> None:
        self.summary[case.klass].add(case)
        self.transforms[case.transform].add(case)
        if case.passed is False and len(self.failures) < SAMPLE_LIMIT:
            self.failures.append(case)

    def skip(self, trace: str, episode: str, code: str) -> None:
        self.skipped_total += 1
        if len(self.skipped) < SAMPLE_LIMIT:
            self.skipped.append(SkippedEpisode(trace, episode, code))

    @property
    def failed(self) -> int:
        return sum(c.total - c.passed for c in self.summary.values())


def sweep_file(
    trace: str,
    episodes: Sequence[Episode] | EpisodeStream,
    scenario: Scenario,
    tally: SweepTally,
    transforms: Sequence[EvidenceTransform] = TRANSFORMS,
    trials: int = 1,
    strict: bool = True,
) -> list[SweepCase]:
    """Sweep every consistent episode of one file into ``tally``; return its cases. From a
    stream (docs/formats.md, "Streaming episodes"), each episode is swept as it is read, and its
    cases (or the code refusing it) go into ``tally`` in the file's order once every episode is
    read."""
    pairs = episodes.pairs if isinstance(episodes, EpisodeStream) else enumerate(episodes)

    def swept(episode: Episode) -> tuple[str, str | None, list[SweepCase]]:
        refused = check_episode(episode)
        if refused:
            return episode_label(episode.id), refused[0].code.value, []
        return "", None, list(sweep_episode(trace, episode, scenario, transforms, trials, strict))

    cases: list[SweepCase] = []
    for label, code, found in in_order((key, swept(episode)) for key, episode in pairs):
        if code is not None:
            tally.skip(trace, label, code)
            continue
        tally.episodes += 1
        for case in found:
            tally.add(case)
            cases.append(case)
    return cases


RELATIONS = {"preserving": "every assertion keeps its result", "invalid": "refused by the consistency rules"}
"""The relation of a preserving or invalid transform; a changing one's is ``<assertion> fails``."""


class SweepShape(Struct, frozen=True):
    """What an evidence sweep ran over, for its report head."""

    study_id: str
    scenario: str
    strict: bool
    trials: int
    seed: int
    files: int
    file_skips: tuple[tuple[str, int], ...]
    """(code, files) for the files no episode of which was swept, sorted by code."""
    episodes_skipped: int


def evidence_head(tally: SweepTally, shape: SweepShape) -> StudyHead:
    """The typed report head of an evidence sweep (docs/findings.md, "Metamorphic sweeps")."""
    from tracekit import REPORT_VERSION
    from tracekit.judging.metamorphic.base import Klass as Class
    from tracekit.judging.metamorphic.report import (
        Count,
        Episodes,
        SkipCause,
        Sources,
        StudyHead,
        Summary,
        TransformCount,
    )

    transforms = []
    for name, count in tally.transforms.items():
        t = BY_NAME[name]
        relation = RELATIONS.get(t.klass, f"{t.fails} fails")
        transforms.append(TransformCount(name, Class(t.klass), relation, count.passed, count.total,
                                         count.not_applicable, what=t.what))
    counts = {k: Count(c.passed, c.total, c.not_applicable) for k, c in tally.summary.items()}
    skipped = sum(n for _, n in shape.file_skips)
    return StudyHead(
        report_version=REPORT_VERSION,
        study_id=shape.study_id,
        trials=shape.trials,
        seed=shape.seed,
        transforms=tuple(transforms),
        summary=Summary(counts["preserving"], counts["changing"], counts["invalid"]),
        sources=Sources(shape.files, shape.files - skipped, skipped,
                        tuple(SkipCause(code, code, n) for code, n in shape.file_skips)),
        scenario=shape.scenario,
        mode="strict" if shape.strict else "compatible",
        episodes=Episodes(tally.episodes, shape.episodes_skipped),
    )
