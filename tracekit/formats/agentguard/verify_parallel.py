"""One trace on several cores: the lines decoded, checked and hashed in worker processes, the chain
reduced in order in the parent (docs/performance.md, "One trace on several cores").

An event's hash depends only on its own line and the ``previous_event_hash`` it records, so a
worker can decode, check and hash any range of lines without knowing the chain. The trace is read
once, cut into byte ranges at line boundaries, and:

1. the parent verifies the header and the first range itself with the serial walk (verify.Walk);
2. each worker (a forked child, which inherits the bytes read: nothing is read twice) frames its
   range exactly as the loader would, decodes every line (records.decode_event with the link it
   records), checks its payload rules and hash, and returns a compact summary in file order:
   :class:`Run` for a stretch of lines that each take step 6's common case and pass every check
   (given that the line before passed), :class:`LineFacts` for any other line (what step 6 and 7
   read of it, never the payload), :class:`Fail` for the first line it cannot decode;
3. the parent feeds the summaries through the same walk in file order: the first line of each
   range and every :class:`LineFacts` take the serial checks, a :class:`Run` only needs its paths
   checked against the paths seen so far, and the first failure ends the walk as in
   docs/adr/0002-first-error-ends-the-walk.md. Findings, counts and notices are the serial ones.

Memory: the bytes read (as the serial verifier holds them) plus, per range, one byte per line and
the file_change paths (which the serial walk keeps too); no event is kept.

Workers are forked (``os.fork``: no ``multiprocessing`` import, no pickled input), so this needs a
POSIX system and a single-threaded parent; anywhere else, with ``jobs`` 1, ``keep_events``,
standard input or a small trace, it is the serial verifier. A worker that fails or dies is
replaced by the parent doing its range.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import threading
from collections import Counter
from pathlib import Path

import msgspec

from tracekit.formats.agentguard.loader import STDIN, iter_buffer, open_trace, read_regular
from tracekit.formats.agentguard.records import (
    EventRecord,
    RecordProblem,
    decode_exact,
    decode_fast,
)
from tracekit.formats.agentguard.schema import agentguard as ag
from tracekit.formats.agentguard.semantics import _ZERO_ONLY as ZERO_ONLY
from tracekit.formats.agentguard.semantics import CHECKED, payload_problem
from tracekit.formats.agentguard.verify import (
    Carry,
    VerifyOptions,
    VerifyReport,
    Walk,
    plain_step,
    verify_walk,
)
from tracekit.formats.agentguard.verify import verify_file as verify_file_serial
from tracekit.kernel.errors import Code, Finding, TracekitError, finding
from tracekit.kernel.limits import Limits

MIN_RANGE_BYTES = 1024 * 1024
"""A range smaller than this is not worth a process (a fork and its summary cost ~1-3 ms)."""
MAX_JOBS = 64
PARENT_WEIGHT = 1.05
"""The parent's range is this much of a worker's. The parent also reads, forks and absorbs, but a
worker starts only after the read and the fork, counts the lines before its range and pays for
copy-on-write and its summary: on the 16 MiB trace with a 0.9 weight the parent used 0.105 s of
CPU in all, the worker 0.113 s from ~12 ms in (docs/performance.md)."""
_KINDS = tuple(ag.EVENT_RANK)
_KIND_INDEX = {kind: index for index, kind in enumerate(_KINDS)}


class LineFacts(msgspec.Struct, frozen=True, array_like=True):
    """What steps 6 and 7 read of one event line (the payload only through ``path`` and
    ``problem``); the names are EventRecord's, so the walk's checks read either."""

    line: int
    sequence: int
    event_type: str
    event_hash: str
    previous_event_hash: str
    relative_offset_seconds: int | float | None
    record_type: str
    path: str | None
    """The file_change path (step 6.7), else None."""
    problem: Finding | None
    """The payload rules' finding (steps 4-5), computed in the worker."""
    computed_hash: str
    canonical: bool
    crlf: bool


