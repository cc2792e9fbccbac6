"""Inspect ``.eval`` inputs at the archive reader's and the sealer's limits, for the worst-case
table (bench/worst_case.py): many one-word messages in few compressed bytes, the input whose
evidence costs most per byte stored (docs/formats.md, "Bounds")."""

from __future__ import annotations

import io
import json
import zipfile

HEADER = {
    "version": 2,
    "status": "success",
    "eval": {"task": "worst", "model": "mockllm/model", "packages": {"inspect_ai": "0.3.0"}},
}


def chatty_eval(samples: int, messages: int) -> bytes:
    """``samples`` deflated members of ``messages`` one-word messages each (user and assistant
    in turn, no events: each assistant message is a model turn). Each member stays under the
    compression ratio, so only the whole-file item bound stops a larger one."""
    out = io.BytesIO()
    roles = ("user", "assistant")
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps(HEADER))
        for number in range(samples):
            body = [{"role": roles[i % 2], "content": f"m{i % 7}"} for i in range(messages)]
            archive.writestr(f"samples/{number}_epoch_1.json", json.dumps({"id": number, "epoch": 1, "messages": body}))
    return out.getvalue()
