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


def wordy_eval(samples: int = 63, text_bytes: int = 16 * 1024 * 1024 - 64 * 1024) -> bytes:
    """``samples`` samples of one user message of about ``text_bytes`` of random words and a
    short answer: near the reader's byte bounds (each member under 16 MiB decompressed, 63 of
    them about 1 GiB, about 460 MB stored, each member about 2.2x compressed), so every text is a
    distinct large blob. Deterministic: the words come from a seeded generator, and each
    sample's text is the same 1 MiB of words rotated by its number."""
    import random

    rnd = random.Random(29)
    pool = " ".join(f"w{rnd.randrange(10**5)}" for _ in range(180_000)).encode()[: 1024 * 1024]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(_member("header.json"), json.dumps(HEADER))
        for number in range(samples):
            turn = number * 4099 % len(pool)
            block = (pool[turn:] + b" " + pool[:turn]).decode()
            text = f"sample {number} " + (block * (text_bytes // len(block) + 1))[:text_bytes]
            messages = [{"role": "user", "content": text}, {"role": "assistant", "content": "ok"}]
            sample = json.dumps({"id": number, "epoch": 1, "messages": messages})
            archive.writestr(_member(f"samples/{number}_epoch_1.json"), sample, compresslevel=1)
    return out.getvalue()
