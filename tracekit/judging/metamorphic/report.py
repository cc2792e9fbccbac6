"""The typed report of a metamorphic study (docs/metamorphic.md, docs/cli.md "metamorphic").

Every part is a frozen msgspec Struct; the JSON document is derived from them
(report/metamorphic_render.py: ``msgspec.to_builtins``, then the shared byte-stable JSON
writer, keys sorted), so its keys are exactly these fields. ``class`` is a Python keyword: the
field is ``klass`` and is named ``class`` in JSON.

The head is shared by the two kinds of study: a sweep of tracekit traces and a sweep over
evidence (``--scenario``, tracekit/judging/findings/sweep.py). Fields only one kind has are UNSET in
the other and are then absent from its JSON, so each kind keeps its document shape.
"""

from __future__ import annotations

from typing import Literal

from msgspec import UNSET, Struct, UnsetType, field

from tracekit.judging.metamorphic.base import Klass

CLASSES: tuple[Klass, ...] = (Klass.PRESERVING, Klass.CHANGING, Klass.INVALID)


class Count(Struct, frozen=True):
    """Cases of one class: passed, applicable (passed + failed), not applicable."""

    passed: int
    total: int
    not_applicable: int


class Summary(Struct, frozen=True):
    """Counts per class."""

    preserving: Count
    changing: Count
    invalid: Count

    def of(self, klass: Klass) -> Count:
        count: Count = getattr(self, klass.value)
        return count


class TransformCount(Struct, frozen=True):
    """One transform's relation and counts. ``upstream`` is set for trace studies (one of
    upstream's ten transforms), ``what`` for evidence sweeps (what the transform does)."""

    name: str
    klass: Klass = field(name="class")
    relation: str
    passed: int
    total: int
    not_applicable: int
    upstream: bool | UnsetType = UNSET
    what: str | UnsetType = UNSET


class SkipCause(Struct, frozen=True):
    """Skipped sources with one code and cause."""

    code: str
    cause: str
    count: int


class Sources(Struct, frozen=True):
    total: int
    swept: int
    skipped: int
    skipped_by_cause: tuple[SkipCause, ...]


class Episodes(Struct, frozen=True):
    """Evidence sweeps: episodes swept and episodes skipped (refused by a consistency rule)."""

    swept: int
    skipped: int


class BudgetStop(Struct, frozen=True):
    """Sources whose remaining cases were not run: the per-source work budget was reached
    (``metamorphic.work_budget_exceeded``, docs/threat-model.md "Work budget")."""

    sources: int
    cases_not_run: int
    bytes_per_source: int


class StudyHead(Struct, frozen=True):
    """The study document without its streamed ``cases`` and ``skipped_sources`` lists."""

    report_version: int
    study_id: str
    trials: int
    seed: int
    transforms: tuple[TransformCount, ...]
    summary: Summary
    sources: Sources
    scenario: str | UnsetType = UNSET
    mode: Literal["strict", "compatible"] | UnsetType = UNSET
    episodes: Episodes | UnsetType = UNSET
    work_budget_exceeded: BudgetStop | UnsetType = UNSET
    """Present only when some source reached the work budget."""


class FailedCase(Struct, frozen=True):
    """A failed case as the table and Markdown list it (``trace`` names the episode too in an
    evidence sweep)."""

    trace: str
    transform: str
    trial: int
    reason: str


class StudyReport(Struct, frozen=True):
    """What the table and Markdown renderers show: the head plus a bounded sample of failures."""

    head: StudyHead
    failures: tuple[FailedCase, ...]
    failed_total: int
