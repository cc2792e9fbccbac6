"""Count the public AgentDojo runs under ../public/runs with AgentDojo's own models.

Every file is loaded by `agentdojo.benchmark.load_task_results` (the function AgentDojo's
own result tables use): it converts older string-content messages to content blocks and
validates the whole run as a `TaskResults` pydantic model (typed messages, `FunctionCall`
tool calls). The counts below are read from that model only, never from the raw JSON.

Run it in a throwaway environment with AgentDojo installed (never a tracekit dependency):

    python3.11 -m venv /tmp/dojo-venv
    /tmp/dojo-venv/bin/pip install agentdojo==0.1.35
    /tmp/dojo-venv/bin/python make/count_public.py > make/public_counts.expected.json

An optional argument names another log folder (the `runs/` folder of a whole archive) to count
instead. A file AgentDojo's model rejects (pydantic `ValidationError`) is listed under `rejected`
with the fields the error names and their error types, never counted.
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

from agentdojo.benchmark import TaskResults, load_task_results
from agentdojo.types import get_text_content_as_str
from pydantic import ValidationError

HERE = Path(__file__).resolve().parent
LOGDIR = HERE.parent / "public" / "runs"


def _counts(result: TaskResults) -> dict[str, Any]:
    roles: dict[str, int] = {}
    calls: list[dict[str, Any]] = []
    tool_results = 0
    tool_errors = 0
    assistant_turns = 0
    final_answer = None
    for message in result.messages:
        role = message["role"]
        roles[role] = roles.get(role, 0) + 1
        if role == "assistant":
            assistant_turns += 1
            for call in message["tool_calls"] or []:
                calls.append({"function": call.function, "id": call.id, "args": dict(call.args)})
            content = message["content"]
            final_answer = None if content is None else get_text_content_as_str(content)
        elif role == "tool":
            tool_results += 1
            tool_errors += message["error"] is not None
    return {
        "suite_name": result.suite_name,
        "pipeline_name": result.pipeline_name,
        "user_task_id": result.user_task_id,
        "attack_type": result.attack_type,
        "injection_task_id": result.injection_task_id,
        "injection_placeholders": sorted(result.injections),
        "messages": len(result.messages),
        "messages_by_role": dict(sorted(roles.items())),
        "assistant_turns": assistant_turns,
        "tool_calls": len(calls),
        "calls": calls,
        "tool_results": tool_results,
        "tool_errors": tool_errors,
        "final_answer": final_answer,
        "utility": result.utility,
        "security": result.security,
        "error": result.error is not None,
    }


def main(argv: list[str]) -> int:
    logdir = Path(argv[0]).resolve() if argv else LOGDIR
    files: dict[str, Any] = {}
    rejected: dict[str, str] = {}
    for path in sorted(logdir.rglob("*.json")):
        pipeline, suite, user_task, attack, name = path.relative_to(logdir).parts
        rel = path.relative_to(logdir.parent).as_posix()
        try:
            result = load_task_results(pipeline, suite, user_task, attack, name.removesuffix(".json"), logdir)
        except ValidationError as exc:
            rejected[rel] = {
                "exception": "ValidationError",
                "errors": sorted(f"{'.'.join(map(str, e['loc']))}: {e['type']}" for e in exc.errors()),
            }
            continue
        files[rel] = _counts(result)
    out: dict[str, Any] = {
        "agentdojo_version": version("agentdojo"),
        "loader": "agentdojo.benchmark.load_task_results -> TaskResults",
        "files": files,
    }
    out["rejected"] = rejected
    json.dump(out, sys.stdout, indent=2, sort_keys=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
