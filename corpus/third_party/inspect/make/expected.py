"""Write `<log>.expected.json` ground truth from the script in scenarios.py (not from the log).

Usage: python expected.py OUT_PATH TASK_NAME LOG_FORMAT INSPECT_VERSION
"""

import hashlib
import json
import sys
from typing import Any

from scenarios import (
    CRASHING_TOOLS,
    EXTERNAL_SUFFIXES,
    FILES,
    INJECTED_EMAIL,
    MAX_TOOL_OUTPUT,
    SCENARIOS,
    TOOL_ERRORS,
    large_log,
)

# the task functions in tracekit_corpus.py: sample names and epochs
TASKS: dict[str, tuple[list[str], int]] = {
    "tracekit_corpus": (list(SCENARIOS), 1),
    "tracekit_corpus_epochs": (["benign_read", "injection_exfil_str"], 2),
}
# Inspect records a ToolError as ToolEvent.error {type: "unknown", message}
TOOL_ERROR_TYPE_IN_LOG = "unknown"


def tool_result(function: str, arguments: dict[str, Any]) -> str:
    """What the tool implementation in tracekit_corpus.py returns for these arguments."""
    if function == "read_file":
        return FILES[arguments["path"]]
    if function == "read_email":
        return INJECTED_EMAIL
    if function == "send_email":
        to = arguments["to"]
        return f"sent to {len([to] if isinstance(to, str) else to)} recipient(s)"
    if function == "search_records":
        return '[{"id": "inv-17", "amount": 40.0}, {"id": "inv-23", "amount": 12.5}]'
    if function == "fetch_log":
        return large_log()
    raise KeyError(function)


def recipients(arguments: dict[str, Any]) -> list[str]:
    to = arguments["to"]
    return [to] if isinstance(to, str) else list(to)


def episode(name: str, epoch: int) -> dict[str, Any]:
    spec = SCENARIOS[name]
    calls: list[dict[str, Any]] = []
    truncations: list[dict[str, Any]] = []
    error: dict[str, str] | None = None
    final_answer: str | None = None
    external: list[str] = []
    for turn, (kind, payload) in enumerate(spec["steps"]):
        if kind == "answer":
            final_answer = payload
            break
        for function, call_id, arguments in payload:
            call: dict[str, Any] = {
                "name": function,
                "call_id": call_id,
                "arguments": arguments,
                "assistant_turn": turn,
                "parallel_with": [c[1] for c in payload if c[1] != call_id],
            }
            if function in TOOL_ERRORS:
                call["outcome"] = "error"
                call["error"] = {"type": TOOL_ERROR_TYPE_IN_LOG,
                                 "raised": TOOL_ERRORS[function][0],
                                 "message": TOOL_ERRORS[function][1]}
            elif function in CRASHING_TOOLS:
                call["outcome"] = "crash"
                error = {"type": CRASHING_TOOLS[function][0], "message": CRASHING_TOOLS[function][1]}
            else:
                raw = tool_result(function, arguments)
                raw_bytes = len(raw.encode())
                call["outcome"] = "ok"
                call["result_bytes"] = raw_bytes
                call["result_sha256"] = hashlib.sha256(raw.encode()).hexdigest()
                if raw_bytes <= MAX_TOOL_OUTPUT:
                    call["result"] = raw
                else:
                    truncations.append({"call_id": call_id, "raw_bytes": raw_bytes,
                                        "kept_bytes": MAX_TOOL_OUTPUT})
                if function == "send_email":
                    external += [a for a in recipients(arguments) if not a.endswith(EXTERNAL_SUFFIXES)]
            calls.append(call)
        if error is not None:
            break
    scores: dict[str, str] | None = None
    if error is None:
        # no_external_email: I when any send_email went outside the internal domain;
        # includes(): C when the target occurs in the final answer (case-insensitive)
        scores = {
            "no_external_email": "I" if external else "C",
            "includes": "C" if spec["target"].lower() in (final_answer or "").lower() else "I",
        }
    return {
        "id": name,
        "epoch": epoch,
        "eval_member": f"samples/{name}_epoch_{epoch}.json",
        "scenario": spec["scenario"],
        "prompt": spec["prompt"],
        "tool_calls": calls,
        "truncations": truncations,
        "error": error,
        "final_answer": final_answer,
        "external_recipients": external,
        "scores": scores,
    }


def main() -> None:
    out, task_name, log_format, version = sys.argv[1:5]
    names, epochs = TASKS[task_name]
    doc = {
        "tool": "inspect_ai",
        "tool_version": version,
        "format": log_format,
        "task": task_name,
        "model": "mockllm/model",
        "epochs": epochs,
        "max_tool_output": MAX_TOOL_OUTPUT,
        "note": "written by make/expected.py from make/scenarios.py, not read from the log",
        "episodes": [episode(n, e) for n in sorted(names) for e in range(1, epochs + 1)],
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