class Run(msgspec.Struct, frozen=True, array_like=True):
    """Consecutive lines that each take step 6's common case and pass steps 4-7 given that the
    line before them passed: canonical LF lines, the right sequence, plain event types of
    non-decreasing rank, positive or null offsets, no payload finding, every link and hash
    right. Only their file_change paths still need the paths seen before (step 6.7)."""

    first_line: int
    kinds: bytes
    """One byte per line: the index of its event type in ``_KINDS``."""
    paths: list[tuple[int, str]]
    """(line, path) of each file_change, in order."""
    last_hash: str
    last_rank: int


class Fail(msgspec.Struct, frozen=True, array_like=True):
    """The first line of a range that the loader or the decoder refuses."""

    found: Finding
    event_count: int
    """The walk's event count when it fails there (a loader failure precedes the line's count)."""


class _Last(msgspec.Struct, frozen=True):
    line: int
    event_type: str
    event_hash: str


Segment = LineFacts | Run | Fail


# ---------------------------------------------------------------------------- the worker


def range_summary(data: bytes, start: int, stop: int, version: int, limits: Limits) -> list[Segment]:
    """Steps 1-7 of every line in ``data[start:stop]`` (``start`` the first byte of a line) that
    do not need the chain: what a worker returns. Pure; never raises on bad data.

    The first line's number is counted here, in the worker, rather than by the parent before it
    forks: the parent's start-up is on the critical path."""
    number = 1 + data.count(b"\n", 0, start)
    out: list[Segment] = []
    kinds = bytearray()
    paths: list[tuple[int, str]] = []
    run_first = 0
    previous: str | None = None
    rank = -1
    ranks = ag.EVENT_RANK
    index = _KIND_INDEX
    number = number - 1
    try:
        for raw in iter_buffer(data, limits, start, stop, number + 1):
            number = raw.number
            event, problem = _decoded(raw.raw, number, version, limits)
            kind = event.event_type
            new_rank = ranks.get(kind, -1)
            off = event.relative_offset_seconds
            payload = event.payload
            if (
                # verify.Walk.events' common case, with the line before as the chain state
                previous is not None
                and plain_step(event.sequence, number - 1, rank, new_rank, kind, event.record_type, off)
                and problem is None
                and event.canonical
                and not raw.crlf
                and event.previous_event_hash == previous
                and event.computed_hash == event.event_hash
            ):
                if not kinds:
                    run_first = number
                kinds.append(index[kind])
                if kind == "file_change":
                    paths.append((number, payload.path))  # type: ignore[union-attr]
            else:
                if kinds:
                    out.append(Run(run_first, bytes(kinds), paths, previous or "", rank))
                    kinds = bytearray()
                    paths = []
                path = payload.path if kind == "file_change" else None  # type: ignore[union-attr]
                out.append(LineFacts(
                    number, event.sequence, kind, event.event_hash, event.previous_event_hash,
                    off, event.record_type, path, problem, event.computed_hash, event.canonical,
                    raw.crlf,
                ))
            # The state the parent holds after this line if it passes (Walk.structure returns
            # the type's rank too).
            rank = new_rank
            previous = event.event_hash
    except (TracekitError, RecordProblem) as error:  # the loader (before this line is counted), the decoder
        _flush(out, kinds, paths, run_first, previous, rank)
        out.append(Fail(error.finding, number - 1))
        return out
    _flush(out, kinds, paths, run_first, previous, rank)
    return out


def _decoded(raw: bytes, number: int, version: int, limits: Limits) -> tuple[EventRecord, Finding | None]:
    """One line decoded (the fast path, else the exact one) and its payload's first problem, with
    the zero-only rules applied only where the exact path decoded it (as in Walk.events)."""
    event = decode_fast(raw, number, version, None, limits)
    zero_rule = event is None
    if event is None:
        event = decode_exact(raw, number, version, None, limits)
    payload = event.payload
    if type(payload) in CHECKED and (zero_rule or type(payload) not in ZERO_ONLY):
        return event, payload_problem(payload, number, raw if event.canonical else None)
    return event, None


