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


STAMP = (2026, 1, 1, 0, 0, 0)
"""Every member's date: the same archive, byte for byte, from every run."""


def _member(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=STAMP)
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def chatty_eval(samples: int, messages: int, distinct: bool = False) -> bytes:
    """``samples`` deflated members of ``messages`` one-word messages each (user and assistant
    in turn, no events: each assistant message is a model turn). Each member stays under the
    compression ratio, so only the whole-file item bound stops a larger one. With ``distinct``
    every message names its sample, so no two episodes are alike (work done once per distinct
    episode is done for each)."""
    out = io.BytesIO()
    roles = ("user", "assistant")
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(_member("header.json"), json.dumps(HEADER))
        for number in range(samples):
            body = [{"role": roles[i % 2], "content": f"s{number}m{i}" if distinct else f"m{i % 7}"}
                    for i in range(messages)]
            sample = json.dumps({"id": number, "epoch": 1, "messages": body})
            archive.writestr(_member(f"samples/{number}_epoch_1.json"), sample)
    return out.getvalue()
