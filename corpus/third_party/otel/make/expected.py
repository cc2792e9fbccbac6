"""Write `<file>.expected.json` ground truth from the script in scenarios.py (not from the log).

Usage: python expected.py OUT_PATH RUN_NAME CONTENT(0|1) LENGTH_LIMIT(0 = none) VERSIONS_JSON [legacy]
`legacy`: the run without OTEL_SEMCONV_STABILITY_OPT_IN, where the chat content goes to log
records (a separate `.logs.otlp.jsonl`) and the invoke_agent span carries no content.
"""

import json
import sys
from typing import Any

from fake_server import arguments_json
from scenarios import AGENT_NAME, MODEL, SCENARIOS, SYSTEM_PROMPT, TOOL_ERRORS, tool_result

EXTERNAL_SUFFIXES = ("@company.example",)  # the internal domain; anything else is external


def attr(value: str, content: bool, limit: int) -> dict[str, Any] | None:
    """The expected content attribute: absent without capture, cut at `limit` characters."""
    if not content:
        return None
    cut = limit > 0 and len(value) > limit
    return {"full": value, "full_chars": len(value), "cut": cut,
            "kept": value[:limit] if cut else value}


def trace(name: str, content: bool, limit: int) -> dict[str, Any]:
    spec = SCENARIOS[name]
    chats: list[dict[str, Any]] = []
    calls: list[dict[str, Any]] = []
    external: list[str] = []
    final_answer: str | None = None
    agent_error: str | None = None
    for turn, (kind, payload) in enumerate(spec["steps"]):
        if kind == "server_error":
            chats.append({"response_id": None, "status": "error",
                          "error_type": "InternalServerError", "http_status": 500})
            agent_error = "InternalServerError"
            break
        chats.append({"response_id": f"chatcmpl-{name}-{turn}", "status": "ok",
                      "finish_reason": "stop" if kind == "answer" else "tool_calls"})
        if kind == "answer":
            final_answer = payload
            break
        for function, call_id, arguments in payload:
            args_json = arguments_json(arguments)
            call: dict[str, Any] = {
                "name": function, "call_id": call_id, "arguments": arguments,
                "arguments_json": args_json, "assistant_turn": turn,
                "parallel_with": [c[1] for c in payload if c[1] != call_id],
                "arguments_attribute": attr(args_json, content, limit),
            }
            if function in TOOL_ERRORS:
                call.update(outcome="error", error_type=TOOL_ERRORS[function][0],
                            error_message=TOOL_ERRORS[function][1], result_attribute=None)
            else:
                result = tool_result(function, arguments)
                call.update(outcome="ok", result=result,
                            result_attribute=attr(result, content, limit))
                if function == "send_email":
                    to = arguments["to"]
                    external += [a for a in ([to] if isinstance(to, str) else to)
                                 if not a.endswith(EXTERNAL_SUFFIXES)]
            calls.append(call)
    return {
        "conversation_id": name,  # gen_ai.conversation.id on the invoke_agent span
        "scenario": spec["scenario"],
        "agent_name": AGENT_NAME,
        "prompt": spec["prompt"] if content else None,
        "agent_outcome": "error" if agent_error else "ok",
        "agent_error_type": agent_error,
        "chat_spans": chats,
        "tool_calls": calls,
        "final_answer": final_answer if content else None,
        "external_recipients": external,
    }


def main() -> None:
    out, run, content_s, limit_s, versions = sys.argv[1:6]
    content, limit = content_s == "1", int(limit_s)
    legacy = sys.argv[6:7] == ["legacy"]
    doc = {
        "tool": "opentelemetry-python GenAI (instrumentation-openai-v2 + util-genai)",
        "versions": json.loads(versions),
        "format": "OTLP/JSON lines (opentelemetry-exporter-otlp-json-file FileSpanExporter)",
        "run": run,
        "content_captured": content,
        # where the chat/agent message content is: span attributes (gen_ai.input.messages,
        # gen_ai.output.messages, gen_ai.system_instructions), log records (legacy
        # gen_ai.*.message / gen_ai.choice events in the .logs file), or nowhere
        "message_content_on": (None if not content else "log_events" if legacy else "spans"),
        "semconv_opt_in": None if legacy else "gen_ai_latest_experimental",
        "attribute_value_length_limit": limit or None,
        "request_model": MODEL,
        "system_prompt": SYSTEM_PROMPT if content else None,
        "service_name": "tracekit-corpus-agent",
        "note": "written by make/expected.py from make/scenarios.py, not read from the log; "
                "one trace (trace id) per scenario, in this order",
        "traces": [trace(n, content, limit) for n in SCENARIOS],
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
