"""The per-trace unit of work every executor runs: one source trace -> its cases (docs/metamorphic.md).

:func:`run_trace` is the only function the executors call, in-process, in a local worker process
or on a Dask worker, so a study's results cannot depend on where it ran. It reads one trace
(through the bounded loader), verifies and replays it once, then streams its cases
(transform x trial, in selection order) through :func:`evaluate_source`, which is pure.

A source that does not verify or is not replayable yields no transform cases; it is reported as
a *skipped source* with a fixed code and the code of its first problem (docs/metamorphic.md,
"Sources that cannot be swept"). With ``require_replayable`` it also yields upstream's failed
case of class ``invalid`` (transform ``source``, trial 0).
"""

from __future__ import annotations

import io
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from msgspec import UNSET, Struct, field

from tracekit.formats.agentguard.loader import open_trace
from tracekit.formats.agentguard.schema.agentguard import PolicySnapshot
from tracekit.formats.agentguard.verify import (
    VerifyOptions,
    VerifyReport,
    verify_bytes,
    verify_stream,
)
from tracekit.formats.agentguard.writer import freeze, read_draft, thaw
from tracekit.judging.metamorphic.base import Klass, NotApplicable, RelationKind, Transform
from tracekit.judging.metamorphic.rechain import write_draft
from tracekit.judging.metamorphic.registry import BY_NAME
from tracekit.judging.metamorphic.relations import Outcome, first_error, judge, not_applicable
from tracekit.judging.metamorphic.staging import write_transformed
from tracekit.judging.replay import replay
from tracekit.judging.replay.checks.base import Work
from tracekit.judging.replay.engine import evaluate_bounded
from tracekit.judging.replay.evidence import reconstruct
from tracekit.kernel import collector
from tracekit.kernel.errors import Code, TracekitError
from tracekit.kernel.limits import DEFAULT_BUDGET, DEFAULT_LIMITS, BudgetExceeded, Meter

CASE_WEIGHT: dict[str, int] = {"canonical_reencoding": 4}
"""How many cases' work one case of a transform is (1 when not listed): the work budget charges
a case the source's size times this. canonical_reencoding writes the trace, parses every line
back and re-encodes it, and its non-canonical bytes take verify's exact path: about four cases'
time on the 16 MiB benchmark trace (docs/threat-model.md, "Work budget")."""

MATCH_UNITS_PER_BYTE = 128
"""Replay's pattern-matching units (``WorkBudget.match_work``) charged as one byte: a unit is
0.3 to 1 ns, a byte of a case about 90 ns on the 16 MiB benchmark trace, so this errs on the
side of charging a replay-heavy case more."""

SOURCE_TRANSFORM = "source"
"""The transform name of the failed case a skipped source yields with ``require_replayable``."""


@dataclass(frozen=True, slots=True)
class StudyConfig:
    """What a study runs; identical for every trace of the study."""

    transforms: tuple[str, ...]
    trials: int = 1
    seed: int = 0
    strict_sources: bool = False
    require_replayable: bool = False
    budget_bytes: int = DEFAULT_BUDGET.metamorphic_bytes
    """Work budget per source: bytes of transformed traces built (docs/threat-model.md, "Work
    budget"); ``--work-budget`` raises it."""
    transformed_dir: str | None = None
    """Where a worker writes each transformed trace (``--output-dir``'s private staging folder,
    an absolute path); None keeps nothing. A worker writes its cases' traces one at a time and
    returns only their names, so no transformed trace crosses the executor or waits in memory
    (docs/threat-model.md, "Work budget")."""


@dataclass(frozen=True, slots=True)
class TraceTask:
    """One source trace of a study."""

    index: int
    """1-based position in the study's path list (names the transformed files)."""
    path: str
    """The path as the study reports it (study.py, "Paths")."""
    location: str
    """Where a worker reads it: the absolute path, so a worker's own cwd does not matter."""
    config: StudyConfig


class CaseResult(Struct, frozen=True):
    """One (trace, transform, trial) case. ``passed`` is None when the case is not applicable."""

    trace: str
    transform: str
    klass: Klass = field(name="class")
    trial: int
    passed: bool | None
    reason: str


class SkippedSource(Struct, frozen=True):
    """A source trace no transform was applied to, and why (fixed codes only)."""

    trace: str
    code: str
    cause: str
    """The first verify error or replayability reason code."""


class TraceResult(Struct, frozen=True):
    """Everything one source trace contributed to the study (crosses the executor as is)."""

    index: int
    trace: str
    skipped: SkippedSource | None
    cases: tuple[CaseResult, ...]
    transformed: tuple[str, ...] = ()
    """The file names written into ``StudyConfig.transformed_dir``, in case order."""
    charged: int = 0
    """Bytes charged against the source's work budget (``StudyConfig.budget_bytes``)."""
    not_run: int = 0
    """Cases not run because the work budget was reached (0: the source was swept in full)."""


def run_trace(task: TraceTask) -> TraceResult:
    """Read, verify, replay and sweep one source trace. Never raises on bad trace data."""
    try:
        with open_trace(task.location) as stream:
            data = stream.read(DEFAULT_LIMITS.total_bytes + 1)
    except TracekitError as error:
        return _skip(task, Code.METAMORPHIC_SOURCE_INVALID, error.finding.code.value)
    if not data:  # the one code of an empty input (docs/cli.md, "One code per mistake")
        return _skip(task, Code.METAMORPHIC_SOURCE_INVALID, Code.FORMAT_EMPTY.value)
    return evaluate_source(task, data, Path(task.location).resolve().parent)


