"""The per-trace unit of work every executor runs: one source trace -> its cases (spec §14).

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
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from msgspec import UNSET

from tracekit.errors import Code, TracekitError
from tracekit.limits import DEFAULT_LIMITS
from tracekit.loader import open_trace
from tracekit.metamorphic.base import NotApplicable, RelationKind, Transform
from tracekit.metamorphic.registry import BY_NAME
from tracekit.metamorphic.relations import Outcome, first_error, judge, not_applicable
from tracekit.replay import replay
from tracekit.verify import VerifyOptions, verify_bytes, verify_stream
from tracekit.writer import freeze, read_draft, thaw, write_trace

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
    keep_transformed: bool = False
    """Return each transformed trace's bytes (for ``--output-dir``)."""


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


@dataclass(frozen=True, slots=True)
class CaseResult:
    """One (trace, transform, trial) case. ``passed`` is None when the case is not applicable."""

    trace: str
    transform: str
    klass: str
    trial: int
    passed: bool | None
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "trace": self.trace,
            "transform": self.transform,
            "class": self.klass,
            "trial": self.trial,
            "passed": self.passed,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class SkippedSource:
    """A source trace no transform was applied to, and why (fixed codes only)."""

    trace: str
    code: str
    cause: str
    """The first verify error or replayability reason code."""

    def to_dict(self) -> dict[str, Any]:
        return {"trace": self.trace, "code": self.code, "cause": self.cause}


class Transformed:
    """The transformed traces of one source, (file name, bytes) in case order, held compressed
    until the caller writes them: a 16 MiB source swept by 15 transforms would otherwise hold
    240 MiB (docs/threat-model.md, "Work budget"). Iterating yields one decompressed trace at a
    time."""

    __slots__ = ("_packed",)

    def __init__(self, packed: Sequence[tuple[str, bytes]] = ()) -> None:
        self._packed = tuple(packed)

    @staticmethod
    def pack(data: bytes) -> bytes:
        """The held form of one transformed trace (zlib level 1: a quarter of the size)."""
        return zlib.compress(data, 1)

    def __iter__(self) -> Iterator[tuple[str, bytes]]:
        for name, packed in self._packed:
            yield name, zlib.decompress(packed)

    def __len__(self) -> int:
        return len(self._packed)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Transformed) and self._packed == other._packed

    def __hash__(self) -> int:
        return hash(self._packed)

    @property
    def held_bytes(self) -> int:
        """Bytes held for every transformed trace together."""
        return sum(len(packed) for _, packed in self._packed)


@dataclass(frozen=True, slots=True)
class TraceResult:
    """Everything one source trace contributed to the study."""

    index: int
    trace: str
    skipped: SkippedSource | None
    cases: tuple[CaseResult, ...]
    transformed: Transformed = Transformed()
    """(file name, bytes) per case that produced a trace, when the config keeps them."""


def run_trace(task: TraceTask) -> TraceResult:
    """Read, verify, replay and sweep one source trace. Never raises on bad trace data."""
    try:
        with open_trace(task.location) as stream:
            data = stream.read(DEFAULT_LIMITS.total_bytes + 1)
    except TracekitError as error:
        return _skip(task, Code.METAMORPHIC_SOURCE_INVALID, error.finding.code.value)
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
    trace_id = report.header.trace_id
    enabled = tuple(snapshot.enabled_checks)
    # Held memory (docs/threat-model.md, "Work budget"): the source's typed events are not
    # needed once its outcome is known; only a frozen draft stays for the whole sweep, and each
    # case edits a fresh copy of its own (writer.thaw) instead of a copy of a held draft.
    del report, replayed, snapshot
    source = _Source(outcome, trace_id, enabled, freeze(read_draft(data)))
    cases: list[CaseResult] = []
    kept: list[tuple[str, bytes]] = []
    for name in config.transforms:
        for trial in range(1, config.trials + 1):
            case, produced = _case(task, source, BY_NAME[name], trial)
            cases.append(case)
            if produced is not None and config.keep_transformed:
                file_name = transformed_name(task.index, source.trace_id, name, trial)
                kept.append((file_name, Transformed.pack(produced)))
            del produced
    return TraceResult(task.index, task.path, None, tuple(cases), Transformed(kept))


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
        return CaseResult(task.path, transform.name, transform.klass.value, trial, passed, reason)

    relation = transform.relation
    blocked = not_applicable(relation, source.enabled)
    if blocked is not None:
        return result(None, f"not applicable: {blocked}"), None
    try:
        produced = transform.apply(thaw(source.frozen), trial, task.config.seed)
    except NotApplicable as error:
        return result(None, f"not applicable: {error.reason}"), None
    data = produced if isinstance(produced, bytes) else write_trace(produced)
    del produced  # the transformed draft is as large as the source's; only its bytes are judged
    report = verify_bytes(data, VerifyOptions(keep_events=True, check_sources=False))
    replayed = None
    if report.intact and relation.kind is not RelationKind.VERIFY_REJECTS:
        replayed = replay(report)
    verdict = judge(relation, source.outcome, source.trace_id, report, replayed)
    return result(verdict.passed, verdict.reason), data


def _skip(task: TraceTask, code: Code, cause: str) -> TraceResult:
    skipped = SkippedSource(task.path, code.value, cause)
    cases: tuple[CaseResult, ...] = ()
    if task.config.require_replayable:
        reason = f"source not swept: {code.value} ({cause})"
        cases = (CaseResult(task.path, SOURCE_TRANSFORM, "invalid", 0, False, reason),)
    return TraceResult(task.index, task.path, skipped, cases)
