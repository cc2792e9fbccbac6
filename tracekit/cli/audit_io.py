"""File access for ``tracekit audit``: sniff a file, read it the bounded way its format needs,
and hand the data to the pure audit engine (tracekit/audit/engine.py).

Runs in worker processes with ``--jobs``, so a job is plain data and the result is the trace's
JSON form (cheap to pickle). Nothing here raises on bad input: an unreadable file becomes a
report that exits 2.
"""

from __future__ import annotations

import io
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tracekit.errors import Code, TracekitError, finding

STDIN = "-"


@dataclass(frozen=True, slots=True)
class AuditOptions:
    """What every file of one audit run is audited with: plain data for any executor."""

    strict_sources: bool
    roots: tuple[tuple[str, str], ...]
    """``--trusted-root`` pairs (NAME, absolute folder)."""
    scenario: bytes | None
    """The ``--scenario`` YAML, validated once by the command."""


@dataclass(frozen=True, slots=True)
class AuditJob:
    """One file to audit: plain data for any executor."""

    path: str
    """As the user gave it: the report shows this."""
    source: str
    """Absolute, made so where the user ran tracekit (a worker may run in another folder, or on
    another machine with a shared filesystem); ``-`` for standard input."""
    named: bool
    """Named on the command line (audited whatever it is), not found by walking a folder."""
    opts: AuditOptions


def _read_prefix(path: str, size: int) -> bytes:
    """Up to ``size`` bytes of ``path``; raises TracekitError(load.unreadable) for a folder,
    a socket or an OSError."""
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below
    except OSError:
        raise TracekitError(finding(Code.LOAD_UNREADABLE)) from None
    with handle:
        try:
            mode = os.fstat(handle.fileno()).st_mode
            if stat.S_ISDIR(mode) or stat.S_ISSOCK(mode):
                raise TracekitError(finding(Code.LOAD_UNREADABLE))
            return handle.read(size)
        except OSError:
            raise TracekitError(finding(Code.LOAD_UNREADABLE)) from None


def audit_job(job: AuditJob) -> dict[str, Any] | None:
    """Audit one file; None when a file found by walking a folder is not a trace at all. The
    file is read from its absolute path (a worker may run in another folder); the report names
    it as the user gave it."""
    result = _audit(job.source, job.named, job.opts)
    return None if result is None else {**result, "path": job.path}


def _audit(path: str, named: bool, opts: AuditOptions) -> dict[str, Any] | None:
    from tracekit.audit import SNIFF_BYTES, audit_agentguard, audit_harness, sniff, unreadable
    from tracekit.cli import check_io
    from tracekit.harness.scenario import parse_scenario
    from tracekit.limits import HARNESS_LIMITS
    from tracekit.verify import VerifyOptions, verify_file, verify_stream

    data: bytes | None = None
    try:
        if path == STDIN:
            data = check_io.read_stdin(HARNESS_LIMITS.total_bytes, Code.HARNESS_TRACE_TOO_LARGE)
            prefix = data[:SNIFF_BYTES]
        else:
            prefix = _read_prefix(path, SNIFF_BYTES)
    except TracekitError as error:
        return unreadable(path, "unknown", error.finding).to_dict()
    sniffed = sniff(prefix, path)
    if sniffed.format == "unknown":
        if not named:
            return None
        return unreadable(path, "unknown", finding(Code.AUDIT_UNKNOWN_FORMAT)).to_dict()
    scenario_bytes = opts.scenario
    if sniffed.format == "agentguard":
        options = VerifyOptions(
            keep_events=True,
            strict_sources=opts.strict_sources,
            trusted_roots={k: Path(v) for k, v in opts.roots},
        )
        if data is not None:
            verified = verify_stream(io.BufferedReader(io.BytesIO(data)), options)
        else:
            verified = verify_file(path, options)
        return audit_agentguard(
            verified,
            strict_sources=opts.strict_sources,
            scenario_given=scenario_bytes is not None,
        ).to_dict()
    try:
        body = data if data is not None else check_io.read_trace(path)
    except TracekitError as error:
        return unreadable(path, "harness", error.finding).to_dict()
    scenario = parse_scenario(scenario_bytes) if scenario_bytes is not None else None
    return audit_harness(path, body, scenario).to_dict()
