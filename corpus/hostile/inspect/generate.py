#!/usr/bin/env python3
"""Hostile Inspect AI logs, generated deterministically (docs/formats.md, "Inspect AI").

Each case is a `.eval` archive (zstd members, zip method 93, written by the small zip writer
below because Python's zipfile cannot write zstd) or a `.json` log, built around one small
synthetic sample, with the code tracekit must give in expected.json. Every case carries the
canary in the places an importer could echo (member names, keys, values); none may reach a
diagnostic.

Usage: generate.py [--check]   (--check: exit 1 if a committed file differs from what is built)
"""

from __future__ import annotations

import json
import struct
import sys
import zlib
from pathlib import Path

import zstandard

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from written import write_or_check

CANARY = "CANARY-inspect-7Xq-do-not-echo"
MiB = 1024 * 1024


def sample(**extra: object) -> dict[str, object]:
    base: dict[str, object] = {
        "id": "s1",
        "epoch": 1,
        "input": "Read the file.",
        "target": "",
        "messages": [
            {"id": "m1", "role": "user", "content": "Read the file.", "source": "input"},
            {
                "id": "m2",
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": "call_1", "function": "read_file", "arguments": {"path": "a.txt"}}
                ],
            },
            {"id": "m3", "role": "tool", "tool_call_id": "call_1", "content": "attachment://a1"},
        ],
        "events": [
            {
                "event": "model",
                "model": "mockllm/model",
                "input": [{"id": "m1", "role": "user", "content": "Read the file."}],
                "tools": [],
                "config": {},
                "output": {
                    "choices": [
                        {"message": {"role": "assistant", "content": "", "tool_calls": [
                            {"id": "call_1", "function": "read_file", "arguments": {"path": "a.txt"}}
                        ]}, "stop_reason": "tool_calls"}
                    ]
                },
            },
            {"event": "tool", "id": "call_1", "function": "read_file", "result": "attachment://a1"},
        ],
        "scores": {"match": {"value": "C"}},
        "attachments": {"a1": "file contents"},
    }
    base.update(extra)
    return base


HEADER: dict[str, object] = {
    "version": 2,
    "status": "success",
    "eval": {"task": "hostile", "model": "mockllm/model", "packages": {"inspect_ai": "0.3.0"}},
}


def dumps(value: object) -> bytes:
    """Keys in insertion order, as Inspect writes them (``version`` first)."""
    return json.dumps(value).encode()


def zip_archive(
    members: list[tuple[str, bytes]], method: int = 93, lie: dict[str, int] | None = None,
    local: dict[str, str] | None = None,
) -> bytes:
    """A zip with fixed timestamps; ``lie`` replaces the declared size of the members it names,
    ``local`` the name in their local header only (the central directory keeps the real one)."""
    out, directory = bytearray(), bytearray()
    for name, data in members:
        packed = zstandard.ZstdCompressor(level=3).compress(data) if method == 93 else data
        crc = zlib.crc32(data)
        size = (lie or {}).get(name, len(data))
        raw_name = name.encode()
        offset = len(out)
        local_name = (local or {}).get(name, name).encode()
        out += struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 63, 0, method, 0, 0x21, crc,
                           len(packed), size, len(local_name), 0) + local_name + packed
        directory += struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 63, 63, 0, method, 0,
                                 0x21, crc, len(packed), size, len(raw_name), 0, 0, 0, 0, 0,
                                 offset) + raw_name
    end = struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, len(members), len(members),
                      len(directory), len(out), 0)
    return bytes(out + directory + end)


def eval_log(samples: list[tuple[str, bytes]], **kw: object) -> bytes:
    start = ("_journal/start.json", dumps({"version": 2, "eval": HEADER["eval"]}))
    return zip_archive([start, *samples, ("header.json", dumps(HEADER))], **kw)  # type: ignore[arg-type]


def later_version(archive: bytes) -> bytes:
    """``archive`` with its first central directory entry asking for zip version 6.4."""
    data = bytearray(archive)
    entry = data.index(b"PK\x01\x02")
    data[entry + 6 : entry + 8] = (64).to_bytes(2, "little")
    return bytes(data)


def deep(levels: int) -> object:
    value: object = CANARY
    for _ in range(levels):
        value = [value]
    return value


def json_log(*samples: dict[str, object]) -> bytes:
    return dumps({**HEADER, "samples": list(samples)})


