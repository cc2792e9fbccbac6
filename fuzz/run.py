#!/usr/bin/env python3
"""``make fuzz``: hypothesis fuzzing of every target, then coverage-guided atheris on the loader
and decoders, for a bounded time (FUZZ_SECONDS, default 180). Crashing inputs are saved into
corpus/regressions/<target>/ with corpus/regressions/expected.json; the test suite replays them.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, given, settings  # noqa: E402

import fuzz.format_targets  # noqa: E402,F401  (registers the format layer targets)
import fuzz.importer_targets  # noqa: E402,F401  (registers the OTel, AgentDojo and garak targets)
from fuzz.mutate import mutated  # noqa: E402
from fuzz.seeds import seeds_for  # noqa: E402
from fuzz.targets import available  # noqa: E402

REGRESSIONS = ROOT / "corpus" / "regressions"


def save(target: str, data: bytes, error: BaseException) -> Path:
    """Store a crashing input and its expected result (no exception) for the test suite."""
    folder = REGRESSIONS / target
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (hashlib.sha256(data).hexdigest()[:16] + ".bin")
    path.write_bytes(data)
    manifest = REGRESSIONS / "expected.json"
    entries = json.loads(manifest.read_text()) if manifest.exists() else {}
    entries[f"{target}/{path.name}"] = {
        "target": target,
        "expected": "no exception; exit code 0, 1 or 2; no traceback; no canary echoed on exit 2",
        "found": type(error).__name__,
    }
    manifest.write_text(json.dumps(entries, indent=2, sort_keys=True) + "\n")
    return path


def fuzz_target(name: str, fn, seconds: float) -> tuple[int, int]:
    """Run one target until ``seconds`` pass; return (examples run, crashes saved)."""
    seeds = seeds_for(name)
    runs = crashes = 0
    deadline = time.monotonic() + seconds
    seen: set[str] = set()
    while time.monotonic() < deadline:
        @settings(max_examples=200, deadline=None, database=None, derandomize=False,
                  suppress_health_check=list(HealthCheck))
        @given(mutated(seeds))
        def one(data: bytes) -> None:
            nonlocal runs, crashes
            if time.monotonic() >= deadline:
                return
            runs += 1
            try:
                fn(data)
            except Exception as error:  # noqa: BLE001 - every escape is a finding
                key = "".join(traceback.format_exception_only(type(error), error))[:200]
                if key not in seen:
                    seen.add(key)
                    crashes += 1
                    print(f"  CRASH in {name}: {type(error).__name__}; saved {save(name, data, error)}")

        one()
    return runs, crashes


def atheris_phase(seconds: int) -> int:
    """Coverage-guided fuzzing of the loader and decoders with atheris, if installed."""
    try:
        import atheris  # noqa: F401
    except ImportError:
        print("atheris not installed: skipping the coverage-guided phase")
        return 0
    work = ROOT / "fuzz" / "work"
    seeds = work / "seeds"
    seeds.mkdir(parents=True, exist_ok=True)
    for i, data in enumerate(seeds_for("verify")):
        (seeds / f"seed{i}.jsonl").write_bytes(data)
    crashes = work / "crashes"
    crashes.mkdir(exist_ok=True)
    result = subprocess.run(
        [sys.executable, str(ROOT / "fuzz" / "atheris_verify.py"), f"-max_total_time={seconds}",
         f"-artifact_prefix={crashes}/", "-rss_limit_mb=1024", "-timeout=20", str(seeds)],
        capture_output=True, text=True, check=False,
    )
    tail = [line for line in result.stderr.splitlines() if line.startswith(("#", "Done", "INFO: Loaded"))]
    print("\n".join(tail[-3:]))
    found = 0
    for crash in sorted(crashes.glob("*")):
        found += 1
        save("verify", crash.read_bytes(), RuntimeError("atheris"))
        crash.unlink()
    return found


def main() -> int:
    budget = float(os.environ.get("FUZZ_SECONDS", "180"))
    targets = available()
    hyp_share = budget * 0.7
    per_target = hyp_share / len(targets)
    total_runs = total_crashes = 0
    for name, fn in targets.items():
        runs, crashes = fuzz_target(name, fn, per_target)
        print(f"{name:22s} {runs:7d} executions  {crashes} crash(es)")
        total_runs += runs
        total_crashes += crashes
    found = atheris_phase(max(5, int(budget * 0.3)))
    total_crashes += found
    print(f"fuzz: {total_runs} hypothesis executions over {len(targets)} targets, atheris crashes {found}, "
          f"total crashes {total_crashes}")
    return 1 if total_crashes else 0


if __name__ == "__main__":
    raise SystemExit(main())
