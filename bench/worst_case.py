#!/usr/bin/env python3
"""The worst case per command: time and peak RSS on the worst inputs we can build within the
loader's limits (docs/threat-model.md, "Work budget").

Each input comes from corpus/gen/worst.py at the limits (or just under a work budget, where the
worst *accepted* input is the interesting one), is written under bench/data/worst/ and is run
through the real entry point as a whole process, once (``--reps N``: N times, each right after a
run of the reference, medians of the times and of those ratios, for a loaded machine). Peak
RSS is the command's own
(``/usr/bin/time -f %M``, as bench/run.py measures it). The reference is ``tracekit verify`` on
the realistic 16 MiB trace of bench/run.py; the targets are no command over 10x that time and
none over 200 MiB. Each row is also timed against ``tracekit verify`` of its own input (column
``x own``; ``own_inputs``): an input far larger than the reference (1 GiB of text) costs even
``verify`` many times the reference, so only that ratio says whether a command costs more than
reading what it reads. The yardstick is the larger of the two (``x bound``, docs/threat-model.md,
"The yardstick"): a command may take 10 times what ``verify`` takes on the realistic trace or on
its own input, whichever is more; a fixed budget spent on a tiny input is measured against the
first, reading 1 GiB against the second. Called by ``make bench`` (bench/run.py) after its own table, or alone:
``python bench/worst_case.py [WORD...]`` (only the rows whose command or input names a WORD);
never by the test suite (it takes a few minutes).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / "data" / "worst"
MIB = 1024 * 1024
TIME_RATIO_TARGET = 10.0
RSS_TARGET_MIB = 200.0
for _extra in (ROOT / "corpus", ROOT, HERE):
    if str(_extra) not in sys.path:
        sys.path.insert(0, str(_extra))

import eval_worst  # noqa: E402
from gen import worst  # noqa: E402

TRACEKIT = str(Path(sys.executable).with_name("tracekit"))
TIME = "/usr/bin/time" if Path("/usr/bin/time").exists() else None


def run(argv: list[str]) -> tuple[float, float, int]:
    """(wall seconds, peak RSS MiB, exit status) of one whole process."""
    with tempfile.NamedTemporaryFile("r", suffix=".rss") as rss_file:
        full = [TIME, "-f", "%M", "-o", rss_file.name, *argv] if TIME else argv
        started = time.perf_counter()
        child = subprocess.Popen(full, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        peak = float(usage.ru_maxrss)
        if TIME:
            text = rss_file.read().strip().split("\n")
            peak = float(text[-1]) if text and text[-1].isdigit() else peak
    return wall, peak / 1024, os.waitstatus_to_exitcode(status)


def _write(name: str, data: bytes) -> Path:
    path = DATA / name
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)
    return path


def inputs() -> dict[str, Path]:
    """Build every worst-case input (deterministic; rewritten only when it changed)."""
    DATA.mkdir(parents=True, exist_ok=True)
    found = {
        "evidence_bomb": _write("evidence-bomb.jsonl", worst.evidence_bomb(1800, 4096)),
        "glob_bomb": _write("glob-bomb.jsonl", worst.glob_bomb(4096, 4096, path_chars=200)),
        "star_bomb": _write("star-bomb.jsonl", worst.star_bomb(240, 2000)),
        # replay near its matching limit on a small trace: the metamorphic budget charges that too
        "glob_near_budget": _write("glob-near-budget.jsonl", worst.glob_bomb(320, 256, path_chars=200)),
        "separators": _write("separators.jsonl", worst.separator_trace()),
        "recipient_scenario": _write("recipient.yaml", worst.recipient_scenario()),
        "word_runs": _write("word-runs.json", worst.word_run_trace(1024 * 1024, events=15)),
        "marker_flood": _write("marker-flood.yaml", worst.marker_scenario(10_000)),
        "marker_budget": _write("marker-budget.yaml", worst.marker_scenario(60)),
        "marker_text": _write("marker-text.json", worst.marker_text_trace(15, 1024 * 1024)),
        # words the keyword detector takes quadratic time on (``pwd_pwd_...``: 15 minutes for one
        # of 64 KiB): redaction charges them before it runs it, so they are refused at the budget
        "keyword_runs": _write("keyword-runs.json", worst.keyword_run_trace(16, 64 * 1024)),
    }
    # Inspect archives: 500,000 one-word messages (the whole-file item bound, exactly) and one
    # sample more (refused); sealing the first plans about 750,000 of the 1,000,000 frames
    found["eval_at_items"] = _write("eval-at-items.eval", eval_worst.chatty_eval(50, 10_000))
    found["eval_over_items"] = _write("eval-over-items.eval", eval_worst.chatty_eval(51, 10_000))
    # the same bound over many samples: 5,000 samples of 100 messages (per-episode costs)
    found["eval_many"] = _write("eval-many.eval", eval_worst.chatty_eval(5_000, 100))
    # and over 50,000 samples of 10: what a command keeps per episode, times many episodes
    found["eval_most"] = _write("eval-most.eval", eval_worst.chatty_eval(50_000, 10))
    # the same with no two episodes alike (nothing a command does once per distinct episode helps)
    found["eval_distinct"] = _write("eval-distinct.eval", eval_worst.chatty_eval(50_000, 10, distinct=True))
    # distinct texts are distinct blobs: 40,000 x 8 seals into about 730,000 frames (50,000 x 10
    # would pass the frame limit), each text a blob the sealer and the verifier keep
    found["eval_distinct_sealed"] = _write("eval-distinct-40k.eval", eval_worst.chatty_eval(40_000, 8, distinct=True))
    # and at the episode bound too: 99,999 samples of 5 (with its header, 100,000 members)
    found["eval_episodes"] = _write("eval-episodes.eval", eval_worst.chatty_eval(99_999, 5))
    # and at the byte bounds: about 1 GiB of distinct text in 63 members of nearly 16 MiB, 500 MB
    # stored (each text a large blob; built only when missing: it takes about 15 s)
    found["eval_text"] = DATA / "eval-text.eval"
    if not found["eval_text"].exists():
        _write("eval-text.eval", eval_worst.wordy_eval())
    for name, key in (("most", "eval_most"), ("episodes", "eval_episodes")):
        campaign = DATA / f"{name}-campaign"  # the same file as a campaign folder, for `audit --db`
        campaign.mkdir(exist_ok=True)
        found[f"{name}_campaign"] = campaign
        _write(f"{name}-campaign/{found[key].name}", found[key].read_bytes())
    sources = DATA / "sources"
    sources.mkdir(exist_ok=True)
    found["sources"] = sources / "trace.jsonl"
    found["sources"].write_bytes(worst.sources_trace(64))
    for i in range(64):  # sparse: 16 MiB each (the hashing bound), a few blocks on disk
        with (sources / f"src{i}.bin").open("wb") as handle:
            handle.truncate(16 * MIB)
    found["huge_source"] = sources / "huge.jsonl"
    found["huge_source"].write_bytes(worst.sources_trace(1, prefix="huge"))
    with (sources / "huge0.bin").open("wb") as handle:
        handle.truncate(8 * 1024 * MIB)
    return found


def cases(found: dict[str, Path], reference: Path) -> list[tuple[str, str, list[str]]]:
    """(command, input label, argv) for every row of the table."""
    t = TRACEKIT
    p = {name: str(path) for name, path in found.items()}
    rows: list[tuple[str, str, list[str]]] = [("verify", "realistic 16 MiB", [t, "verify", str(reference)])]
    for label in ("evidence_bomb", "glob_bomb", "star_bomb"):
        rows += [
            ("verify", label, [t, "verify", p[label]]),
            ("show", label, [t, "show", p[label]]),
            ("replayability", label, [t, "replayability", p[label]]),
            ("replay", label, [t, "replay", p[label], "--format", "json"]),
            ("audit", label, [t, "audit", p[label], "--format", "json"]),
        ]
    rows += [
        ("verify", "64 sources x 16 MiB", [t, "verify", p["sources"]]),
        ("verify", "one 8 GiB sparse source", [t, "verify", p["huge_source"]]),
        ("replay", "realistic 16 MiB", [t, "replay", str(reference), "--format", "json"]),
        ("audit", "realistic 16 MiB", [t, "audit", str(reference), "--format", "json"]),
        ("metamorphic", "realistic 16 MiB", [t, "metamorphic", str(reference), "--format", "json"]),
        ("metamorphic", "evidence_bomb", [t, "metamorphic", p["evidence_bomb"], "--format", "json"]),
        ("metamorphic", "separators", [t, "metamorphic", p["separators"], "--format", "json"]),
        ("metamorphic --output-dir", "realistic 16 MiB",
         [t, "metamorphic", str(reference), "--format", "json", "--output-dir", str(DATA / "mm-out"), "--force"]),
        ("metamorphic", "glob 320 x 256 (replay near its limit)",
         [t, "metamorphic", p["glob_near_budget"], "--format", "json"]),
        ("metamorphic --trials 10000", "clean 14-event trace",
         [t, "metamorphic", "corpus/valid/v2__clean_run.jsonl", "--trials", "10000", "--format", "json"]),
        ("check", "recipient, 15 x 1 MiB word runs", [t, "check", p["recipient_scenario"], p["word_runs"]]),
        ("check --strict", "recipient, 15 x 1 MiB word runs",
         [t, "check", "--strict", p["recipient_scenario"], p["word_runs"]]),
        ("check", "10,000 markers x 15 MiB", [t, "check", p["marker_flood"], p["marker_text"]]),
        ("check", "60 markers x 15 MiB", [t, "check", p["marker_budget"], p["marker_text"]]),
        ("check --strict", "60 markers x 15 MiB",
         [t, "check", "--strict", p["marker_budget"], p["marker_text"]]),
        ("audit", "harness 15 x 1 MiB word runs", [t, "audit", p["word_runs"], "--format", "json"]),
    ]
    return rows + _archive_and_seal_rows(p, reference)


def _archive_and_seal_rows(p: dict[str, str], reference: Path) -> list[tuple[str, str, list[str]]]:
    """The .eval reader and the sealer at their limits (docs/threat-model.md, "seal" and "The
    Inspect archive reader"); ``bundle verify`` of what was sealed, for comparison."""
    t = TRACEKIT
    at, over, many = p["eval_at_items"], p["eval_over_items"], p["eval_many"]
    policy = str(ROOT / "corpus" / "findings" / "exfil-email.yaml")
    sealed = {name: str(DATA / f"{name}.tkb") for name in ("eval", "realistic", "keyword-runs")}
    rows = [
        ("show", ".eval 500,000 short messages", [t, "show", at]),
        ("audit", ".eval 500,000 short messages", [t, "audit", at, "--format", "json"]),
        ("check", ".eval 500,000 short messages", [t, "check", policy, at]),
        ("show", ".eval 5,000 x 100 messages", [t, "show", many]),
        ("audit", ".eval 5,000 x 100 messages", [t, "audit", many, "--format", "json"]),
        ("check", ".eval 5,000 x 100 messages", [t, "check", policy, many]),
    ]
    for name, label in (("most", ".eval 50,000 x 10 messages"), ("episodes", ".eval 99,999 x 5 messages")):
        archive, store = p[f"eval_{name}"], str(DATA / f"{name}.duckdb")
        rows += [
            ("verify", label, [t, "verify", archive]),
            ("show", label, [t, "show", archive]),
            ("audit", label, [t, "audit", archive, "--format", "json"]),
            ("check", label, [t, "check", policy, archive]),
            # the campaign store, from an empty store each run (a stored result would be reused)
            ("audit --db", label,
             ["sh", "-c", 'rm -f "$1"; exec "$2" audit "$3" --db "$1" -q', "sh", store, t, p[f"{name}_campaign"]]),
            # then again over the store that row wrote: every seal checked, nothing read; a query
            ("audit --db 2nd", label, [t, "audit", p[f"{name}_campaign"], "--db", store, "-q"]),
            ("db findings", f"store of {label}", [t, "db", "findings", store, "-q"]),
            ("report", label, [t, "report", archive, "-o", str(DATA / f"{name}.html"), "--force", "-q"]),
            ("seal", label, [t, "seal", archive, "-o", str(DATA / f"{name}.tkb"), "--force"]),
        ]
    distinct, label = p["eval_distinct"], ".eval 50,000 x 10, all distinct"
    rows += [
        ("verify", label, [t, "verify", distinct]),
        ("show", label, [t, "show", distinct]),
        ("audit", label, [t, "audit", distinct, "--format", "json"]),
        ("check", label, [t, "check", policy, distinct]),
        ("report", label, [t, "report", distinct, "-o", str(DATA / "distinct.html"), "--force", "-q"]),
        ("seal", f"{label} (refused)", [t, "seal", distinct, "-o", str(DATA / "refused.tkb"), "--force"]),
        ("seal", ".eval 40,000 x 8, all distinct",
         [t, "seal", p["eval_distinct_sealed"], "-o", str(DATA / "distinct.tkb"), "--force"]),
        ("verify", "bundle of .eval 40,000 x 8, all distinct", [t, "verify", str(DATA / "distinct.tkb")]),
    ]
    return rows + _text_rows(p) + _campaign_rows(p) + [
        ("show", ".eval 510,000 (refused)", [t, "show", over]),
        ("seal", ".eval 500,000 short messages", [t, "seal", at, "-o", sealed["eval"], "--force"]),
        ("verify", "bundle of .eval 500,000", [t, "verify", sealed["eval"]]),
        ("seal", ".eval 510,000 (refused)", [t, "seal", over, "-o", str(DATA / "refused.tkb"), "--force"]),
        ("seal", "realistic 16 MiB", [t, "seal", str(reference), "-o", sealed["realistic"], "--force"]),
        ("verify", "bundle of realistic 16 MiB", [t, "verify", sealed["realistic"]]),
    ] + _redact_rows(p, sealed)


def _redact_rows(p: dict[str, str], sealed: dict[str, str]) -> list[tuple[str, str, list[str]]]:
    """Redaction's selectors on the sealed realistic trace, each refused at the work budget, and
    ``--secrets`` on words its keyword detector takes quadratic time on."""
    t = TRACEKIT
    return [
        # credentials: detect-secrets over hex-heavy text is the slowest scan per byte, and a
        # pattern found nowhere the costliest --match: both refused at the budget
        ("redact --secrets", "bundle of realistic 16 MiB",
         [t, "redact", sealed["realistic"], "--secrets", "-o", str(DATA / "realistic-redacted.tkb"), "--force"]),
        ("redact --match", "bundle of realistic 16 MiB",
         [t, "redact", sealed["realistic"], "--match", "zzz-nowhere", "-o", str(DATA / "realistic-redacted.tkb"),
          "--force"]),
        ("redact --scenario", "bundle of realistic 16 MiB",
         [t, "redact", sealed["realistic"], "--scenario", p["marker_flood"], "-o",
          str(DATA / "realistic-redacted.tkb"), "--force"]),
        # many small blobs: each text, line and view is charged, not only the bytes
        ("redact --secrets", "bundle of .eval 40,000 x 8, all distinct",
         [t, "redact", str(DATA / "distinct.tkb"), "--secrets", "-o", str(DATA / "distinct-redacted.tkb"), "--force"]),
        ("redact --secrets", "bundle of .eval 500,000",
         [t, "redact", sealed["eval"], "--secrets", "-o", str(DATA / "eval-redacted.tkb"), "--force"]),
        ("seal", "16 x 64 KiB keyword runs", [t, "seal", p["keyword_runs"], "-o", sealed["keyword-runs"], "--force"]),
        ("redact --secrets", "bundle of 16 x 64 KiB keyword runs",
         [t, "redact", sealed["keyword-runs"], "--secrets", "-o", str(DATA / "keyword-redacted.tkb"), "--force"]),
    ]


def _text_rows(p: dict[str, str]) -> list[tuple[str, str, list[str]]]:
    """The reader, the sealer and redaction at the archive's byte bounds: about 1 GiB of
    distinct text, each text a large blob."""
    t = TRACEKIT
    policy = str(ROOT / "corpus" / "findings" / "exfil-email.yaml")
    text, label, bundle = p["eval_text"], ".eval 1 GiB of distinct text", str(DATA / "text.tkb")
    return [
        ("verify", label, [t, "verify", text]),
        ("show", label, [t, "show", text]),
        ("audit", label, [t, "audit", text, "--format", "json"]),
        ("check", label, [t, "check", policy, text]),
        ("report", label, [t, "report", text, "-o", str(DATA / "text.html"), "--force", "-q"]),
        ("seal", label, [t, "seal", text, "-o", bundle, "--force"]),
        ("verify", f"bundle of {label}", [t, "verify", bundle]),
        # a pattern found nowhere: every blob and every member of the original would be scanned
        # (refused at the redaction's work budget)
        ("redact --match", f"bundle of {label}",
         [t, "redact", bundle, "--match", "zzz-nowhere", "-o", str(DATA / "text-redacted.tkb"), "--force"]),
    ]


def _campaign_rows(p: dict[str, str]) -> list[tuple[str, str, list[str]]]:
    """A campaign bundle of the 99,999-episode file (800,000 records in one finding): sealing the
    folder, verifying the bundle, and proving that finding (which copies its records)."""
    t, bundle = TRACEKIT, str(DATA / "episodes-campaign.tkb")
    folder, label = p["episodes_campaign"], "campaign of .eval 99,999 x 5"
    return [
        ("seal", f"folder: {label}", [t, "seal", folder, "-o", bundle, "--force"]),
        ("verify", f"bundle of {label}", [t, "verify", bundle]),
        ("bundle prove", f"bundle of {label}",
         [t, "bundle", "prove", bundle, "--finding", "0", "-o", str(DATA / "episodes-proof.tkb"), "--force"]),
    ]


def own_inputs(found: dict[str, Path], reference: Path) -> dict[str, Path]:
    """Each row's input, by its label, as ``tracekit verify`` reads it: the per-input yardstick
    (a row's time against ``verify`` of the file it reads; a store's rows against the file the
    store was written from; a check against its trace, not its scenario)."""
    own = {label: found[label] for label in ("evidence_bomb", "glob_bomb", "star_bomb", "separators")}
    own |= {
        "realistic 16 MiB": reference,
        "64 sources x 16 MiB": found["sources"],
        "one 8 GiB sparse source": found["huge_source"],
        "glob 320 x 256 (replay near its limit)": found["glob_near_budget"],
        "clean 14-event trace": ROOT / "corpus" / "valid" / "v2__clean_run.jsonl",
        "recipient, 15 x 1 MiB word runs": found["word_runs"],
        "harness 15 x 1 MiB word runs": found["word_runs"],
        "10,000 markers x 15 MiB": found["marker_text"],
        "60 markers x 15 MiB": found["marker_text"],
        ".eval 500,000 short messages": found["eval_at_items"],
        ".eval 510,000 (refused)": found["eval_over_items"],
        ".eval 5,000 x 100 messages": found["eval_many"],
        ".eval 50,000 x 10, all distinct": found["eval_distinct"],
        ".eval 50,000 x 10, all distinct (refused)": found["eval_distinct"],
        ".eval 40,000 x 8, all distinct": found["eval_distinct_sealed"],
        ".eval 1 GiB of distinct text": found["eval_text"],
        "bundle of .eval 500,000": DATA / "eval.tkb",
        "bundle of realistic 16 MiB": DATA / "realistic.tkb",
        "bundle of .eval 40,000 x 8, all distinct": DATA / "distinct.tkb",
        "bundle of .eval 1 GiB of distinct text": DATA / "text.tkb",
        "folder: campaign of .eval 99,999 x 5": found["episodes_campaign"],
        "bundle of campaign of .eval 99,999 x 5": DATA / "episodes-campaign.tkb",
        "16 x 64 KiB keyword runs": found["keyword_runs"],
        "bundle of 16 x 64 KiB keyword runs": DATA / "keyword-runs.tkb",
    }
    for name, label in (("most", ".eval 50,000 x 10 messages"), ("episodes", ".eval 99,999 x 5 messages")):
        own[label] = own[f"store of {label}"] = found[f"eval_{name}"]
    return own


def measure(reference: Path, only: tuple[str, ...] = (), reps: int = 1) -> dict[str, Any]:
    """Run every case (``only``: the reference row and the rows whose command or input contains
    one of these words); return the rows and the reference time. With ``reps`` over 1 (a loaded
    machine), each row runs ``reps`` times, each time right after a run of the reference, and
    reports the medians of its time and of those back-to-back ratios."""
    found = inputs()
    rows = []
    chosen = cases(found, reference)
    if only:
        chosen = chosen[:1] + [c for c in chosen[1:] if any(w in f"{c[0]} {c[1]}" for w in only)]
    bases: list[float] = []
    for command, label, argv in chosen:
        walls, ratios, peak, code = [], [], 0.0, 0
        for _ in range(reps):
            base = run(chosen[0][2])[0] if reps > 1 else None
            wall, rss, code = run(argv)
            walls.append(wall)
            peak = max(peak, rss)
            if base is not None:
                bases.append(base)
                ratios.append(wall / base)
        wall = statistics.median(walls)
        rows.append({"command": command, "input": label, "seconds": round(wall, 3), "peak_rss_mib": round(peak, 1),
                     "exit": code, "runs": [round(w, 3) for w in walls],
                     "median_ratio": round(statistics.median(ratios), 2) if ratios else None})
        print(f"  {command:15s} {label:34s} {wall:7.2f} s {peak:7.1f} MiB exit {code}", file=sys.stderr)
    base = statistics.median(bases) if bases else rows[0]["seconds"]
    own, own_seconds = own_inputs(found, reference), {}
    for row in rows:
        row["x_verify"] = row["median_ratio"] or (round(row["seconds"] / base, 2) if base else None)
        row["within_targets"] = bool(
            row["x_verify"] is not None and row["x_verify"] <= TIME_RATIO_TARGET
            and row["peak_rss_mib"] <= RSS_TARGET_MIB
        )
        path = own[row["input"]]  # every row's input has its yardstick (KeyError: add it)
        if path not in own_seconds:  # verify of the row's own input, the median of `reps` runs
            own_seconds[path] = statistics.median(run([TRACEKIT, "verify", str(path)])[0] for _ in range(reps))
        row["own_verify_seconds"] = round(own_seconds[path], 3)
        row["x_own_verify"] = round(row["seconds"] / own_seconds[path], 2)
        row["within_own_targets"] = row["x_own_verify"] <= TIME_RATIO_TARGET and row["peak_rss_mib"] <= RSS_TARGET_MIB
        row["x_bound"] = round(row["seconds"] / max(base, own_seconds[path]), 2)
        row["within_bound"] = row["x_bound"] <= TIME_RATIO_TARGET and row["peak_rss_mib"] <= RSS_TARGET_MIB
    return {"reference_seconds": round(base, 3), "reps": reps, "load": os.getloadavg(), "rows": rows}


def table(result: dict[str, Any]) -> str:
    """The worst-case table, one row per (command, input)."""
    lines = [
        "",
        f"Worst case per command (reference: tracekit verify on the realistic 16 MiB trace, "
        f"{result['reference_seconds']:.2f} s; targets <= {TIME_RATIO_TARGET:g}x and "
        f"<= {RSS_TARGET_MIB:g} MiB; {result['reps']} run(s) per row, load "
        f"{result['load'][0]:.1f} at the end)",
        "x verify: against the reference; x own: against `tracekit verify` of the row's own input "
        "(its seconds in `own s`); x bound: against the larger of the two, the yardstick; ok: that "
        "ratio and the peak within the targets",
        f"{'command':16s} {'input':36s} {'seconds':>8s} {'x verify':>9s} {'own s':>7s} {'x own':>6s} "
        f"{'x bound':>8s} {'peak MiB':>9s} {'exit':>5s}  ok",
    ]
    for row in result["rows"]:
        lines.append(
            f"{row['command']:16s} {row['input']:36s} {row['seconds']:8.2f} {row['x_verify']:9.2f} "
            f"{row['own_verify_seconds']:7.2f} {row['x_own_verify']:6.2f} {row['x_bound']:8.2f} "
            f"{row['peak_rss_mib']:9.1f} {row['exit']:5d}  {'yes' if row['within_bound'] else 'NO'}"
        )
    return "\n".join(lines)


def main(reference: Path | None = None, only: tuple[str, ...] = (), reps: int = 1) -> dict[str, Any]:
    """Measure and print the table; returns the result for bench/results.json."""
    if reference is None:
        import tracegen

        reference = HERE / "data" / "trace-16mib.jsonl"
        if not reference.exists():
            reference.parent.mkdir(parents=True, exist_ok=True)
            reference.write_bytes(tracegen.build())
    result = measure(reference, only, reps)
    print(table(result))
    return result


if __name__ == "__main__":
    # ``python bench/worst_case.py [--reps N] seal .eval``: only the rows naming one of these
    # words; with --reps, N runs per row, each after a run of the reference (medians)
    words = sys.argv[1:]
    count = 1
    if words[:1] == ["--reps"]:
        count, words = int(words[1]), words[2:]
    outcome = main(only=tuple(words), reps=count)
    (DATA / "results.json").write_text(json.dumps(outcome, indent=2) + "\n")