def cases() -> dict[str, tuple[bytes, str, str]]:
    """name -> (bytes, expected code, what it is)."""
    ok = dumps(sample())
    zeros = b"{\"pad\": \"" + b"0" * (8 * MiB) + b"\"}"
    big = b"{\"pad\": \"" + b"A" * (17 * MiB) + b"\"}"
    return {
        "control__valid.eval": (eval_log([("samples/s1_epoch_1.json", ok)]), "", "a valid .eval"),
        "control__valid.json": (json_log(sample()), "", "the same log as .json"),
        "zip__bomb.eval": (
            eval_log([("samples/s1_epoch_1.json", zeros)]),
            "inspect.zip_bomb",
            "8 MiB of one byte in a member of a few hundred bytes",
        ),
        "zip__member_too_large.eval": (
            eval_log([("samples/s1_epoch_1.json", big)]),
            "inspect.member_too_large",
            "a member declaring 17 MiB",
        ),
        "zip__size_lie.eval": (
            eval_log([("samples/s1_epoch_1.json", zeros)], lie={"samples/s1_epoch_1.json": 100}),
            "inspect.bad_archive",
            "a member declaring 100 bytes that expands to 8 MiB",
        ),
        "zip__traversal_name.eval": (
            eval_log([("samples/s1_epoch_1.json", ok), (f"../../{CANARY}.json", ok)]),
            "inspect.unsafe_member_name",
            "a member named with '..'",
        ),
        "zip__absolute_name.eval": (
            eval_log([(f"/tmp/{CANARY}.json", ok)]),
            "inspect.unsafe_member_name",
            "an absolute member name",
        ),
        "zip__backslash_name.eval": (
            eval_log([(f"samples\\{CANARY}.json", ok)]),
            "inspect.unsafe_member_name",
            "a member name with a backslash",
        ),
        "zip__unsupported_method.eval": (
            eval_log([("samples/s1_epoch_1.json", ok)], method=14),
            "inspect.unsupported_compression",
            "members compressed with a method we do not read (LZMA id)",
        ),
        "zip__local_name_mismatch.eval": (
            eval_log([("samples/s1_epoch_1.json", ok)],
                     local={"samples/s1_epoch_1.json": f"samples/{CANARY}.json"}),
            "inspect.local_header_mismatch",
            "a member whose local header names another file than the central directory",
        ),
        "zip__later_version.eval": (
            later_version(eval_log([("samples/s1_epoch_1.json", ok)])),
            "inspect.bad_archive",
            "a member needing a later zip version (6.4) than any reader here supports",
        ),
        "zip__cut_archive.eval": (
            eval_log([("samples/s1_epoch_1.json", ok)])[:-40],
            "inspect.bad_archive",
            "an archive cut before its directory ends",
        ),
        "json__deep.eval": (
            eval_log([("samples/s1_epoch_1.json", dumps(sample(metadata={CANARY: deep(200)})))]),
            "inspect.too_deep",
            "200 nested lists inside a sample",
        ),
        "json__deep.json": (
            json_log(sample(metadata={CANARY: deep(200)})),
            "inspect.too_deep",
            "200 nested lists inside a sample",
        ),
        "json__huge_attachment.eval": (
            eval_log([("samples/s1_epoch_1.json", dumps(sample(
                attachments={"a1": CANARY * (17 * MiB // len(CANARY) + 1)})))]),
            "inspect.member_too_large",
            "an attachment larger than the document limit",
        ),
        "json__dangling_attachment.json": (
            json_log(sample(attachments={CANARY: CANARY})),
            "inspect.dangling_reference",
            "a message refers to an attachment that is not there",
        ),
        "json__dangling_pool.eval": (
            eval_log([("samples/s1_epoch_1.json", dumps(sample(
                events=[{"event": "model", "input": [], "input_refs": [[0, 99]],
                         "output": {"choices": []}}],
                events_data={"messages": [{"id": "m1", "role": "user", "content": CANARY}],
                             "calls": []},
            )))]),
            "inspect.dangling_reference",
            "input_refs reaching past the message pool",
        ),
        "json__attachment_amplification.json": (
            json_log(sample(
                attachments={"a1": "x" * (64 * 1024)},
                events=[{"event": "model", "input": [], "output": {"choices": []},
                         "call": {"request": {CANARY: ["attachment://a1"] * 300},
                                  "response": {}}}],
            )),
            "inspect.member_too_large",
            "300 references to a 64 KiB attachment in one raw request (19 MiB resolved)",
        ),
        "json__duplicate_key.json": (
            json_log(sample()).replace(
                b'"scores": {"match": {"value": "C"}}',
                b'"scores": {"%s": {"value": "C"}, "%s": {"value": "I"}}'
                % (CANARY.encode(), CANARY.encode()),
            ),
            "inspect.duplicate_key",
            "a scorer named twice: a reader could be shown either verdict",
        ),
        "json__events_not_list.json": (
            json_log(sample(events={CANARY: CANARY})),
            "inspect.schema",
            "sample.events is an object",
        ),
        "json__truncated_wrong_type.json": (
            json_log(sample(events=[sample()["events"][0],  # type: ignore[index]
                                    {"event": "tool", "id": "call_1", "result": "x",
                                     "truncated": [CANARY, 1]}])),
            "inspect.schema",
            "ToolEvent.truncated holds a string",
        ),
        "json__version_string.json": (
            dumps({**HEADER, "version": CANARY, "samples": []}),
            "inspect.schema",
            "version is a string",
        ),
        "json__not_utf8.json": (
            json_log(sample(input="x")).replace(b'"input": "x"', b'"input": "\xff\xfe' + CANARY.encode() + b'"'),
            "inspect.not_utf8",
            "bytes that are not UTF-8 inside a string",
        ),
    }


def expected() -> dict[str, object]:
    return {
        "canary": CANARY,
        "cases": {
            name: {"about": about, "code": code or None, "exit": 2 if code else 0}
            for name, (_, code, about) in cases().items()
        },
    }


def main(argv: list[str]) -> int:
    files = {name: data for name, (data, _, _) in cases().items()}
    return write_or_check(HERE, files, expected(), argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
