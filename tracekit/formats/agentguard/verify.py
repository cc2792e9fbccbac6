"""verify(stream) -> VerifyReport: the streaming verifier (docs/trace-format.md steps 1-8).

The verifier never raises on bad data: every outcome is a report whose findings carry stable
codes. It reads the trace once, line by line, and keeps only the chain state and counters
(plus the typed events when a caller such as replay asks for them).
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import BinaryIO, NoReturn, Protocol

import msgspec
from msgspec.structs import astuple

from tracekit.formats.agentguard.chain import header_identity, policy_snapshot_hash, root_hash
from tracekit.formats.agentguard.fastpath import worth_building
from tracekit.formats.agentguard.loader import STDIN, RawLine, open_trace, read_lines
from tracekit.formats.agentguard.records import (
    EventRecord,
    HeaderRecord,
    RecordProblem,
    decode_exact,
    decode_fast,
    decode_header,
)
from tracekit.formats.agentguard.schema import agentguard as ag
from tracekit.formats.agentguard.semantics import _ZERO_ONLY as ZERO_ONLY
from tracekit.formats.agentguard.semantics import CHECKED, header_problem, payload_problem
from tracekit.formats.agentguard.sources import SourceStatus, check_source
from tracekit.kernel import collector
from tracekit.kernel.errors import Code, Finding, Severity, TracekitError, finding
from tracekit.kernel.limits import DEFAULT_BUDGET, DEFAULT_LIMITS, Limits, Meter

TraceDir = Path | Callable[[], Path] | None
"""Where sources resolve: a folder, or how to find it (only a trace with sources asks)."""
SINGLETONS = ("execution_started", "test_result", "execution_completed")
_POSITIONED = frozenset({*SINGLETONS, "containment_evidence"})


def plain_step(
    sequence: int, position: int, rank: int, new_rank: int, kind: str, record_type: str, off: object
) -> bool:
    """Step 6's common case, decided without the full checks: the right sequence, a plain event
    type at or above the current rank after execution_started (rank 0), a positive or null
    offset. Anything else (the first event, every type with a position or multiplicity rule,
    -0.0) takes the full, ordered checks. The serial walk and the parallel reduction
    (tracekit/formats/agentguard/verify_parallel.py) both decide it here."""
    return (
        sequence == position
        and new_rank >= rank >= 0
        and kind not in _POSITIONED
        and record_type == "event"
        and (off is None or (type(off) is int) or (isinstance(off, float) and off > 0))
    )
"""Event types with a position or multiplicity rule: always checked in full."""
EXIT_INTACT, EXIT_SOURCE, EXIT_INVALID = 0, 1, 2


class VerifyOptions(msgspec.Struct, frozen=True):
    """What to check and how strictly; the defaults reproduce upstream's verdicts."""

    limits: Limits = DEFAULT_LIMITS
    canonical: bool = False
    """Make non-canonical lines (spacing, key order, escapes, CRLF) fatal instead of notices."""
    strict_sources: bool = False
    """Treat an unavailable optional source as a failure (exit 1), as upstream's flag does."""
    trusted_roots: Mapping[str, Path] = msgspec.field(default_factory=dict)
    """Roots a source path may resolve against, by ``${NAME}``; RUN_ROOT replaces the trace dir."""
    check_sources: bool = True
    keep_events: bool = False
    """Keep the typed events in the report (show, audit and ``replay(report)`` need them)."""
    observe: Callable[[EventRecord], None] | None = None
    """Given each event once it passed steps 2-7, in order (a streaming consumer: replay)."""


