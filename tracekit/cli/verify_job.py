"""One trace verified in any executor: the job (plain data a worker receives) and the step that
runs it (docs/cli.md, "Executors"). ``verify``, ``bundle`` and ``attest`` all verify through it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from tracekit.kernel.errors import TracekitError

if TYPE_CHECKING:
    from tracekit.formats.base import EpisodeStream
    from tracekit.report.verify_render import VerifyTrace
    from tracekit.report.verify_stream import VerifyTally


class VerifyJob(msgspec.Struct, frozen=True):
    """One trace to verify: plain data, cheap to send to a worker process or a Dask worker."""

    path: str
    """As the user gave it: the report shows this."""
    source: str
    """Absolute (a worker may run in another folder, or on another machine with a shared
    filesystem); ``-`` for standard input."""
    strict_sources: bool
    canonical: bool
    roots: tuple[tuple[str, str], ...]
    input_format: str | None = None
    """``--input-format``: read as this format, no detection."""
    named: bool = True
    """Named on the command line, not found by walking a folder (docs/formats.md, "Using it
    from the command line", rule 3)."""
    jobs: int = 1
    """Processes for this one trace (tracekit.formats.agentguard.verify_parallel): more than 1 only when the run
    has exactly one file and local workers to spare (docs/performance.md)."""
    sniff: bool = False
    """Left out as a sealed bundle (``cli.bundle_input``) when the file starts with the bundle
    magic: a walked file, sniffed by the worker that reads it rather than by the parent
    (docs/performance.md, "Campaigns")."""


class VerifyBatch(msgspec.Struct, frozen=True):
    """What a worker sends back for a batch of files: only what the parent keeps (docs/cli.md,
    "Executors"). Each file is the spool line of its report, or the code of a walked file left
    out (``format.unknown``, ``cli.bundle_input``); the batch's counts travel as one tally."""

    lines: list[bytes | str]
    tally: VerifyTally


def verify_batch(jobs: list[VerifyJob]) -> VerifyBatch:
    """Verify a batch of files in order (module-level: it pickles by name)."""
    from tracekit.cli.sniff import is_bundle
    from tracekit.kernel.errors import Code
    from tracekit.report.verify_stream import VerifyTally

    encode = msgspec.json.Encoder().encode
    tally = VerifyTally()
    lines: list[bytes | str] = []
    for job in jobs:
        if job.sniff and is_bundle(job.source):
            lines.append(Code.CLI_BUNDLE_INPUT.value)
            continue
        trace = verify_job(job)
        if trace is None:
            lines.append(Code.FORMAT_UNKNOWN.value)
            continue
        tally.add(trace)
        lines.append(encode(trace))
    return VerifyBatch(lines, tally)


def verify_job(job: VerifyJob) -> VerifyTrace | None:
    """Verify one file in any executor; returns the typed per-trace report (a Struct, cheap to
    pickle), or
    None for a walked file that is not a trace. An AgentGuard trace is verified; a file of a
    format without integrity data is read through its importer (bounded, schema-checked), one
    episode at a time where it streams, and reported ``no_integrity`` (docs/cli.md, verify)."""
    from tracekit.cli.trace_input import consume_evidence, opened, skipped, unknown, verify_opened
    from tracekit.formats.agentguard.verify import VerifyOptions
    from tracekit.report.verify_render import (
        no_integrity_trace,
        unverified_trace,
        verify_trace,
        with_finding,
    )

    options = VerifyOptions(
        strict_sources=job.strict_sources,
        canonical=job.canonical,
        trusted_roots={k: Path(v) for k, v in job.roots},
    )
    try:
        with opened(job.source, job.input_format) as source:
            if source.format is None:
                if skipped(job.path, job.named):
                    return None
                return unverified_trace(job.path, None, unknown().finding)
            loss = source.forced_loss()
            if source.format != "agentguard":
                kind, episodes = consume_evidence(job.source, source, counted)
                trace = no_integrity_trace(job.path, kind, episodes)
            else:
                trace = verify_trace(verify_opened(job.source, source, options, job.jobs), job.path)
    except TracekitError as error:
        return unverified_trace(job.path, job.input_format, error.finding)
    return trace if loss is None else with_finding(trace, loss)


def counted(stream: EpisodeStream) -> tuple[str, int]:
    """An imported file's format and number of episodes, each episode read and dropped (a file
    of 100,000 episodes is never held whole; a broken one raises as it would read whole)."""
    return stream.format, sum(1 for _ in stream.pairs)
