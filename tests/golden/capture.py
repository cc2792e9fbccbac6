"""Golden outputs of every command over the corpus, for a refactoring that must not change them
(docs/architecture.md, "Moving code").

    python tests/golden/capture.py record DIR    # run every case, store its outputs under DIR
    python tests/golden/capture.py compare A B   # list the cases whose outputs differ

A case is one command line run from the repository root with ``.venv/bin/tracekit``; its record is
the exit code, stdout, stderr and every file it wrote (outputs go to one scratch folder, emptied
before each case, so absolute paths are the same in every recording). Values that change from run
to run whatever the code (times, the random key of ``keygen``) are masked before comparing.
Not a test: the whole capture takes minutes, and the golden outputs change whenever behaviour
changes on purpose.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TRACEKIT = str(ROOT / ".venv" / "bin" / "tracekit")
SCRATCH = Path("/tmp/tracekit-golden-scratch")
KEY = SCRATCH.parent / "tracekit-golden-key"
# Times and durations: masked, whatever their format.
VOLATILE = re.compile(
    rb"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?|\d+(\.\d+)? ?(ms|s)\b"
    rb'|"(elapsed|seconds|duration|started|finished|created|sealed_at|time)[a-z_]*": ?[0-9.e+-]+'
)
RANDOM = re.compile(rb"[0-9a-f]{64}")
RANDOM_CASES = frozenset({"keygen", "attest", "db summary", "db runs", "db findings"})
"""Cases whose written files hold a fresh key or a signature over a time (compared by name), and
whose printed key ids are random."""

DIRS = ["valid", "invalid", "hostile", "noncanonical", "refused", "regressions", "forgery",
        "sources", "replay", "audit", "harness", "third_party"]
FORMATS = {
    "verify": ["text", "json", "junit", "sarif"],
    "show": ["text", "json"],
    "replayability": ["text", "json"],
    "replay": ["text", "json", "sarif"],
    "audit": ["text", "json", "junit", "sarif"],
}
COMMANDS = ["verify", "show", "replayability", "replay", "metamorphic", "check", "audit", "keygen",
            "seal", "redact", "explain", "completion", "attest", "report", "bundle", "db",
            "bundle show", "bundle extract", "bundle prove", "db summary", "db diff",
            "db findings", "db runs", "db export"]


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def cases() -> dict[str, list[str]]:
    """Every case: a name and its argument list ({out} is the scratch folder)."""
    found: dict[str, list[str]] = {f"help {c}": [*c.split(), "--help"] for c in COMMANDS}
    found["help"] = ["--help"]
    found["version"] = ["--version"]
    for command, formats in FORMATS.items():
        for folder in DIRS:
            for fmt in formats:
                found[f"{command} {folder} {fmt}"] = [command, f"corpus/{folder}", "-f", fmt]
    for path in _files(ROOT / "corpus" / "third_party"):
        rel = path.relative_to(ROOT).as_posix()
        if path.name in ("SOURCES", "NOTICE", "LICENSE") or path.suffix in (".md", ".txt"):
            continue
        for command in ("verify", "show", "audit"):
            found[f"{command} {rel}"] = [command, rel, "-f", "json"]
    for scenario in sorted((ROOT / "corpus" / "harness").glob("s*/scenario.yaml")):
        rel = scenario.parent.relative_to(ROOT).as_posix()
        for fmt in ("text", "json", "junit", "sarif", "markdown", "ocsf"):
            found[f"check {rel} {fmt}"] = ["check", f"{rel}/scenario.yaml", rel, "-f", fmt]
        found[f"check {rel} strict"] = ["check", f"{rel}/scenario.yaml", rel, "--strict", "-f", "json"]
    found["check suite"] = ["check", "--suite", "corpus/harness", "--trace-dir", "corpus/harness",
                            "--output-dir", "{out}/results"]
    finding = ["corpus/findings/exfil-email.yaml", "corpus/third_party/inspect"]
    for fmt in ("text", "json", "table", "sarif", "junit", "ocsf"):
        found[f"check finding {fmt}"] = ["check", *finding, "--strict", "-f", fmt]
    found["audit scenario"] = ["audit", finding[1], "--scenario", finding[0], "--strict", "-f", "json"]
    found["audit verbose"] = ["audit", "corpus/third_party", "--verbose"]
    valid = "corpus/valid/" + _files(ROOT / "corpus" / "valid")[0].name
    found["metamorphic"] = ["metamorphic", valid, "--trials", "1", "-f", "json"]
    found["metamorphic dir"] = ["metamorphic", "corpus/valid", "--trials", "1"]
    found["keygen"] = ["keygen", "-o", "{out}/k"]
    seal = ["seal", valid, "--key", str(KEY) + ".key", "-o", "{out}/v.tkb"]
    found["seal"] = seal
    found["seal dir"] = ["seal", "corpus/valid", "--key", str(KEY) + ".key", "-o", "{out}/d.tkb"]
    then = lambda *rest: ["--then", *rest]  # noqa: E731
    found["bundle show"] = [*seal, *then("bundle", "show", "{out}/v.tkb", "--trusted-key", str(KEY) + ".pub")]
    found["bundle extract"] = [*seal, *then("bundle", "extract", "{out}/v.tkb", "-o", "{out}/x")]
    found["verify bundle"] = [*seal, *then("verify", "{out}/v.tkb", "--trusted-key", str(KEY) + ".pub")]
    found["redact"] = [*seal, *then("redact", "{out}/v.tkb", "--secrets", "-o", "{out}/r.tkb")]
    found["attest"] = ["attest", "corpus/valid", "--key", str(KEY) + ".key", "-o", "{out}/a.jsonl"]
    found["report"] = ["report", "corpus/third_party", "-o", "{out}/r.html"]
    found["report finding"] = ["report", finding[1], "--scenario", finding[0], "--strict", "-o", "{out}/f.html"]
    db = ["audit", "corpus/third_party", "--db", "{out}/c.db"]
    for sub in ("summary", "runs", "findings"):
        found[f"db {sub}"] = [*db, *then("db", sub, "{out}/c.db", "-f", "json")]
    found["explain list"] = ["explain", "--list"]
    found["explain code"] = ["explain", "chain.event_hash_mismatch"]
    found["completion"] = ["completion", "bash"]
    found["wrong option"] = ["verify", "--no-such-option"]
    found["folder for file"] = ["explain", "corpus"]
    return found


def _run(args: list[str]) -> dict:
    """One case: split on --then into steps run in order; the last step's outputs are kept."""
    if SCRATCH.exists():
        shutil.rmtree(SCRATCH)
    SCRATCH.mkdir(parents=True)
    steps, step = [], []
    for arg in args:
        if arg == "--then":
            steps.append(step)
            step = []
        else:
            step.append(arg.replace("{out}", str(SCRATCH)))
    steps.append(step)
    env = {**os.environ, "COLUMNS": "100", "TZ": "UTC", "NO_COLOR": "1"}
    results = [subprocess.run([TRACEKIT, *s], capture_output=True, cwd=ROOT, env=env, timeout=600) for s in steps]
    record = {"exit": [r.returncode for r in results], "stdout": results[-1].stdout,
              "stderr": b"".join(r.stderr for r in results)}
    record["files"] = {p.relative_to(SCRATCH).as_posix(): p.read_bytes() for p in _files(SCRATCH)}
    return record


