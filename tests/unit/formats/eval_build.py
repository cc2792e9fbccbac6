"""Inspect ``.eval`` archives built in memory for the bound tests: many short messages in few
bytes (deflated members, which the reader accepts beside zstd), and crafted zips whose local
headers disagree with their central directory."""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib

HEADER = {
    "version": 2,
    "status": "success",
    "eval": {"task": "bounds", "model": "mockllm/model", "packages": {"inspect_ai": "0.3.0"}},
}


def chatty_sample(number: int, messages: int) -> bytes:
    """A sample of ``messages`` one-word messages (alternating user and assistant), no events:
    every assistant message is a model turn (docs/formats.md, "Inspect AI", step S5)."""
    roles = ("user", "assistant")
    body = [{"role": roles[i % 2], "content": f"m{i % 7}"} for i in range(messages)]
    return json.dumps({"id": number, "epoch": 1, "messages": body}).encode()


def chatty_eval(samples: int, messages: int) -> bytes:
    """A deflated ``.eval`` of ``samples`` samples of ``messages`` short messages each."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps(HEADER))
        for number in range(samples):
            archive.writestr(f"samples/{number}_epoch_1.json", chatty_sample(number, messages))
    return out.getvalue()


def stored_zip(members: list[tuple[str, bytes]], local_names: dict[str, str] | None = None,
               local_sizes: dict[str, int] | None = None) -> bytes:
    """A stored (method 0) zip, without data descriptors; ``local_names`` / ``local_sizes``
    put a different name or declared size in a member's local header than in the directory."""
    out, directory = bytearray(), bytearray()
    for name, data in members:
        crc = zlib.crc32(data)
        local_name = (local_names or {}).get(name, name).encode()
        local_size = (local_sizes or {}).get(name, len(data))
        offset = len(out)
        out += struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 20, 0, 0, 0, 0x21, crc,
                           local_size, local_size, len(local_name), 0) + local_name + data
        raw = name.encode()
        directory += struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 20, 20, 0, 0, 0, 0x21,
                                 crc, len(data), len(data), len(raw), 0, 0, 0, 0, 0, offset) + raw
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(members), len(members),
                      len(directory), len(out), 0)
    return bytes(out + directory + end)


def header_bytes() -> bytes:
    return json.dumps(HEADER).encode()
