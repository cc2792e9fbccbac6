"""The parallel verifier reports exactly what the serial one does, on every corpus file, whatever
the ranges: same findings (the first error, reported the same way), counts, notices, sources."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from tests.helpers import CORPUS
from tracekit.formats.agentguard.verify import VerifyOptions, VerifyReport, verify_file, verify_walk
from tracekit.formats.agentguard.verify_parallel import Run, range_summary, run_ranges, split
from tracekit.formats.agentguard.verify_parallel import verify_file as verify_parallel
from tracekit.kernel.limits import DEFAULT_LIMITS

TRACES = sorted(CORPUS.glob("**/*.jsonl"))
OPTIONS = [
    VerifyOptions(),
    VerifyOptions(canonical=True),
    VerifyOptions(strict_sources=True),
]


def _state(report: VerifyReport) -> list[object]:
    return [getattr(report, field.name) for field in msgspec.structs.fields(report)]


def _lines(data: bytes) -> list[int]:
    """Offsets where a line starts (after each newline but the last)."""
    starts = [0]
    position = data.find(b"\n")
    while 0 <= position < len(data) - 1:
        starts.append(position + 1)
        position = data.find(b"\n", position + 1)
    return starts


def _ranges(data: bytes, starts: list[int]) -> list[tuple[int, int]]:
    """Ranges beginning at ``starts`` (line starts, first 0)."""
    bounds = [*starts, len(data)]
    return [(bounds[i], bounds[i + 1]) for i in range(len(starts))]


def _inline(path: Path, options: VerifyOptions, ranges: list[tuple[int, int]]) -> VerifyReport:
    data = path.read_bytes()[: options.limits.total_bytes + 1]
    report = VerifyReport(path=str(path), strict_sources=options.strict_sources)
    verify_walk(
        lambda walk: run_ranges(walk, data, ranges, workers=False),
        options,
        report,
        path.resolve().parent,
    )
    return report


def _splits(data: bytes) -> list[list[int]]:
    """Every line its own range, every single cut, and a few random multi-way cuts."""
    starts = _lines(data)
    cuts = [starts] + [[0, s] for s in starts[1:]]
    rng = random.Random(len(data))
    for _ in range(3):
        if len(starts) > 2:
            cuts.append([0, *sorted(rng.sample(starts[1:], min(3, len(starts) - 1)))])
    return cuts


def test_corpus_has_traces() -> None:
    assert len(TRACES) > 100


@pytest.mark.parametrize("path", TRACES, ids=[str(p.relative_to(CORPUS)) for p in TRACES])
def test_every_cut_reports_what_serial_reports(path: Path) -> None:
    data = path.read_bytes()
    for options in OPTIONS:
        serial = _state(verify_file(path, options))
        for starts in _splits(data):
            assert _state(_inline(path, options, _ranges(data, starts))) == serial, starts


def _forked_agreement() -> int:
    """Forked workers (jobs 2 and 3, ranges of any size) on every corpus file, and workers that
    fail in the child: the reports must be the serial ones. Run in a fresh interpreter
    (:func:`test_forked_workers_report_what_serial_reports`): the parallel verifier falls back to
    the serial one in a process where another test left threads running."""
    import os

    import tracekit.formats.agentguard.verify_parallel as vp

    assert vp._can_fork()
    for jobs in (2, 3):
        for path in TRACES:
            for options in OPTIONS[:2]:
                expected = _state(verify_file(path, options))
                got = verify_parallel(path, options, jobs=jobs, min_range_bytes=1)
                assert _state(got) == expected, path
    parent = os.getpid()
    real = vp.range_summary
    calls: list[int] = []

    def fails_in_a_child(*args: Any) -> Any:
        if os.getpid() != parent:
            raise RuntimeError("worker failure")
        calls.append(args[1])
        return real(*args)

    vp.range_summary = fails_in_a_child  # type: ignore[assignment]
    try:
        for path in TRACES[:40]:
            assert _state(verify_parallel(path, jobs=3, min_range_bytes=1)) == _state(verify_file(path))
        calls.clear()
        valid = CORPUS / "valid" / "v2__clean_run.jsonl"
        assert verify_parallel(valid, jobs=3, min_range_bytes=1).intact
        assert len(calls) == 2  # both workers failed; the parent did their ranges
    finally:
        vp.range_summary = real  # type: ignore[assignment]
    return 0


def test_forked_workers_report_what_serial_reports() -> None:
    import subprocess
    import sys

    code = (
        "import sys; sys.path[:0] = [sys.argv[1], sys.argv[2]]; "
        "from tests.unit.test_verify_parallel import _forked_agreement; "
        "sys.exit(_forked_agreement())"
    )
    root = CORPUS.parent
    result = subprocess.run(
        [sys.executable, "-c", code, str(root), str(CORPUS)],
        capture_output=True, cwd=root, timeout=600, check=False,
    )
    assert result.returncode == 0, result.stderr.decode()[-3000:]


def test_split_cuts_whole_lines_and_numbers_them() -> None:
    data = b"".join(b"x" * (i % 7 + 1) + b"\n" for i in range(200))
    for jobs in (1, 2, 3, 8, 64):
        ranges = split(data, jobs, 16)
        assert ranges[0][0] == 0 and ranges[-1][1] == len(data)
        assert len(ranges) <= jobs
        for (start, stop), following in zip(ranges, [*ranges[1:], None], strict=True):
            assert start == 0 or data[start - 1 : start] == b"\n"
            if following is not None:
                assert following[0] == stop
    assert split(data, 4, len(data)) == [(0, len(data))]


def test_a_clean_range_comes_back_as_runs() -> None:
    path = CORPUS / "valid" / "v2__clean_run.jsonl"
    data = path.read_bytes()
    starts = _lines(data)
    summary = range_summary(data, starts[1], len(data), 2, DEFAULT_LIMITS)
    runs = [s for s in summary if isinstance(s, Run)]
    assert runs and sum(len(r.kinds) for r in runs) > len(summary) - len(runs)


def test_small_files_and_one_job_are_serial() -> None:
    path = CORPUS / "valid" / "v2__clean_run.jsonl"
    assert _state(verify_parallel(path, jobs=1)) == _state(verify_file(path))
    assert _state(verify_parallel(path, jobs=4)) == _state(verify_file(path))
    keep = VerifyOptions(keep_events=True)
    assert _state(verify_parallel(path, keep, jobs=4, min_range_bytes=1)) == _state(
        verify_file(path, keep)
    )


def test_negative_zero_only_types_have_plain_float_fields() -> None:
    """Walk skips the payload rules of semantics._ZERO_ONLY types for fast-path records, which
    prove only their plain float fields free of -0.0: those types must have no other floats."""
    import msgspec.inspect as mi

    from tracekit.formats.agentguard.fastpath import line_decoder
    from tracekit.formats.agentguard.semantics import _ZERO_ONLY

    line_decoder()
    plain = (mi.FloatType, mi.IntType, mi.NoneType)
    for kind in _ZERO_ONLY:
        info = mi.type_info(kind)
        assert isinstance(info, mi.StructType)
        for field in info.fields:
            members = field.type.types if isinstance(field.type, mi.UnionType) else (field.type,)
            if any(isinstance(m, mi.FloatType) for m in members):
                assert all(isinstance(m, plain) for m in members), (kind, field.name)
            else:
                assert not _holds_float(field.type), (kind, field.name)


def _holds_float(kind: Any) -> bool:
    import msgspec.inspect as mi

    if isinstance(kind, mi.FloatType):
        return True
    if isinstance(kind, mi.UnionType):
        return any(_holds_float(m) for m in kind.types)
    if isinstance(kind, mi.ListType):
        return _holds_float(kind.item_type)
    if isinstance(kind, mi.DictType):
        return _holds_float(kind.value_type)
    if isinstance(kind, mi.StructType):
        return any(_holds_float(f.type) for f in kind.fields)
    return False


def test_a_negative_zero_takes_the_exact_path() -> None:
    from gen import base

    from tracekit.formats.agentguard.records import decode_fast
    from tracekit.formats.agentguard.writer import write_trace

    draft = base.clean_trace(2)
    draft.events[1].payload["duration_seconds"] = -0.0
    data = write_trace(draft)
    line = data.split(b"\n")[2]
    assert b'"duration_seconds":-0.0' in line
    assert decode_fast(line, 3, 2, None, DEFAULT_LIMITS) is None
    findings = verify_bytes_codes(data)
    assert findings == ["schema.invalid_value"]


def verify_bytes_codes(data: bytes) -> list[str]:
    from tracekit.formats.agentguard.verify import verify_bytes

    return [f.code.value for f in verify_bytes(data).findings if f.severity.value == "error"]