def record(target: Path) -> None:
    if not Path(str(KEY) + ".key").exists():
        subprocess.run([TRACEKIT, "keygen", "-o", str(KEY)], check=True, capture_output=True)
    target.mkdir(parents=True, exist_ok=True)
    index = {}
    for number, (name, args) in enumerate(cases().items()):
        result = _run(args)
        folder = target / f"{number:04d}"
        folder.mkdir(exist_ok=True)
        (folder / "stdout").write_bytes(result["stdout"])
        (folder / "stderr").write_bytes(result["stderr"])
        for rel, data in result["files"].items():
            (folder / "files" / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / "files" / rel).write_bytes(data)
        index[name] = {"folder": folder.name, "exit": result["exit"], "args": args}
    (target / "index.json").write_text(json.dumps(index, indent=1), encoding="utf-8")
    print(f"{len(index)} cases recorded in {target}")


def _digest(folder: Path, random: bool) -> dict[str, str]:
    out = {}
    for path in _files(folder):
        name = path.relative_to(folder).as_posix()
        if random and name.startswith("files/"):
            out[name] = "written"
            continue
        data = VOLATILE.sub(b"<v>", path.read_bytes())
        out[name] = hashlib.sha256(RANDOM.sub(b"<r>", data) if random else data).hexdigest()
    return out


def compare(a: Path, b: Path) -> int:
    left = json.loads((a / "index.json").read_text(encoding="utf-8"))
    right = json.loads((b / "index.json").read_text(encoding="utf-8"))
    differ = sorted(set(left) ^ set(right))
    for name in sorted(set(left) & set(right)):
        x, y = left[name], right[name]
        random = name in RANDOM_CASES
        if x["exit"] != y["exit"] or _digest(a / x["folder"], random) != _digest(b / y["folder"], random):
            differ.append(name)
    for name in differ:
        print("differs:", name)
    print(f"{len(set(left) & set(right))} cases compared, {len(differ)} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["record"] and len(sys.argv) == 3:
        record(Path(sys.argv[2]))
    elif sys.argv[1:2] == ["compare"] and len(sys.argv) == 4:
        sys.exit(compare(Path(sys.argv[2]), Path(sys.argv[3])))
    else:
        sys.exit(__doc__)
