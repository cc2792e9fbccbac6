"""Count every garak report of the corpus with garak's own readers (docs/formats.md, "garak").

Run with the Python of a throwaway venv holding garak (never a tracekit dependency):

    /tmp/garak-venv/bin/python make/garak_counts.py > make/garak_counts.expected.json

Per report file it records what garak's code makes of it:
- ``garak.report.Report(...).load()``: the records, and its ``attempt`` records by ``status``;
- ``garak.analyze.report_digest._parse_report``: the ``init`` entry (garak version), ``eval`` entries;
- ``garak.analyze.analyze_log.analyze_log``: attempts started (status 1) and completed (status 2),
  and the (attempt, detector) pairs it prints as hits;
- ``garak.report.Report(...).load().get_evaluations()``: the ``eval`` rows garak's AVID export uses
  (or the exception it raises on that file);
- ``garak.evaluators.ThresholdEvaluator(run.eval_threshold).test``: garak's own pass/fail verdict
  for every detector score of every completed attempt (``None`` scores counted apart, as garak does).
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from collections import Counter
from pathlib import Path

import garak
import garak._config
import garak.analyze.analyze_log
import garak.analyze.report_digest
import garak.evaluators.base
import garak.report

HERE = Path(__file__).resolve().parent.parent
CORPUS = HERE.parents[1]
FOLDERS = (HERE, HERE / "public", CORPUS / "refused" / "garak" / "public")


def _records(path: Path) -> list[dict]:
    return garak.report.Report(str(path)).load().records


def _analyze_log(path: Path) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        garak.analyze.analyze_log.analyze_log(str(path))
    counts = {"attempts_started": 0, "attempts_completed": 0, "hit_lines": 0}
    for line in out.getvalue().splitlines():
        words = line.split()
        if line.startswith("##") and len(words) == 4 and words[2] == "attempts":
            counts[f"attempts_{words[3]}"] = int(words[1])
        elif not line.startswith("##") and line.count("\t") >= 3 and line.split("\t")[2].endswith("%"):
            counts["hit_lines"] += 1
    return counts


def _evaluations(path: Path) -> dict:
    report = garak.report.Report(str(path)).load().get_evaluations()
    rows = report.evaluations
    total = "total_evaluated" if "total_evaluated" in rows else "total"
    return {
        "rows": [
            {"probe": r["probe"], "detector": r["detector"], "passed": int(r["passed"]), "total": int(r[total])}
            for _, r in rows.iterrows()
        ]
    }


def _verdicts(records: list[dict]) -> dict:
    setup = next((r for r in records if r.get("entry_type") == "start_run setup"), {})
    threshold = setup.get("run.eval_threshold")
    judge = garak.evaluators.base.ThresholdEvaluator(0.5 if threshold is None else threshold)
    counts = {"threshold_in_file": threshold, "scores": 0, "pass": 0, "fail": 0, "none": 0}
    for record in records:
        if record.get("entry_type") != "attempt" or record.get("status") != 2:
            continue
        for scores in record.get("detector_results", {}).values():
            for score in scores:
                counts["scores"] += 1
                if score is None:
                    counts["none"] += 1
                else:
                    counts["pass" if judge.test(float(score)) else "fail"] += 1
    return counts


def _digest_parse(path: Path) -> dict:
    with path.open(encoding="utf-8") as handle:
        init, _setup, _payloads, evals, _cache, _summaries = garak.analyze.report_digest._parse_report(handle)
    return {"garak_version": init.get("garak_version"), "eval_entries": len(evals)}


def _guarded(step: str, read, path: Path) -> dict:
    """What one of garak's readers makes of the file, or the exception it stops with."""
    try:
        return read(path)
    except Exception as error:  # noqa: BLE001 - the point is to record what garak's reader does
        return {f"{step}_error": type(error).__name__}


def count(path: Path) -> dict:
    records = _records(path)
    init = next((r for r in records if r.get("entry_type") == "init"), {})
    return {
        "folder": str(path.parent.relative_to(CORPUS)),
        "init_garak_version": init.get("garak_version"),
        "completion_entry": any(r.get("entry_type") == "completion" for r in records),
        "report_attempt_records": dict(sorted(Counter(
            str(r.get("status")) for r in records if r.get("entry_type") == "attempt"
        ).items())),
        "report_digest": _guarded("report_digest", _digest_parse, path),
        "analyze_log": _guarded("analyze_log", _analyze_log, path),
        "verdicts": _verdicts(records),
        "evaluations": _guarded("report", _evaluations, path),
    }


def main() -> None:
    garak._config.load_base_config()
    files = sorted(p for folder in FOLDERS for p in folder.glob("*.report.jsonl"))
    counts = {path.name: count(path) for path in files}
    note = {
        "garak": garak.__version__,
        "python": sys.version.split()[0],
        "script": "corpus/third_party/garak/make/garak_counts.py",
    }
    json.dump({"made_with": note, "files": counts}, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
