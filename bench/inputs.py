"""The benchmark inputs under bench/data/ (git-ignored; docs/performance.md, "The benchmark"):
the ~16 MiB trace, the 100-trace campaign and tampered copies of the trace, regenerated when
the generator changes. Shared by every benchmark, so that none imports another.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import tracegen

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / "data"
TRACE = DATA / "trace-16mib.jsonl"
CAMPAIGN = DATA / "campaign"
TAMPERED = DATA / "tampered"
SMALL = ROOT / "corpus" / "valid" / "v2__clean_run.jsonl"
"""The tiny trace of the start-up figures (14 events)."""
CAMPAIGN_TRACES = 100
MIB = 1024 * 1024


def _stamp(campaign_mib: float) -> str:
    source = (HERE / "tracegen.py").read_bytes() + (ROOT / "corpus" / "gen" / "base.py").read_bytes()
    return hashlib.sha256(source + f"{campaign_mib}".encode()).hexdigest()


def generate(campaign_mib: float, force: bool) -> None:
    """Write the benchmark inputs unless they are current."""
    stamp_file = DATA / "stamp"
    stamp = _stamp(campaign_mib)
    if not force and stamp_file.exists() and stamp_file.read_text() == stamp:
        return
    if DATA.exists():
        shutil.rmtree(DATA)
    CAMPAIGN.mkdir(parents=True)
    TAMPERED.mkdir()
    started = time.perf_counter()
    data = tracegen.build()
    TRACE.write_bytes(data)
    events = max(50, int(10_000 * campaign_mib / 16))
    for index in range(CAMPAIGN_TRACES):
        trace = tracegen.build(events=events, target_bytes=int(campaign_mib * MIB),
                               seed=1000 + index, name=f"campaign-{index:03d}")
        (CAMPAIGN / f"trace-{index:03d}.jsonl").write_bytes(trace)
    for name, changed in _tampered(data).items():
        (TAMPERED / f"{name}.jsonl").write_bytes(changed)
    stamp_file.write_text(stamp)
    print(f"generated bench/data in {time.perf_counter() - started:.1f} s", file=sys.stderr)


def ensure_trace() -> Path:
    """The 16 MiB trace, written alone if no full generation has made it yet."""
    if not TRACE.exists():
        TRACE.parent.mkdir(parents=True, exist_ok=True)
        TRACE.write_bytes(tracegen.build())
    return TRACE


def _tampered(data: bytes) -> dict[str, bytes]:
    """Copies of the trace that must fail (or pass) identically under both verifiers."""
    copies = tracegen.tampered_copies(data, "task-bench")
    del copies["intact"]
    return copies


def describe(path: Path) -> dict[str, Any]:
    """What the trace is made of, so the figures can be read against it."""
    data = path.read_bytes()
    lines = data.split(b"\n")[1:-1]
    by_type: Counter[str] = Counter()
    bytes_by_type: Counter[str] = Counter()
    escaped = escaped_bytes = 0
    for line in lines:
        kind = json.loads(line)["event_type"]
        by_type[kind] += 1
        bytes_by_type[kind] += len(line) + 1
        if b"\\u" in line:
            escaped += 1
            escaped_bytes += len(line) + 1
    return {
        "bytes": len(data),
        "mib": round(len(data) / MIB, 3),
        "events": len(lines),
        "events_by_type": dict(by_type.most_common()),
        "bytes_by_type": dict(bytes_by_type.most_common()),
        "lines_with_unicode_escapes": escaped,
        "bytes_in_lines_with_unicode_escapes": escaped_bytes,
    }
