"""Shared helpers for the metamorphic tests: corpus sources, drafts and outcomes."""

from __future__ import annotations

import functools
from pathlib import Path

from gen.base import (
    clean_trace,
    command,
    completed,
    file_change,
    header,
    passing_checks,
    started,
    test_result,
)

from tests.helpers import CORPUS
from tracekit.formats.agentguard.verify import VerifyOptions, verify_bytes, verify_file
from tracekit.formats.agentguard.writer import DraftTrace, write_trace
from tracekit.judging.metamorphic.cases import StudyConfig, TraceResult, TraceTask, evaluate_source
from tracekit.judging.metamorphic.relations import Outcome
from tracekit.judging.replay import replay


@functools.cache
def replayable_corpus() -> tuple[Path, ...]:
    """Every corpus trace that verifies and replays: the sources a sweep transforms."""
    found = []
    for path in sorted(CORPUS.rglob("*.jsonl")):
        report = verify_file(path, VerifyOptions(keep_events=True))
        if report.intact and replay(report).replayable:
            found.append(path)
    return tuple(found)


def outcome_of(data: bytes) -> Outcome:
    """The recomputed outcome of a trace held in memory (it must verify and replay)."""
    report = verify_bytes(data, VerifyOptions(keep_events=True, check_sources=False))
    assert report.intact, [f.code for f in report.findings]
    replayed = replay(report)
    assert replayed.replayable and replayed.recomputed is not None, replayed.reasons
    return Outcome.of(replayed.recomputed)


def sweep(data: bytes, transforms: tuple[str, ...], trials: int = 1, seed: int = 0) -> TraceResult:
    """Run the per-trace work on bytes, as every executor does."""
    config = StudyConfig(transforms=transforms, trials=trials, seed=seed)
    return evaluate_source(TraceTask(1, "memory.jsonl", "memory.jsonl", config), data, None)


def custom_trace(**policy: object) -> DraftTrace:
    """A clean v2 run (three commands, two changes) under a policy with ``policy`` overrides."""
    h = header(2, "metamorphic")
    h["policy_snapshot"].update(policy)
    events = [
        started(h),
        command(["cat", "src/a.py"]),
        command(["python", "tools/fmt.py"]),
        command(["python", "tools/lint.py"]),
        file_change("src/a.py", added=4, deleted=2),
        file_change("docs/a.md", added=2, deleted=0),
        test_result(),
        *passing_checks(),
        completed(["src/a.py", "docs/a.md"], added=6, deleted=2),
    ]
    return DraftTrace(header=h, events=events)


def clean_bytes() -> bytes:
    """The corpus generator's clean v2 run, canonical."""
    return write_trace(clean_trace(2))
