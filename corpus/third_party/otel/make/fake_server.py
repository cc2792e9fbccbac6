"""A scripted fake OpenAI Chat Completions server on 127.0.0.1 (stops itself).

The scenario is found from the first user message, the step from the number of assistant
messages in the request. Tool-call arguments are sent as `json.dumps(arguments)`.
"""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from scenarios import MODEL, SCENARIOS

PROMPT_TO_SCENARIO = {spec["prompt"]: name for name, spec in SCENARIOS.items()}
LIFETIME_SECONDS = 300  # the server shuts itself down after this even if nobody stops it


def arguments_json(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments)


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        messages = body["messages"]
        prompt = next(m["content"] for m in messages if m["role"] == "user")
        name = PROMPT_TO_SCENARIO[prompt]
        turn = sum(1 for m in messages if m["role"] == "assistant")
        kind, payload = SCENARIOS[name]["steps"][turn]
        if kind == "server_error":
            self._send(500, {"error": {"message": payload, "type": "server_error",
                                       "param": None, "code": None}})
            return
        if kind == "answer":
            message: dict[str, Any] = {"role": "assistant", "content": payload}
            finish = "stop"
        else:
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": call_id, "type": "function",
                     "function": {"name": function, "arguments": arguments_json(arguments)}}
                    for function, call_id, arguments in payload
                ],
            }
            finish = "tool_calls"
        self._send(200, {
            "id": f"chatcmpl-{name}-{turn}",
            "object": "chat.completion",
            "created": 1767225600,
            "model": MODEL,
            "system_fingerprint": "fp_tracekit_fake",
            "choices": [{"index": 0, "message": message, "finish_reason": finish,
                         "logprobs": None}],
            "usage": {"prompt_tokens": 100 + 10 * turn, "completion_tokens": 20,
                      "total_tokens": 120 + 10 * turn},
        })

    def _send(self, status: int, doc: dict[str, Any]) -> None:
        data = json.dumps(doc).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def start() -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    timer = threading.Timer(LIFETIME_SECONDS, server.shutdown)
    timer.daemon = True
    timer.start()
    return server
