#!/usr/bin/env python3
"""Do the importers and bundles scale linearly? (docs/performance.md, "Scaling").

For every format tracekit reads (agentguard, harness, inspect .eval and .json, otel, agentdojo,
garak) and for sealing and verifying a bundle, builds inputs of 1 MiB up to the format's bound
(from the real corpus logs, scaled: more samples, spans, attempts, turns or events) and measures
each in a fresh process: the load time (imports excluded), and the peak RSS above what the
imports took. Prints both per MiB of input for each size, and the ratio of the largest size's
per-MiB figure to the 1 MiB one: near 1.0 is linear, well above 1.0 is not.

Bounds (docs/formats.md "Bounds", tracekit/kernel/limits.py): one AgentGuard trace, harness trace, Inspect
``.json`` document or AgentDojo file is at most 16 MiB, so their sizes stop just under it; the
line formats (otel, garak) and ``.eval`` archives go to 512 MiB stored; ``--max`` sets how far
(default 64 MiB, which takes a few minutes; the full 512 MiB takes long and needs the disk).

Bundles: ``tracekit seal`` of an AgentGuard trace of each size and ``tracekit verify`` of the
bundle, as whole processes (time includes the ~0.2 s start-up, so per-MiB time falls with size).

Writes bench/data/results-scaling.json. Usage: python bench/scaling.py [--max MIB] [--reps N]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import run as bench  # noqa: E402
import tracegen  # noqa: E402
from inspect_reader import HWM  # noqa: E402

THIRD = ROOT / "corpus" / "third_party"
RESULTS = HERE / "data" / "results-scaling.json"
WORK = HERE / "data" / "scaling"
MIB = 1024 * 1024
DOCUMENT_BOUND = 16 * MIB
TK = str(Path(sys.executable).parent / "tracekit")

LOAD = """
import json, sys, time
""" + HWM + """
from tracekit.formats.reading import load_file
base = hwm()
started = time.perf_counter()
evidence = load_file(sys.argv[1])
elapsed = time.perf_counter() - started
peak = hwm()
print(json.dumps({"seconds": elapsed, "episodes": len(evidence.episodes),
                  "peak_mib": peak, "growth_mib": peak - base}))
