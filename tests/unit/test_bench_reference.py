"""The benchmark's baseline verifier (bench/reference.py) agrees with tracekit.

The speed-ups in docs/performance.md compare tracekit with that baseline, so the two must
reach the same verdict and the same root hash on the benchmark's own kind of input: small
traces from the benchmark generator, the valid corpus, and tampered copies.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import reference
import tracegen

from tracekit.formats.agentguard.verify import verify_file

SMALL = tracegen.build(events=60, target_bytes=120_000, seed=3, name="small")


def _tampered(data: bytes) -> dict[str, bytes]:
    return tracegen.tampered_copies(data, "task-small")


def _agree(path: Path) -> tuple[bool, bool]:
    ref = reference.verify_path(str(path))
    report = verify_file(path)
    intact = report.exit_code in (0, 1)
    assert ref.ok == intact, (path.name, ref.reason, [f.code.value for f in report.findings])
    if intact:
        assert ref.root == report.trace_id
    return ref.ok, intact


@pytest.mark.parametrize("name", sorted(_tampered(SMALL)))
def test_generated_traces_and_tampered_copies(tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.jsonl"
    path.write_bytes(_tampered(SMALL)[name])
    ok, _ = _agree(path)
    assert ok == (name in ("intact", "non_canonical_spacing", "crlf"))


def test_valid_corpus() -> None:
    traces = sorted((ROOT / "corpus" / "valid").glob("*.jsonl"))
    assert traces
    for path in traces:
        assert _agree(path) == (True, True)


def test_generator_writes_what_it_promises() -> None:
    lines = SMALL.split(b"\n")[:-1]
    assert len(lines) == 61
    assert len(SMALL) <= 120_000
    kinds = {json.loads(line).get("event_type") for line in lines[1:]}
    assert {"agent_command", "file_change", "check_result", "guard_summary"} <= kinds