def evaluate_source(task: TraceTask, data: bytes, trace_dir: Path | None) -> TraceResult:
    """Sweep a source trace held in memory; source artifacts resolve against ``trace_dir``."""
    config = task.config
    options = VerifyOptions(keep_events=True, strict_sources=config.strict_sources)
    report = verify_stream(io.BufferedReader(io.BytesIO(data)), options, trace_dir)
    if not report.intact or report.header is None:
        return _skip(task, Code.METAMORPHIC_SOURCE_INVALID, first_error(report))
    replayed = replay(report, strict_sources=config.strict_sources)
    snapshot = report.header.policy_snapshot
    if not replayed.replayable or replayed.recomputed is None or snapshot is UNSET:
        code = Code.METAMORPHIC_SOURCE_NOT_REPLAYABLE
        cause = replayed.reasons[0].code.value if replayed.reasons else code.value
        return _skip(task, code, cause)
    outcome = Outcome.of(replayed.recomputed)
    matched = match_units(report, snapshot)
    trace_id = report.header.trace_id
    enabled = tuple(snapshot.enabled_checks)
    # Held memory (docs/threat-model.md, "Work budget"): the source's typed events are not
    # needed once its outcome is known; only a frozen draft stays for the whole sweep, and each
    # case edits a fresh copy of its own (writer.thaw) instead of a copy of a held draft.
    del report, replayed, snapshot
    with collector.paused():
        source = _Source(outcome, trace_id, enabled, freeze(read_draft(data)))
    cases: list[CaseResult] = []
    kept: list[str] = []
    meter = Meter(config.budget_bytes)
    planned = [(name, trial) for name in config.transforms for trial in range(1, config.trials + 1)]
    for position, (name, trial) in enumerate(planned):
        transform = BY_NAME[name]
        if not_applicable(transform.relation, source.enabled) is None:
            # Charged before the case is built (docs/threat-model.md, "Work budget"): a
            # transformed trace is about the source's size; at the bound the rest is not run.
            cost = case_cost(len(data), matched, name)
            try:
                meter.charge(cost)
            except BudgetExceeded:
                meter.refund(cost)
                not_run = len(planned) - position
                return TraceResult(task.index, task.path, None, tuple(cases), tuple(kept), meter.used, not_run)
        with collector.paused():
            case, produced = _case(task, source, transform, trial)
        cases.append(case)
        if produced is not None and config.transformed_dir is not None:
            file_name = transformed_name(task.index, source.trace_id, name, trial)
            write_transformed(config.transformed_dir, file_name, produced)
            kept.append(file_name)
        del produced
    return TraceResult(task.index, task.path, None, tuple(cases), tuple(kept), meter.used)


def case_cost(size: int, matched: int, transform: str) -> int:
    """What one case is charged against the work budget, before it runs (docs/metamorphic.md,
    "Work budget"): the source's size times the transform's weight, plus the source replay's
    pattern-matching work (a transformed trace replays about as much) in bytes."""
    return size * CASE_WEIGHT.get(transform, 1) + matched // MATCH_UNITS_PER_BYTE


def match_units(report: VerifyReport, snapshot: PolicySnapshot) -> int:
    """The pattern-matching units one replay of a (replayable) source spends: its policy checks
    evaluated once more on its evidence with a meter of our own (replay/checks/base.py, Work).
    A trace whose policy makes replay slow, up to replay's own bound, is charged for it per case
    even when it is small."""
    header = report.header
    if header is None:
        return 0
    rebuilt = reconstruct(report.events, header.schema_version)
    if rebuilt.evidence is None:
        return 0
    work = Work.of(DEFAULT_BUDGET)
    with suppress(BudgetExceeded):  # not reached: the source replayed within the same budget
        evaluate_bounded(rebuilt.evidence, snapshot, work)
    return work.meter.used


def transformed_name(index: int, trace_id: str, transform: str, trial: int) -> str:
    """``<index:05d>-<trace_id[:12]>-<transform>-trial<trial>.jsonl`` (docs/metamorphic.md)."""
    return f"{index:05d}-{trace_id[:12]}-{transform}-trial{trial}.jsonl"


@dataclass(frozen=True, slots=True)
class _Source:
    outcome: Outcome
    trace_id: str
    enabled: tuple[str, ...]
    frozen: bytes


def _case(
    task: TraceTask, source: _Source, transform: Transform, trial: int
) -> tuple[CaseResult, bytes | None]:
    def result(passed: bool | None, reason: str) -> CaseResult:
        return CaseResult(task.path, transform.name, transform.klass, trial, passed, reason)

    relation = transform.relation
    blocked = not_applicable(relation, source.enabled)
    if blocked is not None:
        return result(None, f"not applicable: {blocked}"), None
    try:
        produced = transform.apply(thaw(source.frozen), trial, task.config.seed)
    except NotApplicable as error:
        return result(None, f"not applicable: {error.reason}"), None
    data = produced if isinstance(produced, bytes) else write_draft(produced)
    del produced  # the transformed draft is as large as the source's; only its bytes are judged
    rejects = relation.kind is RelationKind.VERIFY_REJECTS  # judged on verify alone: no events kept
    report = verify_bytes(data, VerifyOptions(keep_events=not rejects, check_sources=False))
    replayed = None
    if report.intact and not rejects:
        replayed = replay(report)
    verdict = judge(relation, source.outcome, source.trace_id, report, replayed)
    return result(verdict.passed, verdict.reason), data


def _skip(task: TraceTask, code: Code, cause: str) -> TraceResult:
    skipped = SkippedSource(task.path, code.value, cause)
    cases: tuple[CaseResult, ...] = ()
    if task.config.require_replayable:
        reason = f"source not swept: {code.value} ({cause})"
        cases = (CaseResult(task.path, SOURCE_TRANSFORM, Klass.INVALID, 0, False, reason),)
    return TraceResult(task.index, task.path, skipped, cases)