class VerifyReport(msgspec.Struct):
    """Everything verify learned about one trace."""

    path: str
    findings: list[Finding] = msgspec.field(default_factory=list)
    sources: list[SourceStatus] = msgspec.field(default_factory=list)
    header: ag.Header | None = None
    events: list[EventRecord] = msgspec.field(default_factory=list)
    event_count: int = 0
    counts: Counter[str] = msgspec.field(default_factory=Counter)
    truncated_payloads: int = 0
    redaction_markers: int = 0
    strict_sources: bool = False

    @property
    def trace_id(self) -> str | None:
        """The header's trace id (a validated hex digest), when the header decoded."""
        return self.header.trace_id if self.header else None

    @property
    def schema_version(self) -> int | None:
        return self.header.schema_version if self.header else None

    @property
    def intact(self) -> bool:
        """True when no finding is an error: the trace verified."""
        return not any(f.severity is Severity.ERROR for f in self.findings)

    @property
    def exit_code(self) -> int:
        """0 intact, 1 intact but a source changed or is missing as required, 2 invalid."""
        if not self.intact:
            return EXIT_INVALID
        if any(f.severity is Severity.WARNING for f in self.findings):
            return EXIT_SOURCE
        return EXIT_INTACT

    @property
    def status(self) -> str:
        """intact, source_changed, source_missing (every warning is a source that is missing or
        unavailable, as required) or invalid: the status names what happened."""
        if self.exit_code == EXIT_SOURCE:
            warnings = {f.code for f in self.findings if f.severity is Severity.WARNING}
            missing = {Code.SOURCE_UNAVAILABLE, Code.SOURCE_REQUIRED_UNAVAILABLE}
            return "source_missing" if warnings <= missing else "source_changed"
        return ("intact", "source_changed", "invalid")[self.exit_code]


def verify_file(path: str | Path, options: VerifyOptions = VerifyOptions()) -> VerifyReport:
    """Verify the trace at ``path`` (``-`` for stdin) and return its report; never raises."""
    report = VerifyReport(path=str(path), strict_sources=options.strict_sources)
    # Resolved only for a trace with sources: a campaign's files cost no realpath each.
    trace_dir: TraceDir = None if str(path) == STDIN else lambda: Path(os.path.dirname(os.path.realpath(path)))
    try:
        with open_trace(path) as stream:
            _verify_stream(stream, options, report, trace_dir)
    except TracekitError as error:
        report.findings.append(error.finding)
    return report


def verify_stream(
    stream: BinaryIO, options: VerifyOptions = VerifyOptions(), trace_dir: Path | None = None
) -> VerifyReport:
    """Verify an open binary stream; sources resolve against ``trace_dir`` if given."""
    report = VerifyReport(path=STDIN, strict_sources=options.strict_sources)
    _verify_stream(stream, options, report, trace_dir)
    return report


def verify_bytes(data: bytes, options: VerifyOptions = VerifyOptions()) -> VerifyReport:
    """Verify a trace held in memory (tests, fuzzing, transformed traces)."""
    import io

    return verify_stream(io.BufferedReader(io.BytesIO(data)), options)


class _Stop(Exception):
    """The first error ends the walk; later checks would only repeat it."""


def _verify_stream(stream: BinaryIO, options: VerifyOptions, report: VerifyReport, trace_dir: TraceDir) -> None:
    def run(walk: Walk) -> None:
        size, lines = read_lines(stream, options.limits)
        walk.fast = worth_building(size)  # docs/performance.md, "Start-up": same verdict either way
        walk.run(lines)

    verify_walk(run, options, report, trace_dir)


def verify_walk(
    run: Callable[[Walk], None], options: VerifyOptions, report: VerifyReport, trace_dir: TraceDir
) -> None:
    """Run ``run`` on a fresh walk, turn what ends it into findings, then check the sources.

    The serial verifier runs :meth:`Walk.run` over the lines; the parallel one
    (tracekit/formats/agentguard/verify_parallel.py) feeds the same walk partly with its workers' summaries.
    """
    walk = Walk(options, report)
    try:
        run(walk)
    except _Stop:
        return
    except (TracekitError, RecordProblem) as error:
        report.findings.append(error.finding)
        return
    except OSError:
        report.findings.append(finding(Code.FORMAT_UNREADABLE))
        return
    if options.check_sources and report.header is not None:
        _check_sources(report, trace_dir() if callable(trace_dir) else trace_dir, options)


