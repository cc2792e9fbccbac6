#!/usr/bin/env python3
"""Hostile garak reports and hit logs, generated deterministically (docs/formats.md, "garak").
Each case starts like a real report (a ``start_run setup`` line, so it is detected as ``garak``)
or a real hit log, and breaks one rule after that, with the code tracekit must give in
expected.json. Every case carries the canary where an importer could echo it; none may reach a
diagnostic.

Usage: generate.py [--check]   (--check: exit 1 if a committed file differs from what is built)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from written import write_cases

CANARY = "CANARY-garak-hostile-3Jw-do-not-echo"
SETUP = {"entry_type": "start_run setup", "_config.version": "0.17.1", "run.seed": 42, "plugins.target_type": CANARY}
INIT = {"entry_type": "init", "garak_version": "0.17.1", "start_time": "2026-01-01T00:00:00", "run": "r1"}


def attempt(status: int, **extra: object) -> dict[str, object]:
    base: dict[str, object] = {
        "entry_type": "attempt",
        "uuid": "3f0c2f3e-0000-4000-8000-000000000001",
        "seq": 0,
        "status": status,
        "probe_classname": "promptinject.HijackHateHumans",
        "probe_params": {},
        "targets": [],
        "prompt": {"turns": [{"role": "user", "content": {"text": CANARY, "lang": "en"}}], "notes": {}},
        "outputs": [{"text": CANARY, "lang": "en"}],
        "detector_results": {"promptinject.AttackRogueString": [1.0]} if status == 2 else {},
        "notes": {},
        "goal": "inject a prompt on hate humans",
        "conversations": [],
        "reverse_translation_outputs": [],
        "intent": None,
    }
    base.update(extra)
    return base


def hit(**extra: object) -> dict[str, object]:
    base: dict[str, object] = {
        "goal": "g",
        "prompt": {"turns": [{"role": "user", "content": {"text": CANARY}}], "notes": None},
        "output": {"text": CANARY},
        "triggers": [CANARY],
        "score": 1.0,
        "run_id": "r1",
        "attempt_id": "3f0c2f3e-0000-4000-8000-000000000001",
        "attempt_seq": 0,
        "attempt_idx": 0,
        "generator": CANARY,
        "probe": "p.P",
        "detector": "d.D",
        "generations_per_prompt": 1,
    }
    base.update(extra)
    return base


def lines(*entries: object) -> bytes:
    return b"".join(json.dumps(e).encode() + b"\n" for e in entries)


def deep(levels: int) -> object:
    value: object = CANARY
    for _ in range(levels):
        value = [value]
    return value


CASES: dict[str, tuple[str, str | None, bytes]] = {
    "control__valid.report.jsonl": ("a valid report: one attempt written twice", None, lines(SETUP, INIT, attempt(1), attempt(2))),
    "control__valid.hitlog.jsonl": ("a valid hit log line", None, lines(hit())),
    "deep_prompt.report.jsonl": ("a prompt nested 200 levels", "garak.too_deep", lines(SETUP, attempt(2, prompt=deep(200)))),
    "records_disagree.report.jsonl": (
        "the evaluated record of an attempt shows other outputs than the generated one",
        "garak.attempt_conflict",
        lines(SETUP, attempt(1), attempt(2, outputs=[{"text": CANARY + " changed"}])),
    ),
    "evaluated_twice.report.jsonl": ("an attempt evaluated twice", "garak.attempt_conflict", lines(SETUP, attempt(2), attempt(2))),
    "score_not_number.report.jsonl": (
        "a detector score that is a string",
        "garak.schema",
        lines(SETUP, attempt(2, detector_results={CANARY: [CANARY]})),
    ),
    "uuid_not_string.report.jsonl": ("an attempt uuid that is a number", "garak.schema", lines(SETUP, attempt(2, uuid=7))),
    "turns_not_list.report.jsonl": (
        "prompt turns as a string",
        "garak.schema",
        lines(SETUP, attempt(2, prompt={"turns": CANARY})),
    ),
    "unknown_line.report.jsonl": ("a line that is no report entry", "garak.not_a_report", lines(SETUP, {CANARY: CANARY})),
    "hit_in_report.report.jsonl": ("a hit-log line inside a report", "garak.not_a_report", lines(SETUP, hit())),
    "invalid_utf8.report.jsonl": (
        "a line that is not UTF-8",
        "garak.invalid_json",
        lines(SETUP) + b'{"entry_type": "init", "garak_version": "\xff\xfe' + CANARY.encode() + b'"}\n',
    ),
    "hit_score_not_number.hitlog.jsonl": ("a hit whose score is a string", "garak.schema", lines(hit(score=CANARY))),
    "turn_score_not_number.report.jsonl": (
        "a per-turn detector score (a list per output) that is a string",
        "garak.schema",
        lines(SETUP, attempt(2, detector_results={CANARY: [[0.5, CANARY]]})),
    ),
    "seq_twice.report.jsonl": (
        "two records of one uuid with different seq",
        "garak.attempt_conflict",
        lines(SETUP, attempt(2), attempt(2, seq=7, goal=CANARY)),
    ),
    "goal_twice.report.jsonl": (
        "an attempt giving its goal twice",
        "garak.duplicate_key",
        lines(SETUP, attempt(2)).replace(b'"goal": ', b'"goal": "' + CANARY.encode() + b'", "goal": ', 1),
    ),
}


def main() -> int:
    return write_cases(HERE, CASES, CANARY, sys.argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
