"""Bytes read, bytes held and lines split (docs/threat-model.md, "Work budget"): source hashing
stops at its bound, metamorphic holds one frozen draft and never deep-copies it, and every
place that turns bytes into lines splits on "\\n" only."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from gen import base, worst

from tests.complexity.support import Reads, count_reads, source
from tests.unit.metamorphic.support import sweep
from tracekit.formats.agentguard.sources import check_source
from tracekit.formats.agentguard.verify import VerifyOptions, verify_bytes, verify_file
from tracekit.formats.agentguard.writer import DraftTrace, freeze, read_draft, thaw, write_trace
from tracekit.judging.metamorphic import NAMES, cases
from tracekit.judging.metamorphic.transforms.canonical_reencoding import reencode
from tracekit.judging.replay import replay
from tracekit.kernel.errors import Code


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Reads:
    return count_reads(monkeypatch)


def test_a_huge_sparse_source_is_not_read(tmp_path: Path, reads: Reads) -> None:
    sparse = tmp_path / "report.json"
    with sparse.open("wb") as handle:
        handle.truncate(8 * 1024**3)  # 8 GiB, a few blocks on disk
    status = check_source(1, source("report.json"), tmp_path, {})
    assert (status.status, status.code) == ("too_large", Code.SOURCE_TOO_LARGE)
    assert reads.bytes == 0


def test_a_source_at_the_bound_is_hashed_and_one_past_is_not(tmp_path: Path, reads: Reads) -> None:
    (tmp_path / "a").write_bytes(b"")
    (tmp_path / "b").write_bytes(b"x" * 1025)
    assert check_source(1, source("a"), tmp_path, {}, max_bytes=1024).status == "match"
    assert check_source(2, source("b"), tmp_path, {}, max_bytes=1024).status == "too_large"
    assert reads.bytes == 0
    (tmp_path / "c").write_bytes(b"x" * 1024)
    assert check_source(3, source("c"), tmp_path, {}, max_bytes=1024).status == "changed"
    assert reads.bytes == 1024


def test_too_large_source_is_a_verify_warning(tmp_path: Path) -> None:
    draft = base.clean_trace()
    draft.header["source_artifacts"] = [
        {"path": "report.json", "required": True, "role": "report", "sha256": base.EMPTY_SHA}
    ]
    with (tmp_path / "report.json").open("wb") as handle:
        handle.truncate(64 * 1024**2)
    (tmp_path / "trace.jsonl").write_bytes(write_trace(draft))
    report = verify_file(tmp_path / "trace.jsonl", VerifyOptions())
    assert report.intact and report.exit_code == 1
    assert Code.SOURCE_TOO_LARGE in [f.code for f in report.findings]


def test_separators_inside_strings_survive_every_line_split() -> None:
    data = worst.separator_trace()
    assert "\u2028".encode() in data and verify_bytes(data, VerifyOptions(check_sources=False)).intact
    canonical = write_trace(read_draft(data))
    assert canonical.count(b"\n") == data.count(b"\n")
    for style in range(3):
        respelled = reencode(data, style)
        assert respelled.count(b"\n") == data.count(b"\n")
        assert verify_bytes(respelled, VerifyOptions(check_sources=False)).intact
    frozen = freeze(read_draft(data))
    assert write_trace(thaw(frozen)) == canonical


def test_metamorphic_sweeps_a_trace_with_raw_separators() -> None:
    result = sweep(worst.separator_trace(), NAMES)
    assert result.skipped is None
    assert len(result.cases) == len(NAMES)
    assert all(case.passed is not False for case in result.cases), [
        (c.transform, c.reason) for c in result.cases if c.passed is False
    ]


def test_metamorphic_holds_a_frozen_draft_and_never_deep_copies_it(monkeypatch: pytest.MonkeyPatch) -> None:
    data = base.clean_trace()
    source = write_trace(data)
    held: list[object] = []
    real_source = cases._Source

    def spy(*args: object) -> object:
        made = real_source(*args)  # type: ignore[arg-type]
        held.append(made)
        return made

    real_deepcopy = copy.deepcopy

    def no_deepcopy(value: object, memo: dict[int, object] | None = None) -> object:
        assert not isinstance(value, DraftTrace), "a sweep must not deep-copy a whole draft"
        return real_deepcopy(value, memo)

    monkeypatch.setattr(cases, "_Source", spy)
    monkeypatch.setattr(copy, "deepcopy", no_deepcopy)
    result = sweep(source, NAMES, trials=2)
    assert result.skipped is None and len(result.cases) == 2 * len(NAMES)
    (kept,) = held
    assert isinstance(kept, real_source)
    assert set(real_source.__slots__) == {"outcome", "trace_id", "enabled", "frozen"}
    assert isinstance(kept.frozen, bytes) and len(kept.frozen) < len(source)


def test_thawed_drafts_are_fresh_and_handed_over_once() -> None:
    from tracekit.judging.metamorphic.edits import clone

    frozen = freeze(read_draft(write_trace(base.clean_trace())))
    first, second = thaw(frozen), thaw(frozen)
    assert first == second and first is not second and first.events[0].payload is not second.events[0].payload
    assert clone(first) is first  # handed over: it was built for this one use
    again = clone(first)
    assert again is not first and again == first  # a second clone copies
    assert not DraftTrace(header={}).owned


def test_replay_and_audit_share_the_cross_field_rules() -> None:
    from tracekit.judging.audit.consistency import check_consistency

    draft = base.clean_trace()
    for position, event in enumerate(draft.events):
        event.relative_offset_seconds = float(100 - position)
    draft.events[1].payload["working_directory_role"] = "elsewhere"
    report = verify_bytes(write_trace(draft), VerifyOptions(keep_events=True, check_sources=False))
    assert report.intact and report.header is not None
    notices = {n.code: n for n in replay(report).notices}
    audit = {f.code: f for f in check_consistency(report.header, report.events)}
    pairs = [
        (Code.REPLAY_NON_MONOTONIC_OFFSETS, Code.AUDIT_NON_MONOTONIC_OFFSETS),
        (Code.REPLAY_UNKNOWN_WORKING_DIRECTORY_ROLE, Code.AUDIT_UNKNOWN_WORKING_DIRECTORY_ROLE),
    ]
    for replay_code, audit_code in pairs:
        assert notices[replay_code].line == audit[audit_code].line


def test_transformed_traces_are_written_by_the_worker_one_at_a_time(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """--output-dir: the worker writes each case's trace into the staging folder and returns only
    its name, so no transformed trace is held or crosses the executor (memory: one case)."""
    import msgspec

    from tracekit.judging.metamorphic.cases import StudyConfig, TraceTask, evaluate_source

    source = worst.evidence_bomb(commands=32, repeats=8, command_chars=2048)
    config = StudyConfig(transforms=NAMES, transformed_dir=str(tmp_path))
    result = evaluate_source(TraceTask(1, "m.jsonl", "m.jsonl", config), source, None)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted(result.transformed) and len(names) > 0
    assert len(msgspec.msgpack.encode(result)) < len(source)  # names and cases only, no trace bytes
    for name in names:
        assert name.endswith(".jsonl")
        if "invalid_" not in name:
            assert verify_bytes((tmp_path / name).read_bytes(), VerifyOptions(check_sources=False)).intact, name
