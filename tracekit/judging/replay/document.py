"""The JSON documents of a replay, as Structs derived from a :class:`ReplayReport`.

A report keeps the replay's pieces nested (replayability, comparison); the documents lay them out
as ``tracekit replay``, ``tracekit replayability`` and ``tracekit audit`` print them
(docs/replay.md "JSON output"). Fields are in document order, and the JSON is derived with
``msgspec.to_builtins``: nothing here is written by hand, numbers stay numbers.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from tracekit import REPORT_VERSION
from tracekit.judging.replay.containment import ContainmentSummary
from tracekit.judging.replay.engine import ReplayReport
from tracekit.judging.replay.equivalence import CheckComparison, Classification, Difference
from tracekit.judging.replay.results import Verdict
from tracekit.kernel.episode_id import episode_label
from tracekit.kernel.errors import Code, Finding


class ReplayabilityDocument(msgspec.Struct, frozen=True, kw_only=True):
    """``tracekit replayability --format json``."""

    report_version: int = REPORT_VERSION
    trace_id: str
    episodes: tuple[str, ...]
    """The trace's one episode, by the id every report prints (docs/cli.md, "Episode ids")."""
    schema_version: int
    replayable: bool
    supported_checks: tuple[str, ...]
    missing_inputs: tuple[str, ...]
    reasons: tuple[Finding, ...]
    notices: tuple[Finding, ...]


class ReplayDocument(ReplayabilityDocument, frozen=True, kw_only=True):
    """``tracekit replay --format json`` and ``replay.json``: the replayability document and
    the comparison."""

    equivalence: Classification | None
    recorded: Verdict | None
    recomputed: Verdict | None
    comparisons: tuple[CheckComparison, ...]
    differences: tuple[Difference, ...]
    containment: ContainmentSummary | None
    external_execution: Literal["none"] = "none"


class RunOutcome(msgspec.Struct, frozen=True):
    """A verdict's result and score, without its checks."""

    result: str
    score: int | float


class DifferenceBrief(msgspec.Struct, frozen=True):
    """A difference without its values (which are trace content)."""

    scope: Literal["check", "run"]
    field: str
    check: str | None
    classification: Classification


class ReplaySummary(msgspec.Struct, frozen=True):
    """The replay summary ``tracekit audit`` embeds per AgentGuard trace (its ``replay`` field):
    the verdicts' results and scores and the differences' places, never their values."""

    replayable: bool
    missing_inputs: tuple[str, ...]
    reasons: tuple[Code, ...]
    equivalence: Classification | None
    recorded: RunOutcome | None
    recomputed: RunOutcome | None
    differences: tuple[DifferenceBrief, ...]


def replayability_document(report: ReplayReport) -> ReplayabilityDocument:
    """The replayability verdict of ``report`` as its JSON document."""
    status = report.replayability
    return ReplayabilityDocument(
        trace_id=report.trace_id,
        episodes=(episode_label(report.trace_id),),
        schema_version=report.schema_version,
        replayable=status.replayable,
        supported_checks=status.supported_checks,
        missing_inputs=status.missing_inputs,
        reasons=status.reasons,
        notices=report.notices,
    )


def replay_document(report: ReplayReport) -> ReplayDocument:
    """The whole replay of ``report`` as its JSON document."""
    return ReplayDocument(
        **msgspec.structs.asdict(replayability_document(report)),
        equivalence=report.equivalence,
        recorded=report.recorded,
        recomputed=report.recomputed,
        comparisons=report.comparison.comparisons if report.comparison else (),
        differences=report.differences,
        containment=report.containment,
    )


def _outcome(verdict: Verdict | None) -> RunOutcome | None:
    return None if verdict is None else RunOutcome(verdict.result, verdict.score)


def replay_summary(report: ReplayReport) -> ReplaySummary:
    """The summary of ``report`` that an audit embeds."""
    return ReplaySummary(
        replayable=report.replayable,
        missing_inputs=report.replayability.missing_inputs,
        reasons=tuple(reason.code for reason in report.reasons),
        equivalence=report.equivalence,
        recorded=_outcome(report.recorded),
        recomputed=_outcome(report.recomputed),
        differences=tuple(
            DifferenceBrief(d.scope, d.field, d.check, d.classification)
            for d in report.differences
        ),
    )
