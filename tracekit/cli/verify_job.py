"""One trace verified in any executor: the job (plain data a worker receives) and the step that
runs it (docs/cli.md, "Executors"). ``verify``, ``bundle`` and ``attest`` all verify through it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from tracekit.kernel.errors import TracekitError

if TYPE_CHECKING:
    from tracekit.report.verify_render import VerifyTrace


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


def verify_job(job: VerifyJob) -> VerifyTrace | None:
    """Verify one file in any executor; returns the typed per-trace report (a Struct, cheap to
    pickle), or
    None for a walked file that is not a trace. An AgentGuard trace is verified; a file of a
    format without integrity data is loaded through its importer (bounded, schema-checked) and
    reported ``no_integrity`` (docs/cli.md, verify)."""
    from tracekit.cli.trace_input import load_evidence, opened, skipped, unknown, verify_opened
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
                evidence = load_evidence(job.source, source)
                trace = no_integrity_trace(job.path, evidence.format, len(evidence.episodes))
            else:
                trace = verify_trace(verify_opened(job.source, source, options, job.jobs), job.path)
    except TracekitError as error:
        return unverified_trace(job.path, job.input_format, error.finding)
    return trace if loss is None else with_finding(trace, loss)
