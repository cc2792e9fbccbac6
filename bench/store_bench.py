#!/usr/bin/env python3
"""The campaign store's benchmark (docs/campaign-store.md, "Benchmark"): a 10,000-trace mixed
campaign audited into a store, re-audited unchanged, then re-audited after some files change.

1. Generates (once; ``--regenerate``) under bench/data/store-campaign/: intact AgentGuard traces
   from the corpus builders (bench/tracegen.py, one seed each), tampered copies of some of them
   (a flipped byte, a truncation, a dropped event), OWASP harness traces varied from the
   corpus's audit fixtures, and the third-party samples shipped in corpus/third_party/
   (Inspect, OTel, AgentDojo and garak files with several episodes each).
2. ``tracekit audit CAMPAIGN --db STORE`` on a fresh store: every file read (first run).
3. The same command again, nothing changed: nothing read (second run). Prints both wall times
   and their ratio (target >= 10).
4. Changes a fixed set of files (an edit, a tamper, a new file, a deletion), audits again, and
   checks that ``tracekit db diff`` lists exactly those paths.

Exit 0 when the diff is exact, 1 otherwise (whatever the speed-up: the figure is printed).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / "data" / "store-campaign"
sys.path.insert(0, str(HERE))

import tracegen

TARGET_RATIO = 10.0
STAMP = "2"  # bump when the campaign's make-up changes
HARNESS_SOURCES = sorted((ROOT / "corpus" / "audit" / "harness").glob("*.json"))


def _harness(rng: random.Random, index: int) -> bytes:
    source = json.loads(rng.choice([p for p in HARNESS_SOURCES if p.name != "expected.json"])
                        .read_bytes())
    source.setdefault("events", []).append({"type": "run", "seed": index,
                                            "harness_revision": f"rev-{index % 17}"})
    return json.dumps(source, sort_keys=True).encode()


def generate(total: int, force: bool) -> Path:
    """Write the campaign (``total`` files) unless it is already there."""
    stamp = DATA / ".stamp"
    if not force and stamp.exists() and stamp.read_text() == f"{STAMP}-{total}":
        return DATA
    shutil.rmtree(DATA, ignore_errors=True)
    started = time.perf_counter()
    rng = random.Random(15)
    third = [p for p in (ROOT / "corpus" / "third_party").rglob("*")
             if p.suffix in (".json", ".jsonl", ".eval") and p.is_file()]
    agentguard = total * 6 // 10
    tampered = total // 20
    harness = total - agentguard - tampered - len(third)
    (DATA / "agentguard").mkdir(parents=True)
    (DATA / "tampered").mkdir()
    (DATA / "harness").mkdir()
    kept: list[bytes] = []
    for index in range(agentguard):
        data = tracegen._build(20, 1000, 50_000 + index, f"store-{index:05d}")
        (DATA / "agentguard" / f"trace-{index:05d}.jsonl").write_bytes(data)
        if len(kept) < tampered:
            kept.append(data)
    kinds = ("payload_byte_flipped", "truncated", "event_dropped", "hash_edited")
    for index, data in enumerate(kept):
        copies = tracegen.tampered_copies(data, "task-bench")
        name = kinds[index % len(kinds)]
        (DATA / "tampered" / f"{name}-{index:05d}.jsonl").write_bytes(copies[name])
    for index in range(harness):
        (DATA / "harness" / f"trace-{index:05d}.json").write_bytes(_harness(rng, index))
    for path in third:
        target = DATA / "third_party" / path.relative_to(ROOT / "corpus" / "third_party")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    stamp.write_text(f"{STAMP}-{total}")
    print(f"generated {total} files in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return DATA


def tracekit(*args: str) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    exe = str(Path(sys.executable).parent / "tracekit")
    started = time.perf_counter()
    done = subprocess.run([exe, *args], capture_output=True, check=False)
    return time.perf_counter() - started, done


def change(campaign: Path) -> set[str]:
    """Change a fixed set of files; return their paths relative to the campaign root."""
    changed = set()
    harness = sorted((campaign / "harness").glob("*.json"))
    agentguard = sorted((campaign / "agentguard").glob("*.jsonl"))
    for path in (harness[3], harness[len(harness) // 3], harness[2 * len(harness) // 3]):
        doc = json.loads(path.read_bytes())
        doc["tool_calls"] = doc.get("tool_calls", [])[:1]
        doc["events"] = [{"type": "outcome", "result": "fail"}]
        path.write_bytes(json.dumps(doc).encode())
        changed.add(path.relative_to(campaign).as_posix())
    for path in (agentguard[7], agentguard[len(agentguard) // 2]):
        path.write_bytes(path.read_bytes()[:-40] + b"\n")
        changed.add(path.relative_to(campaign).as_posix())
    agentguard[11].unlink()
    changed.add(agentguard[11].relative_to(campaign).as_posix())
    new = campaign / "harness" / "new-trace.json"
    new.write_bytes(_harness(random.Random(1), 99_999))
    changed.add("harness/new-trace.json")
    return changed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--regenerate", action="store_true")
    args = parser.parse_args()
    generate(args.traces, args.regenerate)
    with tempfile.TemporaryDirectory(prefix="tracekit-store-bench-") as tmp:
        campaign = Path(tmp) / "campaign"
        shutil.copytree(DATA, campaign, ignore=shutil.ignore_patterns(".stamp"))
        db = Path(tmp) / "campaign.duckdb"
        audit = ("audit", str(campaign), "--db", str(db), "-q", "--jobs", str(args.jobs))
        first, run1 = tracekit(*audit)
        second, run2 = tracekit(*audit)
        summary = json.loads(tracekit("db", "summary", str(db), "-f", "json")[1].stdout)
        changed = change(campaign)
        third, run3 = tracekit(*audit)
        diff = json.loads(tracekit("db", "diff", str(db), "-f", "json")[1].stdout)
    listed = {f["path"] for f in diff["files"]}
    ratio = first / second
    print(f"campaign: {summary['files']} files, {summary['episodes']} episodes; by format: "
          + ", ".join(f"{k} {v['files']}" for k, v in summary["by_format"].items()))
    print(f"first run (every file read)      {first:8.2f} s  exit {run1.returncode}")
    print(f"unchanged re-run (nothing read)  {second:8.2f} s  exit {run2.returncode}")
    print(f"speed-up                         {ratio:8.1f} x  (target >= {TARGET_RATIO:g}: "
          f"{'met' if ratio >= TARGET_RATIO else 'NOT met'})")
    print(f"after changing {len(changed)} files     {third:8.2f} s  exit {run3.returncode}")
    print(f"db diff lists {len(listed)} files: "
          f"{'exactly the changed ones' if listed == changed else 'NOT the changed ones'}")
    for item in diff["files"]:
        print(f"  {item['path']}: {item['change']}, new {len(item['new'])}, "
              f"fixed {len(item['fixed'])}, changed {len(item['changed'])}")
    return 0 if listed == changed else 1


if __name__ == "__main__":
    sys.exit(main())
