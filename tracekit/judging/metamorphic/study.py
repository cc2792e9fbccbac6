"""A study's identity and its incremental aggregation (docs/metamorphic.md "Study id").

**Study id** (docs/metamorphic.md): ``metamorphic-`` + the first 16 hex digits of
``sha256("|".join(paths + transforms + [str(trials)]))``, UTF-8 encoded, where

* ``paths`` are the source trace paths in study order, each spelled by :func:`study_path`: the
  path as found (a folder given on the command line joined with the file's path below it, in
  sorted walk order; a file as given), normalised lexically by pathlib (``./`` prefixes, ``//``
  and trailing ``/`` removed; no symlink or ``..`` resolution) and written with ``/``;
* ``transforms`` are the selected names in selection order (registry order by default);
* a non-zero ``--seed`` appends ``seed=<n>``, so seed 0 gives upstream's id.

**Aggregation.** :class:`Tally` folds trace results in as they stream, keeping counts per class
and per transform plus a bounded sample of failed cases and skipped sources, so memory does not
grow with the size of a campaign. Full case lists are spooled by the caller (the CLI).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePath

from msgspec import UNSET, UnsetType

from tracekit import REPORT_VERSION
from tracekit.judging.metamorphic.base import Klass
from tracekit.judging.metamorphic.cases import (
    SOURCE_TRANSFORM,
    CaseResult,
    SkippedSource,
    StudyConfig,
    TraceResult,
)
from tracekit.judging.metamorphic.registry import BY_NAME
from tracekit.judging.metamorphic.report import (
    CLASSES,
    BudgetStop,
    Count,
    FailedCase,
    SkipCause,
    Sources,
    StudyHead,
    StudyReport,
    Summary,
    TransformCount,
)

SAMPLE_LIMIT = 1000
"""How many failed cases and skipped sources a report lists in full (JSON lists them all)."""


def study_path(path: str) -> str:
    """The spelling of a source path in reports and in the study id (see module docstring)."""
    return PurePath(path).as_posix()


def study_id(paths: Sequence[str], transforms: Sequence[str], trials: int, seed: int = 0) -> str:
    """The deterministic study id (see module docstring)."""
    material = [*paths, *transforms, str(trials)]
    if seed:
        material.append(f"seed={seed}")
    return "metamorphic-" + hashlib.sha256("|".join(material).encode("utf-8")).hexdigest()[:16]


@dataclass(slots=True)
class _Count:
    passed: int = 0
    failed: int = 0
    not_applicable: int = 0

    def add(self, case: CaseResult) -> None:
        if case.passed is None:
            self.not_applicable += 1
        elif case.passed:
            self.passed += 1
        else:
            self.failed += 1

    def frozen(self) -> Count:
        return Count(self.passed, self.passed + self.failed, self.not_applicable)


@dataclass(slots=True)
class Tally:
    """Counts for one study, updated one trace result at a time."""

    config: StudyConfig
    sources: int = 0
    by_class: dict[Klass, _Count] = field(default_factory=lambda: {k: _Count() for k in Klass})
    by_transform: dict[str, _Count] = field(default_factory=dict)
    skipped: Counter[tuple[str, str]] = field(default_factory=Counter)
    failures: list[CaseResult] = field(default_factory=list)
    skipped_sample: list[SkippedSource] = field(default_factory=list)
    budget_sources: int = 0
    """Sources whose remaining cases the work budget stopped (cases.py, ``BudgetStop``)."""
    budget_cases: int = 0
    """Cases not run because of the work budget."""

    def __post_init__(self) -> None:
        self.by_transform = {name: _Count() for name in self.config.transforms}

    def add(self, result: TraceResult) -> None:
        """Fold one trace's result in."""
        self.sources += 1
        if result.skipped is not None:
            self.skipped[(result.skipped.code, result.skipped.cause)] += 1
            if len(self.skipped_sample) < SAMPLE_LIMIT:
                self.skipped_sample.append(result.skipped)
        if result.not_run:
            self.budget_sources += 1
            self.budget_cases += result.not_run
        for case in result.cases:
            self.by_class[case.klass].add(case)
            self.by_transform.setdefault(case.transform, _Count()).add(case)
            if case.passed is False and len(self.failures) < SAMPLE_LIMIT:
                self.failures.append(case)

    @property
    def failed(self) -> int:
        return sum(count.failed for count in self.by_class.values())

    @property
    def total(self) -> int:
        """Applicable cases (passed + failed)."""
        return sum(count.passed + count.failed for count in self.by_class.values())

    @property
    def skipped_total(self) -> int:
        return sum(self.skipped.values())

    def head(self, identity: str) -> StudyHead:
        """The report document without its ``cases`` and ``skipped_sources`` lists."""
        transforms = []
        for name, count in self.by_transform.items():
            counted = count.frozen()
            if name == SOURCE_TRANSFORM:
                klass, relation, upstream = Klass.INVALID, "source is replayable", True
            else:
                t = BY_NAME[name]
                klass, relation, upstream = t.klass, t.relation.describe(), t.upstream
            transforms.append(TransformCount(name, klass, relation, counted.passed, counted.total,
                                             counted.not_applicable, upstream=upstream))
        stop: BudgetStop | UnsetType = UNSET
        if self.budget_sources:
            stop = BudgetStop(self.budget_sources, self.budget_cases, self.config.budget_bytes)
        return StudyHead(
            report_version=REPORT_VERSION,
            study_id=identity,
            trials=self.config.trials,
            seed=self.config.seed,
            transforms=tuple(transforms),
            summary=Summary(*(self.by_class[k].frozen() for k in CLASSES)),
            sources=Sources(
                total=self.sources,
                swept=self.sources - self.skipped_total,
                skipped=self.skipped_total,
                skipped_by_cause=tuple(
                    SkipCause(code, cause, n) for (code, cause), n in sorted(self.skipped.items())
                ),
            ),
            work_budget_exceeded=stop,
        )

    def report(self, identity: str) -> StudyReport:
        """The head plus the bounded sample of failed cases."""
        failures = tuple(FailedCase(c.trace, c.transform, c.trial, c.reason) for c in self.failures)
        return StudyReport(self.head(identity), failures, self.failed)