def _flush(out: list[Segment], kinds: bytearray, paths: list[tuple[int, str]], first: int,
           previous: str | None, rank: int) -> None:
    if kinds:
        out.append(Run(first, bytes(kinds), paths, previous or "", rank))


# ---------------------------------------------------------------------------- the reduction


def absorb(walk: Walk, segments: list[Segment], version: int, carry: Carry) -> None:
    """Feed a range's summaries through ``walk`` in file order, exactly as Walk.events would
    have walked its lines: the same checks in the same order, the first failure ends the walk."""
    report = walk.report
    counts = report.counts
    for segment in segments:
        if type(segment) is Run:
            _absorb_run(walk, segment, counts, carry)
        elif type(segment) is LineFacts:
            _absorb_line(walk, segment, version, carry)
        else:
            assert type(segment) is Fail
            report.event_count = segment.event_count
            walk.fail(segment.found)


def _absorb_run(walk: Walk, run: Run, counts: Counter[str], carry: Carry) -> None:
    # Each line of the run passes every check given the line before; only step 6.7 needs the
    # paths seen before the run. A repeated path fails at its line, with the counts and the
    # event count the serial walk would have reached there.
    seen = walk.paths
    for line, path in run.paths:
        if path in seen:
            done = line - run.first_line
            for kind_index, n in Counter(run.kinds[:done]).items():
                counts[_KINDS[kind_index]] += n
            walk.report.event_count = line - 1
            walk.unique_path(path, line)
        seen.add(path)
    for kind_index, n in Counter(run.kinds).items():
        counts[_KINDS[kind_index]] += n
    last_line = run.first_line + len(run.kinds) - 1
    carry.previous = run.last_hash
    carry.last = _Last(last_line, _KINDS[run.kinds[-1]], run.last_hash)
    carry.position = last_line - 1
    carry.rank = run.last_rank
    walk.report.event_count = carry.position


def _absorb_line(walk: Walk, event: LineFacts, version: int, carry: Carry) -> None:
    """Walk.events' loop body for one line a worker decoded (same checks, same order)."""
    report = walk.report
    position = carry.position + 1
    report.event_count = position
    if event.crlf or not event.canonical:
        walk.note_form(event.line, event.crlf, event.canonical)
    kind = event.event_type
    rank = carry.rank
    new_rank = ag.EVENT_RANK.get(kind, -1)
    if plain_step(event.sequence, position, rank, new_rank, kind, event.record_type, event.relative_offset_seconds):
        rank = new_rank
    else:
        rank = walk.structure(event, position, rank, version, carry.last)
    if event.path is not None:
        walk.unique_path(event.path, event.line)
    report.counts[kind] += 1
    if event.problem is not None:
        walk.fail(event.problem)
    if event.previous_event_hash != carry.previous:
        walk.fail(finding(Code.CHAIN_BROKEN, event.line, sequence=event.sequence))
    if event.computed_hash != event.event_hash:
        walk.fail(finding(Code.CHAIN_EVENT_HASH_MISMATCH, event.line, sequence=event.sequence))
    carry.previous = event.event_hash
    carry.last = event
    carry.position = position
    carry.rank = rank


# ---------------------------------------------------------------------------- the parent


def verify_file(
    path: str | Path,
    options: VerifyOptions = VerifyOptions(),
    jobs: int = 2,
    min_range_bytes: int = MIN_RANGE_BYTES,
) -> VerifyReport:
    """Verify the trace at ``path`` with up to ``jobs`` processes; the report is the one
    tracekit.formats.agentguard.verify.verify_file returns, finding for finding. Never raises on bad data."""
    jobs = max(1, min(jobs, MAX_JOBS))
    if jobs == 1 or options.keep_events or options.observe or str(path) == STDIN or not _can_fork():
        return verify_file_serial(path, options)
    report = VerifyReport(path=str(path), strict_sources=options.strict_sources)
    trace_dir = Path(path).resolve().parent
    data: bytes | None = None
    try:
        with open_trace(path) as stream:
            data = read_regular(stream, options.limits)
            if data is None:  # a FIFO or a device: read as a stream, serially
                from tracekit.formats.agentguard.verify import verify_stream

                serial = verify_stream(stream, options, trace_dir)
                serial.path = report.path
                return serial
    except TracekitError as error:
        report.findings.append(error.finding)
        return report
    except OSError:
        report.findings.append(finding(Code.FORMAT_UNREADABLE))
        return report
    ranges = split(data, jobs, max(1, min_range_bytes))
    verify_walk(lambda walk: run_ranges(walk, data, ranges), options, report, trace_dir)
    return report