"""


# ------------------------------------------------------------------------------- the inputs


def _copies(unit: int, size: int) -> int:
    return max(1, size // max(unit, 1))


def agentguard(size: int) -> bytes:
    events = max(600, size * 10_000 // (16 * MIB))
    return tracegen.build(events=events, target_bytes=size, name=f"scale{size}")


def harness(size: int) -> bytes:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a careful agent."}]
    calls: list[dict[str, Any]] = []
    turn = 0
    used = 200
    while used < size - 2000:
        text = f"# module {turn}\n" + "def f(x):\n    return x\n" * 20
        messages.append({"role": "assistant", "content": f"Turn {turn}: next file."})
        calls.append({"name": "bash", "arguments": {"cmd": f"sed -n 1,80p src/m_{turn}.py"}})
        messages.append({"role": "tool", "content": text})
        used += len(text) + 160
        turn += 1
    return json.dumps({"messages": messages, "tool_calls": calls, "events": []}).encode()


def _inspect_members() -> tuple[bytes, list[dict[str, Any]]]:
    from tracekit.formats import inspect_eval
    from tracekit.formats.base import DEFAULT_FORMAT_LIMITS as LIMITS

    real = THIRD / "inspect" / "tracekit_corpus.eval"
    with real.open("rb") as handle:
        size = real.stat().st_size
        members = {m.name: m for m in inspect_eval.members(handle, size, LIMITS)}
        budget = inspect_eval.Budget(LIMITS)
        raw = {n: inspect_eval.read_member(handle, members[n], size, LIMITS, budget) for n in members}
    samples = [json.loads(raw[n]) for n in raw if n.startswith("samples/")]
    return raw["header.json"], samples


def _inspect_samples(size: int, samples: list[dict[str, Any]]) -> list[dict[str, Any]]:
    unit = sum(len(json.dumps(s)) for s in samples) / len(samples)
    out = []
    for i in range(max(1, int(size / unit))):
        sample = dict(samples[i % len(samples)])
        sample["id"] = f"{sample['id']}_{i}"
        out.append(sample)
    return out


def inspect_eval(size: int) -> bytes:
    """A .eval whose decompressed samples total ``size`` (the stored file is ~10x smaller)."""
    import importlib.util  # the hostile generator's zstd zip writer (another generate.py is
    # on the path: corpus/generate.py)

    spec = importlib.util.spec_from_file_location(
        "inspect_hostile_generate", ROOT / "corpus" / "hostile" / "inspect" / "generate.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    zip_archive = module.zip_archive
    header, samples = _inspect_members()
    built = [("header.json", header)]
    built += [(f"samples/{s['id']}_epoch_1.json", json.dumps(s).encode())
              for s in _inspect_samples(size, samples)]
    return zip_archive(built)


def inspect_json(size: int) -> bytes:
    header, samples = _inspect_members()
    log = json.loads(header)
    log["samples"] = _inspect_samples(int(size * 0.97), samples)
    return json.dumps(log).encode()


_HEX_ID = re.compile(rb'"(traceId|spanId|parentSpanId)":"([0-9a-f]+)"')
_UUID = re.compile(rb'"uuid": "([0-9a-f-]{36})"')


def otel(size: int) -> bytes:
    raw = (THIRD / "otel" / "genai_content.otlp.jsonl").read_bytes()

    def fresh(copy: int) -> bytes:
        prefix = f"{copy:08x}".encode()
        return _HEX_ID.sub(lambda m: b'"' + m[1] + b'":"' + prefix + m[2][len(prefix):] + b'"', raw)

    return b"".join(fresh(i) for i in range(_copies(len(raw), size)))


def garak(size: int) -> bytes:
    lines = [line + b"\n" for line in (THIRD / "garak" / "repeat.report.jsonl").read_bytes().splitlines()]
    attempts = b"".join(line for line in lines if b'"entry_type": "attempt"' in line)
    head = b"".join(line for line in lines if b'"entry_type": "attempt"' not in line)

    def fresh(copy: int) -> bytes:
        return _UUID.sub(lambda m: b'"uuid": "' + f"{copy:08x}".encode() + m[1][8:] + b'"', attempts)

    return head + b"".join(fresh(i) for i in range(_copies(len(attempts), size - len(head))))


def agentdojo(size: int) -> bytes:
    """One run whose assistant/tool exchange is repeated (with fresh call ids) to ``size``."""
    path = THIRD / "agentdojo" / "runs" / "scripted-model" / "workspace" / "user_task_1" / "none" / "none.json"
    run = json.loads(path.read_bytes())
    head, middle, tail = run["messages"][:2], run["messages"][2:-1], run["messages"][-1:]
    unit = len(json.dumps(middle))
    messages = list(head)
    for copy in range(_copies(unit, size - 4000)):
        for message in middle:
            text = json.dumps(message).replace('"id": "', f'"id": "c{copy}_')
            text = text.replace('"tool_call_id": "', f'"tool_call_id": "c{copy}_')
            messages.append(json.loads(text))
    run["messages"] = messages + tail
    return json.dumps(run).encode()


FORMATS: dict[str, tuple[str, Callable[[int], bytes], int | None]] = {
    # name: (file suffix, builder, bound in bytes or None for the --max bound)
    "agentguard": (".jsonl", agentguard, DOCUMENT_BOUND),
    "harness": (".json", harness, DOCUMENT_BOUND),
    "inspect .eval": (".eval", inspect_eval, None),
    "inspect .json": (".json", inspect_json, DOCUMENT_BOUND),
    "otel": (".otlp.jsonl", otel, None),
    "agentdojo": (".json", agentdojo, DOCUMENT_BOUND),
    "garak": (".report.jsonl", garak, None),
}


def fitted(build: Callable[[int], bytes], size: int, bound: int | None) -> bytes:
    """``build(size)``, rebuilt smaller when it overshoots a document bound."""
    data = build(size)
    for _ in range(3):
        if bound is None or len(data) <= bound - 1024:
            break
        data = build(int(size * (bound - 32 * 1024) / len(data)))
    return data


def sizes_for(bound: int | None, top: int) -> list[int]:
    limit = min(bound or top * MIB, top * MIB)
    out, size = [], MIB
    while size < limit:
        out.append(size)
        size *= 4
    out.append(limit - 64 * 1024 if bound else limit)  # just under a document bound
    return out


# ----------------------------------------------------------------------------- measuring


def load(path: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", LOAD, str(path)], capture_output=True, text=True,
                          cwd=str(ROOT))
    if done.returncode != 0:
        raise SystemExit(f"scaling: loading {path.name} failed: {done.stderr.strip()[-400:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def measure_formats(top: int, reps: int) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for name, (suffix, build, bound) in FORMATS.items():
        rows = []
        for size in sizes_for(bound, top):
            path = WORK / f"{name.replace(' ', '').replace('.', '-')}-{size}{suffix}"
            if not path.exists():
                path.write_bytes(fitted(build, size, bound))
            stored = path.stat().st_size
            runs = [load(path) for _ in range(reps)]
            rows.append({
                "bytes": stored,
                "decompressed": size if name == "inspect .eval" else stored,
                "seconds": statistics.median(r["seconds"] for r in runs),
                "growth_mib": max(r["growth_mib"] for r in runs),
                "peak_mib": max(r["peak_mib"] for r in runs),
                "episodes": runs[0]["episodes"],
            })
            print(f"  {name:14s} {stored / MIB:8.1f} MiB  {rows[-1]['seconds']:7.3f} s", file=sys.stderr)
        out[name] = rows
    return out


def measure_bundles(reps: int) -> list[dict[str, Any]]:
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        key = work / "bench"
        subprocess.run([TK, "keygen", "-o", str(key)], check=True, capture_output=True)
        for size in sizes_for(DOCUMENT_BOUND, 16):
            trace = WORK / f"agentguard-{size}.jsonl"
            if not trace.exists():
                trace.write_bytes(agentguard(size))
            seal, check = [], []
            for rep in range(reps):
                out = work / f"b{rep}.tkb"
                seal.append(bench.run_process([TK, "seal", str(trace), "-o", str(out), "--key", f"{key}.key"]))
                check.append(bench.run_process([TK, "verify", str(out), "-q", "--trusted-key", f"{key}.pub"]))
                out.unlink()
            for label, samples in (("seal", seal), ("verify bundle", check)):
                if any(s[2] != 0 for s in samples):
                    raise SystemExit(f"scaling: {label} exited {samples[0][2]}")
                rows.append({"step": label, "bytes": trace.stat().st_size,
                             "seconds": statistics.median(s[0] for s in samples),
                             "peak_mib": max(s[1] for s in samples)})
    return rows


def report(formats: dict[str, list[dict[str, Any]]], bundles: list[dict[str, Any]]) -> str:
    lines = [f"{'format':14s} {'input MiB':>9s} {'episodes':>8s} {'s/MiB':>7s} {'RSS MiB/MiB':>11s} "
             f"{'peak MiB':>8s}", "-" * 64]
    summary = []
    for name, rows in formats.items():
        for row in rows:
            mib = row["decompressed"] / MIB
            lines.append(f"{name:14s} {mib:9.1f} {row['episodes']:8d} {row['seconds'] / mib:7.3f} "
                         f"{row['growth_mib'] / mib:11.2f} {row['peak_mib']:8.1f}")
        first, last = rows[0], rows[-1]
        per = [r["seconds"] / (r["decompressed"] / MIB) for r in (first, last)]
        mem = [r["growth_mib"] / (r["decompressed"] / MIB) for r in (first, last)]
        summary.append((name, last["decompressed"] / MIB, per[1] / per[0],
                        mem[1], first["growth_mib"], last["growth_mib"]))
    lines += ["", f"{'bundle step':14s} {'trace MiB':>9s} {'s (process)':>11s} {'s/MiB':>7s} {'peak MiB':>8s}",
              "-" * 56]
    for row in bundles:
        mib = row["bytes"] / MIB
        lines.append(f"{row['step']:14s} {mib:9.1f} {row['seconds']:11.3f} {row['seconds'] / mib:7.3f} "
                     f"{row['peak_mib']:8.1f}")
    lines += ["", "linearity: per-MiB figure at the largest size / at 1 MiB (1.0 = linear; time "
              "below 1 is fixed costs amortised)", f"{'format':14s} {'largest MiB':>11s} "
              f"{'time':>6s} {'RSS growth at 1 MiB / largest, MiB':>36s} {'per MiB':>8s}"]
    for name, top, t, per_mib, small, large in summary:
        lines.append(f"{name:14s} {top:11.1f} {t:6.2f} {small:17.1f} / {large:16.1f} {per_mib:8.2f}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=int, default=64, help="largest input for unbounded formats, MiB")
    parser.add_argument("--reps", type=int, default=3, help="runs per input")
    args = parser.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    formats = measure_formats(args.max, args.reps)
    bundles = measure_bundles(args.reps)
    print(report(formats, bundles))
    RESULTS.write_text(json.dumps({"formats": formats, "bundles": bundles}, indent=2) + "\n")
    print(f"\nwrote {RESULTS.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