class Tail(Protocol):
    """What the walk remembers of the last event: an EventRecord or a worker's summary of it."""

    @property
    def line(self) -> int: ...
    @property
    def event_type(self) -> str: ...
    @property
    def event_hash(self) -> str: ...


class Facts(Tail, Protocol):
    """What step 6 reads of an event (an EventRecord, or verify_parallel.LineFacts)."""

    @property
    def sequence(self) -> int: ...
    @property
    def record_type(self) -> str: ...
    @property
    def relative_offset_seconds(self) -> int | float | None: ...


class Carry:
    """The chain state between two events: the walk's only memory of the events so far."""

    __slots__ = ("last", "position", "previous", "rank")

    def __init__(self) -> None:
        self.previous = ag.ZERO_HASH
        self.last: Tail | None = None
        self.position = 0
        self.rank = -1


class Walk:
    """The state of one streaming verification (steps 2-7)."""

    def __init__(self, options: VerifyOptions, report: VerifyReport) -> None:
        self.options = options
        self.report = report
        self.limits = options.limits
        self.non_canonical: list[int] = []
        self.paths: set[str] = set()
        self.crlf: list[int] = []
        self.fast = True  # try the fast path (step 3) on each event line; False: the exact path

    def fail(self, found: Finding) -> NoReturn:
        self.report.findings.append(found)
        raise _Stop

    def run(self, lines: Iterator[RawLine]) -> None:
        head = self.begin(lines)
        carry = Carry()
        # Kept events only grow the heap (tracekit/kernel/collector.py): about a tenth of a kept walk.
        with collector.paused(self.options.keep_events):
            self.events(lines, head.header.schema_version, carry)
        self.end(head, carry)

    def begin(self, lines: Iterator[RawLine]) -> HeaderRecord:
        """Step 1-7 for line 1: the header."""
        first = next(lines, None)
        if first is None:
            self.fail(finding(Code.LOAD_NO_EVENTS))
        return self.header(first)

    def end(self, head: HeaderRecord, carry: Carry) -> None:
        self.report.event_count = carry.position
        self.finish(head, carry.last)

    def events(self, lines: Iterator[RawLine], version: int, carry: Carry) -> None:
        """Steps 2-7 for each event line, in order; ``carry`` is updated as they pass."""
        previous = carry.previous
        last = carry.last
        position = carry.position
        rank = carry.rank
        keep, observe = self.options.keep_events, self.options.observe
        limits = self.limits
        report = self.report
        counts = report.counts
        ranks, fast = ag.EVENT_RANK, self.fast
        for raw in lines:
            position += 1
            report.event_count = position
            event = decode_fast(raw.raw, raw.number, version, previous, limits) if fast else None
            # A fast-path record has no negative zero in a plain float field: the payload rules
            # of the types whose only rule is that one are proved (records.decode_fast).
            zero_rule = event is None
            if event is None:
                event = decode_exact(raw.raw, raw.number, version, previous, limits)
            if raw.crlf or not event.canonical:  # the common case skips a call per event
                self.note_form(raw.number, raw.crlf, event.canonical)
            kind = event.event_type
            new_rank = ranks.get(kind, -1)
            if plain_step(event.sequence, position, rank, new_rank, kind, event.record_type,
                          event.relative_offset_seconds):
                rank = new_rank
            else:
                rank = self.structure(event, position, rank, version, last)
            if kind == "file_change":
                self.unique_path(event.payload.path, event.line)  # type: ignore[union-attr]
            counts[kind] += 1
            if keep:
                self.keep(event, raw)
            payload_type = type(event.payload)
            if payload_type in CHECKED and (zero_rule or payload_type not in ZERO_ONLY):
                problem = payload_problem(event.payload, raw.number, raw.raw if event.canonical else None)
                if problem is not None:
                    self.fail(problem)
            # Step 7.2-7.3: the link first, then the event's own hash.
            if event.previous_event_hash != previous:
                self.fail(finding(Code.CHAIN_BROKEN, raw.number, sequence=event.sequence))
            if event.computed_hash != event.event_hash:
                self.fail(finding(Code.CHAIN_EVENT_HASH_MISMATCH, raw.number, sequence=event.sequence))
            previous, last = event.event_hash, event
            if observe is not None:
                observe(event)
        carry.previous, carry.last, carry.position, carry.rank = previous, last, position, rank

    # -- step 4 and 6 for line 1 ----------------------------------------------------------
    def header(self, raw: RawLine) -> HeaderRecord:
        head = decode_header(raw.raw, raw.number, self.limits)
        self.note_form(raw.number, raw.crlf, head.canonical)
        h = head.header
        if h.schema != ag.FORMAT_ID:
            self.fail(finding(Code.SCHEMA_UNSUPPORTED_FORMAT, 1))
        if h.schema_version not in ag.SUPPORTED_VERSIONS:
            self.fail(finding(Code.SCHEMA_UNSUPPORTED_VERSION, 1))
        self.report.header = h
        if h.source_execution_type != "run":
            self.fail(finding(Code.SCHEMA_UNSUPPORTED_EXECUTION_TYPE, 1))
        if h.integrity.hash_algorithm != "sha256":
            self.fail(finding(Code.SCHEMA_UNSUPPORTED_HASH_ALGORITHM, 1))
        has_snapshot = "policy_snapshot" in head.value, "policy_snapshot_hash" in head.value
        if h.schema_version == 1 and any(has_snapshot):
            self.fail(finding(Code.SCHEMA_POLICY_SNAPSHOT_FORBIDDEN, 1))
        if h.schema_version > 1:
            if not all(has_snapshot):
                self.fail(finding(Code.SCHEMA_POLICY_SNAPSHOT_REQUIRED, 1, version=h.schema_version))
            snapshot = h.policy_snapshot
            assert snapshot is not ag.UNSET
            if snapshot.expected_modified_files_max < snapshot.expected_modified_files_min:
                self.fail(finding(Code.SCHEMA_INVALID_VALUE, 1))
            # Step 7.1: the snapshot hash, over the snapshot exactly as read.
            if policy_snapshot_hash(head.value["policy_snapshot"]) != h.policy_snapshot_hash:
                self.fail(finding(Code.CHAIN_POLICY_SNAPSHOT_HASH_MISMATCH, 1))
        problem = header_problem(h, 1)
        if problem is not None:
            self.fail(problem)
        return head

    # -- step 3 ----------------------------------------------------------------------------
    def note_form(self, number: int, crlf: bool, canonical: bool) -> None:
        if not canonical:
            self.non_canonical.append(number)
        if crlf:
            self.crlf.append(number)

    # -- step 6, per event -------------------------------------------------------------------
    def structure(self, event: Facts, position: int, rank: int, version: int, last: Tail | None) -> int:
        """Step 6's ordered checks, but the path uniqueness the caller checks next; the new rank."""
        line = event.line
        if event.record_type != "event":
            self.fail(finding(Code.SCHEMA_WRONG_RECORD_TYPE, line))
        if event.event_type == "containment_evidence" and version < 3:
            self.fail(finding(Code.SCHEMA_EVENT_NOT_IN_VERSION, line))
        off = event.relative_offset_seconds
        if type(off) is float and math.copysign(1.0, off) < 0:
            self.fail(finding(Code.SCHEMA_INVALID_VALUE, line))
        if event.sequence != position:
            code = (
                Code.STRUCTURE_SEQUENCE_DUPLICATE
                if event.sequence < position
                else Code.STRUCTURE_SEQUENCE_GAP
            )
            self.fail(finding(code, line))
        kind = event.event_type
        if (position == 1) != (kind == "execution_started"):
            self.fail(finding(Code.STRUCTURE_START_COMPLETION_ORDER, line))
        if last is not None and last.event_type == "execution_completed":
            self.fail(finding(Code.STRUCTURE_START_COMPLETION_ORDER, line))
        if kind == "containment_evidence" and (position != 2 or self.report.counts[kind]):
            self.fail(finding(Code.STRUCTURE_CONTAINMENT_POSITION, line))
        if kind in SINGLETONS and self.report.counts[kind]:
            self.fail(finding(Code.STRUCTURE_MULTIPLICITY, line, event_type=kind))
        new_rank = ag.EVENT_RANK[kind]
        if new_rank < rank:
            self.fail(finding(Code.STRUCTURE_EVENT_ORDER, line))
        return new_rank

    def unique_path(self, path: str, line: int) -> None:
        """Step 6.7: no two file_change events name the same path."""
        if path in self.paths:
            self.fail(finding(Code.STRUCTURE_DUPLICATE_FILE_CHANGE, line))
        self.paths.add(path)

    def keep(self, event: EventRecord, raw: RawLine) -> None:
        """Keep the event, and count truncated payloads and redaction markers (for show)."""
        report = self.report
        truncation = getattr(event.payload, "truncation", None)
        if truncation is not None and True in astuple(truncation) or isinstance(event.payload, ag.ExecutionCompleted) and event.payload.modified_files.truncated:
            report.truncated_payloads += 1
        if b"[REDACTED" in raw.raw:
            report.redaction_markers += 1
        report.events.append(event)

    # -- steps 6 and 7 at the end of the stream --------------------------------------------
    def finish(self, head: HeaderRecord, last: Tail | None) -> None:
        h = head.header
        counts = self.report.counts
        if last is None:
            self.fail(finding(Code.LOAD_NO_EVENTS))
        assert last is not None
        if h.event_count != self.report.event_count:
            self.fail(finding(Code.STRUCTURE_EVENT_COUNT_MISMATCH))
        if last.event_type != "execution_completed":
            self.fail(finding(Code.STRUCTURE_START_COMPLETION_ORDER, last.line))
        for kind in SINGLETONS:
            if counts[kind] != 1:
                self.fail(finding(Code.STRUCTURE_MULTIPLICITY, event_type=kind))
        if h.integrity.final_event_hash != last.event_hash:
            self.fail(finding(Code.CHAIN_FINAL_HASH_MISMATCH, 1))
        computed = root_hash(header_identity(head.value, h.schema_version), last.event_hash)
        if h.integrity.root_hash != computed:
            self.fail(finding(Code.CHAIN_ROOT_HASH_MISMATCH, 1))
        if h.trace_id != computed:
            self.fail(finding(Code.CHAIN_TRACE_ID_MISMATCH, 1))
        self.form_findings()

    def form_findings(self) -> None:
        severity = Severity.ERROR if self.options.canonical else Severity.NOTICE
        for code, lines in (
            (Code.CANONICAL_NON_CANONICAL_LINE, self.non_canonical),
            (Code.CANONICAL_CRLF, self.crlf),
        ):
            if lines:
                base = finding(code, lines[0], severity)
                suffix = f" {len(lines)} line(s), first shown."
                self.report.findings.append(
                    Finding(base.code, base.severity, base.message + suffix, base.line)
                )


def _check_sources(report: VerifyReport, trace_dir: Path | None, options: VerifyOptions) -> None:
    """Step 8: hash each recorded source against the caller's trusted roots."""
    assert report.header is not None
    sources = report.header.source_artifacts
    if not sources:
        report.findings.append(finding(Code.SOURCE_NONE_RECORDED))
        return
    total = Meter(DEFAULT_BUDGET.source_total_bytes)  # docs/threat-model.md, "Work budget"
    for index, source in enumerate(sources, start=1):
        status = check_source(index, source, trace_dir, options.trusted_roots, total=total)
        report.sources.append(status)
        severity = None
        if status.code is Code.SOURCE_UNAVAILABLE and options.strict_sources:
            severity = Severity.WARNING
        report.findings.append(finding(status.code, None, severity, index=index))
