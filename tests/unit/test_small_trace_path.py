"""A small trace skips building the fast path and goes through the exact path (docs/performance.md,
"Start-up"): the verdict must be the same as through the fast path, on every corpus trace."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers import ROOT
from tracekit.formats.agentguard import fastpath, verify
from tracekit.formats.agentguard.verify import VerifyReport, verify_file

TRACES = sorted(p for p in (ROOT / "corpus").rglob("*.jsonl") if "third_party" not in p.parts)


def _summary(report: VerifyReport) -> tuple[object, ...]:
    return (
        report.exit_code,
        report.trace_id,
        report.event_count,
        dict(report.counts),
        [(f.code, f.severity, f.message, f.line) for f in report.findings],
        [(s.index, s.code) for s in report.sources],
    )


def test_every_corpus_trace_gets_one_verdict_on_either_path(monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(TRACES) > 100
    for path in TRACES:
        monkeypatch.setattr(verify, "worth_building", lambda size: True)
        fast = _summary(verify_file(path))
        monkeypatch.setattr(verify, "worth_building", lambda size: False)
        exact = _summary(verify_file(path))
        assert fast == exact, path.relative_to(ROOT)


def test_small_traces_build_the_fast_path_once_they_add_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastpath, "_DECODE_LINE", [])
    monkeypatch.setattr(fastpath, "_EXACT_BYTES", [0])
    small = fastpath.SMALL_TRACE_BYTES // 4
    assert fastpath.worth_building(None)  # a stream: size unknown
    assert fastpath.worth_building(fastpath.SMALL_TRACE_BYTES)
    assert [fastpath.worth_building(small) for _ in range(5)] == [False, False, False, False, True]
    monkeypatch.setattr(fastpath, "_DECODE_LINE", [object()])
    monkeypatch.setattr(fastpath, "_EXACT_BYTES", [0])
    assert fastpath.worth_building(1)  # built already: always worth it


def test_a_small_trace_alone_does_not_build_the_fast_path() -> None:
    code = (
        "import sys\n"
        "from tracekit.formats.agentguard import fastpath\n"
        "from tracekit.formats.agentguard.verify import verify_file\n"
        "assert verify_file(sys.argv[1]).intact\n"
        "print(len(fastpath._DECODE_LINE))\n"
    )
    small = ROOT / "corpus" / "valid" / "v2__clean_run.jsonl"
    assert small.stat().st_size < fastpath.SMALL_TRACE_BYTES
    done = subprocess.run([sys.executable, "-c", code, str(small)], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.strip() == "0"
