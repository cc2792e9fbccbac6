"""Generate the garak part of the real third-party corpus.

Runs the real garak CLI offline twice against garak's own offline test generators
(test.Repeat echoes the prompt, test.Blank answers with empty text), with a small probe set
capped by soft_probe_prompt_cap, one generation per prompt and seed 42.  Copies
<prefix>.report.jsonl and <prefix>.hitlog.jsonl (when garak writes one) into OUTDIR, scrubbing
absolute paths in the setup/payload/digest records only (see ../README.md), and writes
<prefix>.expected.json from what this script configured (never read back from the log).

Usage: python make_corpus.py GARAK_PYTHON OUTDIR   (OUTDIR must not exist yet)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "corpus.yaml"
SEED = 42
GENERATIONS = 1
CAP = 4  # soft_probe_prompt_cap in corpus.yaml

# probe -> detectors garak applies to it (primary + extended, as documented by each probe)
PROBES: dict[str, list[str]] = {
    "encoding.InjectBase64": ["encoding.DecodeMatch", "encoding.DecodeApprox"],
    "promptinject.HijackHateHumans": ["promptinject.AttackRogueString"],
}

# target -> for each detector, the score every attempt must get, and why.
# Repeat echoes the prompt: PromptInject prompts contain their rogue string, so the echo
# contains it (score 1.0, a hit); InjectBase64 prompts carry only the base64-encoded payload,
# and the decode detectors look for the decoded payload (score 0.0).  Blank outputs nothing.
TARGETS: dict[str, dict[str, float]] = {
    "test.Repeat": {
        "encoding.DecodeMatch": 0.0,
        "encoding.DecodeApprox": 0.0,
        "promptinject.AttackRogueString": 1.0,
    },
    "test.Blank": {
        "encoding.DecodeMatch": 0.0,
        "encoding.DecodeApprox": 0.0,
        "promptinject.AttackRogueString": 0.0,
    },
}

SCRUB_ENTRY_TYPES = {"start_run setup", "payload_init", "digest"}


def prefix_of(target: str) -> str:
    return target.split(".")[-1].lower()


def scrub(text: str, replacements: list[tuple[str, str]]) -> str:
    """Replace absolute path prefixes, only in records that hold configuration."""
    out = []
    for line in text.splitlines(keepends=True):
        entry_type = json.loads(line).get("entry_type") if line.strip() else None
        if entry_type in SCRUB_ENTRY_TYPES:
            for old, new in replacements:
                line = line.replace(old, new)
        out.append(line)
    return "".join(out)


def expected_for(target: str) -> dict[str, Any]:
    scores = TARGETS[target]
    attempts_per_probe = CAP * 1  # one attempt per prompt; generations per attempt below
    probes = []
    for probe, detectors in PROBES.items():
        hits = sum(attempts_per_probe * GENERATIONS for d in detectors if scores[d] >= 0.5)
        probes.append(
            {
                "probe": probe,
                "attempts": attempts_per_probe,
                "attempt_entries": 2 * attempts_per_probe,  # status 1 then status 2, same uuid
                "outputs_per_attempt": GENERATIONS,
                "output_rule": "echo of the prompt's last turn" if target == "test.Repeat" else "empty text",
                "detectors": {
                    d: {
                        "score_each": scores[d],
                        "eval_passed": attempts_per_probe * GENERATIONS if scores[d] < 0.5 else 0,
                        "eval_total": attempts_per_probe * GENERATIONS,
                    }
                    for d in detectors
                },
                "hits": hits,
            }
        )
    return {
        "tool": "garak",
        "file": f"{prefix_of(target)}.report.jsonl",
        "hitlog": f"{prefix_of(target)}.hitlog.jsonl" if any(p["hits"] for p in probes) else None,
        "run": {
            "target_type": target,
            "target_name": None,
            "seed": SEED,
            "generations": GENERATIONS,
            "soft_probe_prompt_cap": CAP,
        },
        "episodes_note": "garak has no episodes or tool calls: each attempt is one prompt/output pair, "
        "written twice (status 1, then 2).",
        "tool_calls": [],
        "truncations": [],
        "errors": [],
        "probes": probes,
    }


def main() -> int:
    garak_python, outdir = sys.argv[1], Path(sys.argv[2])
    if outdir.exists():
        print(f"refusing to overwrite {outdir}", file=sys.stderr)
        return 2
    site = subprocess.run(
        [garak_python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    outdir.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="garak-corpus-") as work:
        workdir = Path(work)
        config = workdir / "corpus.yaml"
        shutil.copy(CONFIG, config)
        env = dict(
            os.environ,
            HF_HUB_OFFLINE="1",
            TRANSFORMERS_OFFLINE="1",
            HF_DATASETS_OFFLINE="1",
            XDG_DATA_HOME=str(workdir / "data"),
            XDG_CACHE_HOME=str(workdir / "cache"),
            XDG_CONFIG_HOME=str(workdir / "config"),
        )
        for target in TARGETS:
            prefix = prefix_of(target)
            cmd = [
                garak_python, "-m", "garak",
                "--config", str(config),
                "--target_type", target,
                "--probes", ",".join(PROBES),
                "--report_prefix", prefix,
            ]
            done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, check=False)
            (workdir / f"{prefix}.console.txt").write_text(done.stdout + done.stderr)
            if done.returncode != 0:
                print(f"garak failed for {target}:\n{done.stdout}\n{done.stderr}", file=sys.stderr)
                return 1
            runs = workdir / "data" / "garak" / "garak_runs"
            replacements = [(site + "/", "<site-packages>/"), (str(workdir) + "/", "<workdir>/")]
            expected = expected_for(target)
            for name in (f"{prefix}.report.jsonl", f"{prefix}.hitlog.jsonl"):
                src = runs / name
                if src.is_file():
                    (outdir / name).write_text(scrub(src.read_text(encoding="utf-8"), replacements), encoding="utf-8")
            if (expected["hitlog"] is None) != (not (outdir / f"{prefix}.hitlog.jsonl").is_file()):
                print(f"{target}: hitlog presence differs from the scripted expectation", file=sys.stderr)
                return 1
            # garak's own eval verdicts must match what was scripted (checked, never copied).
            evals = {
                (d["probe"], d["detector"]): (d["passed"], d["total_evaluated"])
                for d in map(json.loads, (outdir / f"{prefix}.report.jsonl").read_text().splitlines())
                if d.get("entry_type") == "eval"
            }
            want = {
                (p["probe"], d): (v["eval_passed"], v["eval_total"])
                for p in expected["probes"]
                for d, v in p["detectors"].items()
            }
            if evals != want:
                print(f"{target}: garak eval {evals} != scripted {want}", file=sys.stderr)
                return 1
            (outdir / f"{prefix}.expected.json").write_text(json.dumps(expected, indent=2) + "\n")
            print(f"{target}: {sorted(p.name for p in outdir.glob(prefix + '.*'))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
