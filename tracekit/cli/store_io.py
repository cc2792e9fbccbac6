"""The campaign store's file access: each campaign file audited in a worker into its store
result, and that result read back by the coordinator one episode at a time
(docs/campaign-store.md, "Episodes"; docs/threat-model.md, "The Inspect archive reader").

A worker sends back a :class:`StoreBlock`: the result without its episodes and, for an imported
file, its episodes as lines in the file's order, inline up to
:data:`~tracekit.cli.audit_spool.INLINE` bytes, else in a file of the run's private folder
(cli/audit_spool.py's :class:`~tracekit.cli.audit_spool.SpillFolder`). The coordinator hands
the store a :class:`~tracekit.store.ingest.Stored` whose episodes are decoded as the writer
reads them, and each spill file is removed once read.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import msgspec

from tracekit.kernel.errors import TracekitError

if TYPE_CHECKING:
    from tracekit.cli.audit_io import AuditJob, AuditOptions
    from tracekit.cli.audit_spool import SpillFolder
    from tracekit.formats.base import EpisodeStream
    from tracekit.judging.harness.scenario import Scenario
    from tracekit.kernel.executors import Executor
    from tracekit.store.ingest import Stored
    from tracekit.store.runner import Audit

AUDITED = frozenset({"agentguard", "harness"})
"""Formats ``tracekit audit`` audits in full; the others are stored per episode from evidence."""


class StoreBlock(msgspec.Struct, frozen=True):
    """One file's store result as a worker sends it back: the result without its episodes,
    their count, and their lines (inline, or the name of the spill file holding them)."""

    report: dict[str, Any]
    episodes: int = 0
    lines: bytes = b""
    spill: str | None = None


@contextmanager
def store_audit(chosen: Executor, opts: AuditOptions, quiet: bool) -> Iterator[Audit]:
    """The store runner's audit (tracekit/store/runner.py, step 5): every file read on
    ``chosen`` with ``opts``, each result handed over as :func:`stored` makes it; the run's
    folder of spilled episode lines is removed when the block ends."""
    from functools import partial

    from tracekit.cli.audit_spool import SpillFolder

    folder = SpillFolder.for_run(chosen)

    def audit(files: list[str]) -> Iterator[Stored | None]:
        from tracekit.cli.audit_io import AuditJob
        from tracekit.cli.common import absolute
        from tracekit.cli.progress import tracked

        done = chosen.map_ordered(partial(store_job, spill=folder), [AuditJob(f, absolute(f), False, opts) for f in files])
        return (stored(block, folder) for block in tracked(done, len(files), "audit", quiet))

    try:
        yield audit
    finally:
        folder.remove()


def store_job(job: AuditJob, spill: SpillFolder) -> StoreBlock | None:
    """One campaign file's store result, in a worker: the report plain ``tracekit audit``
    prints for it, with the same options (docs/campaign-store.md, "Episodes"); None for a
    walked file that is not a trace. An imported format (Inspect, OTel, AgentDojo, garak, ...)
    is read once, through the reader plain ``audit`` uses, one episode at a time, and each
    episode's row is spooled as it is made (tracekit/store/episodes.py); anything else is
    audited as ``tracekit audit`` does."""
    from tracekit.cli.audit_io import audit_job
    from tracekit.cli.trace_input import consume_evidence, opened
    from tracekit.judging.harness.scenario import parse_scenario

    scenario = None if job.opts.scenario is None else parse_scenario(job.opts.scenario)
    try:
        with opened(job.source, job.opts.input_format) as source:
            if source.format is not None and source.format not in AUDITED:
                return consume_evidence(job.source, source, lambda stream: _imported(job, stream, scenario, spill))
    except TracekitError:
        pass  # unreadable or refused: plain audit reports it with its own code, as below
    result = audit_job(job)
    if result is None:
        return None
    # An AgentGuard or harness trace, or an unreadable file: one episode, the report itself
    # (its ``episodes`` list is empty: only an imported file's is not, read above).
    result.pop("episodes", None)
    return StoreBlock(result)


def _imported(job: AuditJob, stream: EpisodeStream, scenario: Scenario | None, folder: SpillFolder) -> StoreBlock:
    """An imported file's block: each episode's audit spooled as it is made (in the order the
    episodes come), then each turned into its row in the file's order and spooled again."""
    from tracekit.cli.audit_spool import INLINE, EpisodeLines
    from tracekit.judging.audit.imported import audit_stream
    from tracekit.store.episodes import stream_result

    audits, rows = EpisodeLines(folder), EpisodeLines(folder)
    try:
        made = stream_result(stream, lambda s, sink: audit_stream(job.path, s, scenario, True, sink), audits.add)
        decode = audits.reader().episode
        for episode in made.episodes(decode(line) for line in audits.lines(made.order)):
            rows.add(episode)
        audits.discard()
        body, name = rows.finish(range(len(rows)), INLINE)
        return StoreBlock(made.result, len(made.order), body, name)
    finally:
        audits.discard()
        rows.discard()


