"""Check the Inspect logs against their .expected.json with Inspect's own reader.

Usage: /tmp/venv-inspect-0.3.285/bin/python make/check.py [DIR]
(from corpus/third_party/inspect/; DIR is `.` by default, or `0.3.130`)
Also checks that each .eval and its `inspect log convert` .json give the same evidence.
"""

import json
import os
import sys
from typing import Any

from inspect_ai.log import read_eval_log


def evidence(path: str) -> list[Any]:
    log = read_eval_log(path, resolve_attachments=True)
    out = []
    for s in sorted(log.samples or [], key=lambda s: (str(s.id), s.epoch)):
        tools = [(e.id, e.function, e.arguments, list(e.truncated) if e.truncated else None,
                  e.error.message if e.error else None, e.failed)
                 for e in s.events if e.event == "tool"]
        scores = {k: v.value for k, v in (s.scores or {}).items()}
        out.append((s.id, s.epoch, tools, scores, s.error.message if s.error else None))
    return out


def check(task: str) -> None:
    got_by_file = {}
    for suffix in ("eval", "json", "converted.json"):
        path = f"{task}.{suffix}"
        with open(path + ".expected.json", encoding="utf-8") as f:
            exp = json.load(f)
        got = evidence(path)
        got_by_file[suffix] = got
        assert len(got) == len(exp["episodes"]), path
        for ep, (sid, epoch, tools, scores, err) in zip(exp["episodes"], got, strict=True):
            assert (ep["id"], ep["epoch"]) == (sid, epoch), (path, sid)
            assert [c["call_id"] for c in ep["tool_calls"]] == [t[0] for t in tools], sid
            assert [c["name"] for c in ep["tool_calls"]] == [t[1] for t in tools], sid
            assert [c["arguments"] for c in ep["tool_calls"]] == [t[2] for t in tools], sid
            assert [t[0] for t in tools if t[3]] == [x["call_id"] for x in ep["truncations"]]
            for x in ep["truncations"]:
                assert [x["raw_bytes"], x["kept_bytes"]] in [t[3] for t in tools]
            assert [c.get("error", {}).get("message") for c in ep["tool_calls"]] == [t[4] for t in tools]
            assert (ep["scores"] or {}) == scores, (sid, scores)
            assert (err is None) == (ep["error"] is None), sid
            if ep["error"]:
                assert ep["error"]["type"] in err and ep["error"]["message"] in err
        print(f"{path}: {len(got)} episodes ok")
    assert got_by_file["eval"] == got_by_file["converted.json"], "eval vs converted"
    assert got_by_file["eval"] == got_by_file["json"], "eval vs json run"
    print(f"{task}: .eval, .json and converted .json give the same evidence")


if __name__ == "__main__":
    os.chdir(sys.argv[1] if len(sys.argv) > 1 else ".")
    check("tracekit_corpus")
    check("tracekit_corpus_epochs")
