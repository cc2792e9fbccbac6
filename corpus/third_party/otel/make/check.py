"""Check the OTLP/JSON lines files against their .expected.json (a sanity check of the corpus).

Usage: python3 make/check.py *.otlp.jsonl   (plain Python, no OTel packages needed)
"""

import json
import sys
from typing import Any


def value(v: dict[str, Any]) -> Any:
    (kind, x), = v.items()
    if kind == "arrayValue":
        return [value(e) for e in x.get("values", [])]
    return int(x) if kind == "intValue" else x


def spans(path: str) -> list[dict[str, Any]]:
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            for rs in json.loads(line)["resourceSpans"]:
                for ss in rs["scopeSpans"]:
                    for sp in ss["spans"]:
                        sp["attrs"] = {a["key"]: value(a["value"]) for a in sp.get("attributes", [])}
                        out.append(sp)
    return out


def logs_by_trace(path: str) -> dict[str, list[str]]:
    """trace id -> tool call ids named in gen_ai.tool.message records (legacy content events)."""
    out: dict[str, list[str]] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            for rl in json.loads(line)["resourceLogs"]:
                for sl in rl["scopeLogs"]:
                    for r in sl["logRecords"]:
                        if r.get("eventName") == "gen_ai.tool.message":
                            body = {kv["key"]: value(kv["value"])
                                    for kv in r["body"]["kvlistValue"]["values"]}
                            out.setdefault(r["traceId"], []).append(body["id"])
    return out


def check(path: str) -> None:
    with open(path + ".expected.json", encoding="utf-8") as f:
        exp = json.load(f)
    all_spans = spans(path)
    agents = [s for s in all_spans if s["attrs"].get("gen_ai.operation.name") == "invoke_agent"]
    assert [a["attrs"]["gen_ai.conversation.id"] for a in agents] == [
        t["conversation_id"] for t in exp["traces"]], "trace order"
    assert len({a["traceId"] for a in agents}) == len(agents), "one trace per scenario"
    for agent, t in zip(agents, exp["traces"], strict=True):
        in_trace = [s for s in all_spans if s["traceId"] == agent["traceId"]]
        tools = sorted((s for s in in_trace if s["attrs"]["gen_ai.operation.name"] == "execute_tool"),
                       key=lambda s: int(s["startTimeUnixNano"]))
        chats = [s for s in in_trace if s["attrs"]["gen_ai.operation.name"] == "chat"]
        assert len(chats) == len(t["chat_spans"]), (t["conversation_id"], len(chats))
        assert (agent["status"].get("code") == 2) == (t["agent_outcome"] == "error")
        assert agent["attrs"].get("error.type") == t["agent_error_type"]
        assert [s["attrs"]["gen_ai.tool.call.id"] for s in tools] == [c["call_id"] for c in t["tool_calls"]]
        for s, c in zip(tools, t["tool_calls"], strict=True):
            assert s["attrs"]["gen_ai.tool.name"] == c["name"]
            assert (s["status"].get("code") == 2) == (c["outcome"] == "error")
            assert s["attrs"].get("error.type") == c.get("error_type")
            for key, want in (("gen_ai.tool.call.arguments", c["arguments_attribute"]),
                              ("gen_ai.tool.call.result", c.get("result_attribute"))):
                got = s["attrs"].get(key)
                assert got == (want["kept"] if want else None), (key, got, want)
                if want and not want["cut"]:
                    assert key != "gen_ai.tool.call.arguments" or json.loads(got) == c["arguments"]
        has_content = "gen_ai.input.messages" in agent["attrs"]
        assert has_content == (exp["message_content_on"] == "spans")
        if exp["message_content_on"] == "log_events":
            events = logs_by_trace(path.replace(".otlp.jsonl", ".logs.otlp.jsonl"))
            got_ids = events.get(agent["traceId"], [])
            want = [c["call_id"] for c in t["tool_calls"]]
            assert all(i in got_ids for i in want), (t["conversation_id"], got_ids)
    print(f"{path}: {len(all_spans)} spans, {len(agents)} traces ok")


if __name__ == "__main__":
    for p in sys.argv[1:]:
        if not p.endswith(".logs.otlp.jsonl"):  # checked together with its span file
            check(p)