def split(data: bytes, jobs: int, min_range_bytes: int) -> list[tuple[int, int]]:
    """Cut ``data`` into at most ``jobs`` ranges of whole lines, each at least
    ``min_range_bytes`` long: (start, stop).

    A range starts just after a ``\\n``, where the loader also starts a line unless a line before
    it is too long, in which case that earlier line fails first and the later ranges are never
    looked at.
    """
    size = len(data)
    count = max(1, min(jobs, size // min_range_bytes))
    ranges: list[tuple[int, int]] = []
    start = 0
    total = PARENT_WEIGHT + count - 1
    for index in range(1, count):
        newline = data.find(b"\n", max(start, int(size * (PARENT_WEIGHT + index - 1) / total)))
        if newline < 0 or newline + 1 >= size:
            break
        stop = newline + 1
        ranges.append((start, stop))
        start = stop
    ranges.append((start, size))
    return ranges


def _can_fork() -> bool:
    # A forked child of a multi-threaded parent may inherit a lock held by another thread.
    return hasattr(os, "fork") and threading.active_count() == 1


def run_ranges(
    walk: Walk, data: bytes, ranges: list[tuple[int, int]], workers: bool = True
) -> None:
    """The parent: the header and the first range serially, each other range summarised by a
    worker (or, with ``workers`` False or when a worker fails, by the parent itself), absorbed
    in file order."""
    limits = walk.limits
    first_start, first_stop = ranges[0]
    lines = iter_buffer(data, limits, first_start, first_stop, 1)
    head = walk.begin(lines)
    version = head.header.schema_version
    started: list[_Worker] = []
    try:
        if workers:
            for start, stop in ranges[1:]:
                started.append(_Worker(data, start, stop, version, limits))
        carry = Carry()
        walk.events(lines, version, carry)
        for index, (start, stop) in enumerate(ranges[1:]):
            segments = started[index].receive() if started else None
            if segments is None:  # no worker, or it failed: the parent does the range
                segments = range_summary(data, start, stop, version, limits)
            absorb(walk, segments, version, carry)
        walk.end(head, carry)
    finally:
        for worker in started:
            worker.stop()


class _Worker:
    """A forked child summarising one range: it inherits the bytes read (nothing is read twice,
    nothing is sent to it) and writes its pickled summary to a pipe."""

    def __init__(
        self, data: bytes, start: int, stop: int, version: int, limits: Limits
    ) -> None:
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child never returns from here
            code = 1
            try:
                os.close(read_end)
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles an interrupt
                summary = pickle.dumps(range_summary(data, start, stop, version, limits))
                view = memoryview(summary)
                while view:
                    view = view[os.write(write_end, view) :]
                code = 0
            finally:
                os._exit(code)
        os.close(write_end)
        self.pid: int | None = pid
        self.fd: int | None = read_end

    def receive(self) -> list[Segment] | None:
        """The worker's summary, or None when it failed (the parent then does the range)."""
        assert self.fd is not None
        chunks = []
        while chunk := os.read(self.fd, 1 << 20):
            chunks.append(chunk)
        self.stop()
        try:
            summary: list[Segment] = pickle.loads(b"".join(chunks))  # from our own child
        except Exception:  # noqa: BLE001 - a child that died mid-write: redo its range
            return None
        return summary

    def stop(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.pid = None