def stored(block: StoreBlock | None, folder: SpillFolder) -> Stored | None:
    """The store's view of a worker's block: its episodes decoded one at a time as they are
    iterated (once); a spill file is read from the run's folder only, and removed once read."""
    from tracekit.store.ingest import Stored

    if block is None:
        return None
    return Stored(block.report, _episodes(block, folder))


class EpisodeLine(msgspec.Struct, frozen=True):
    """An imported episode's line as a worker writes it (tracekit/store/episodes.py), read by
    the coordinator: its findings and completeness are kept as the JSON they came as (the
    store decodes them only for a detail it has not seen in the file yet), and are left out
    when an earlier line of the file with the same ``detail`` number held them."""

    episode_id: str | None
    format: str
    exit_code: int
    readable: bool
    intact: bool | None
    rerunnable: bool
    outcome: str | None
    demonstration: str | None
    detail: int
    findings: msgspec.Raw = msgspec.Raw()
    """Left out (empty) on a line whose detail an earlier line held."""
    completeness: msgspec.Raw = msgspec.Raw()
    harness: dict[str, Any] | None = None


_FIELDS = tuple(f for f in EpisodeLine.__struct_fields__ if f not in ("findings", "completeness"))


class _Resolver:
    """A file's episode lines made whole again: the findings and completeness of each detail
    number, for the last :data:`~tracekit.store.episodes.MADE_HELD` numbers (the worker never
    names an older one: it forgets them first)."""

    def __init__(self) -> None:
        from tracekit.store.episodes import MADE_HELD

        self._held = MADE_HELD + 1
        self._details: dict[int, tuple[msgspec.Raw, msgspec.Raw]] = {}
        self._read = msgspec.json.Decoder(EpisodeLine).decode

    def __call__(self, line: bytes) -> dict[str, Any]:
        episode = self._read(line)
        out = {name: getattr(episode, name) for name in _FIELDS}
        if len(episode.findings) and len(episode.completeness):
            self._details[episode.detail] = (episode.findings, episode.completeness)
            if len(self._details) > self._held:
                del self._details[next(iter(self._details))]
        known = self._details.get(episode.detail)
        if known is None:
            raise RuntimeError("a store result named a detail its file did not hold")
        out["findings"], out["completeness"] = known
        return out


def _episodes(block: StoreBlock, folder: SpillFolder) -> Iterator[dict[str, Any]]:
    decode = _Resolver()
    if block.spill is None:
        for line in block.lines.splitlines():
            yield decode(line)
        return
    if not folder.holds(block.spill):
        # Never named by a worker of this run (cli/audit_spool.py names only the run's folder).
        raise RuntimeError("a store result named a file outside the run's folder")
    try:
        with open(block.spill, "rb") as lines:
            for line in lines:
                yield decode(line)
    finally:
        os.unlink(block.spill)
