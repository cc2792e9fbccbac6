#!/usr/bin/env python3
"""Hostile AgentDojo TraceLogger files, generated deterministically (docs/formats.md,
"AgentDojo"). Each case keeps the TraceLogger envelope (``suite_name`` first, then
``pipeline_name``, so it is detected as ``agentdojo``) and breaks one rule inside it, with the
code tracekit must give in expected.json. Every case carries the canary where an importer could
echo it; none may reach a diagnostic.

Usage: generate.py [--check]   (--check: exit 1 if a committed file differs from what is built)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from written import write_cases

CANARY = "CANARY-agentdojo-hostile-8Rm-do-not-echo"


def run(**extra: object) -> bytes:
    base: dict[str, object] = {
        "suite_name": "workspace",
        "pipeline_name": CANARY,
        "user_task_id": "user_task_0",
        "injection_task_id": None,
        "attack_type": None,
        "injections": {},
        "messages": [
            {"role": "system", "content": [{"type": "text", "content": CANARY}]},
            {"role": "user", "content": [{"type": "text", "content": "hi"}]},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"function": "f", "args": {"a": CANARY}, "id": "c1", "placeholder_args": None}],
            },
            {
                "role": "tool",
                "content": [{"type": "text", "content": CANARY}],
                "tool_call_id": "c1",
                "tool_call": {"function": "f", "args": {"a": CANARY}, "id": "c1", "placeholder_args": None},
                "error": None,
            },
        ],
        "error": None,
        "utility": True,
        "security": True,
    }
    base.update(extra)
    return json.dumps(base, indent=4).encode()


def deep(levels: int) -> object:
    value: object = CANARY
    for _ in range(levels):
        value = {CANARY: [value]}
    return value


CASES: dict[str, tuple[str, str | None, bytes]] = {
    "control__valid.json": ("a valid task run", None, run()),
    "deep_args.json": ("tool-call arguments nested 300 levels", "agentdojo.too_deep", run(messages=[{"role": "assistant", "content": None, "tool_calls": [{"function": "f", "args": deep(150)}]}])),
    "messages_not_list.json": ("messages as an object", "agentdojo.schema", run(messages={CANARY: CANARY})),
    "role_not_string.json": ("a message role that is a list", "agentdojo.schema", run(messages=[{"role": [CANARY], "content": None}])),
    "args_not_object.json": (
        "tool-call arguments as a string",
        "agentdojo.schema",
        run(messages=[{"role": "assistant", "content": None, "tool_calls": [{"function": "f", "args": CANARY}]}]),
    ),
    "content_block_not_object.json": (
        "a content block that is a string",
        "agentdojo.schema",
        run(messages=[{"role": "user", "content": [CANARY]}]),
    ),
    "security_not_bool.json": ("security as a string", "agentdojo.schema", run(security=CANARY)),
    "injection_not_text.json": ("an injection whose text is an object", "agentdojo.schema", run(injections={CANARY: {CANARY: 1}})),
    "invalid_utf8.json": ("bytes that are not UTF-8 in a message", "agentdojo.invalid_json", run().replace(b'"hi"', b'"\xff\xfe"')),
    "cut_document.json": ("a document cut in the middle", "agentdojo.invalid_json", run()[:400]),
    "nan_duration.json": ("a NaN literal", "agentdojo.invalid_json", run()[:-2] + b', "duration": NaN}'),
    "security_twice.json": (
        "security given twice: readers disagree on the verdict",
        "agentdojo.duplicate_key",
        run()[:-2] + b',\n    "security": false\n}',
    ),
}


def main() -> int:
    return write_cases(HERE, CASES, CANARY, sys.argv[1:])


if __name__ == "__main__":
    raise SystemExit(main())
