"""Hostile AgentGuard traces: one per attack, each carrying a canary that must never be echoed.

Every command that reads an AgentGuard trace (verify, show, replayability, replay, metamorphic,
audit) must exit 2 on each of these, print no traceback and never print the canary
(tests/test_hostile.py). The upstream hostile classes come first (invalid UTF-8, malformed JSON,
deep JSON, wrong shape; POSIX absolute, drive-letter, UNC and ``../`` paths), then ours.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from gen import base
from gen.case import Case
from tracekit.formats.agentguard.writer import DraftTrace, write_trace
from tracekit.kernel.canonical import agentguard_bytes

CANARY = "zqxhostilecanary5521qxz"
FOLDER = "hostile/agentguard"
COMMANDS = ("verify", "show", "replayability", "replay", "metamorphic", "audit")


def _expect(code: str) -> dict[str, Any]:
    out: dict[str, Any] = {command: {"exit": 2} for command in COMMANDS}
    out["verify"] = {"exit": 2, "code": code}
    out["canary"] = CANARY
    return out


def _clean() -> DraftTrace:
    return base.clean_trace(2, "hostile")


CLEAN = write_trace(_clean())


def _rechained(edit: Callable[[DraftTrace], None]) -> bytes:
    draft = _clean()
    edit(draft)
    return write_trace(draft)


def _file_path(path: str) -> Callable[[DraftTrace], None]:
    def edit(d: DraftTrace) -> None:
        change = next(e for e in d.events if e.event_type == "file_change")
        change.payload["path"] = path
        d.events[-1].payload["modified_files"]["paths"][0] = path

    return edit


def _line_edit(index: int, edit: Callable[[dict[str, Any]], None]) -> bytes:
    lines = CLEAN.split(b"\n")[:-1]
    value = json.loads(lines[index])
    edit(value)
    lines[index] = agentguard_bytes(value)
    return b"\n".join(lines) + b"\n"


def cases() -> Iterator[Case]:
    c = CANARY.encode()
    upstream = {
        "invalid_utf8": (CLEAN.replace(b'"cat"', b'"' + c + b'\xff\xfe"', 1), "load.invalid_utf8"),
        "malformed_json": (CLEAN.replace(b'"argv":[', b'"argv":[' + c + b",", 1), "json.invalid"),
        "deep_json": (CLEAN.replace(b'"argv":[', b'"argv":[' + b"[" * 5000 + b'"' + c + b'"' + b"]" * 5000 + b",", 1),
                      "json.too_deep"),
        "wrong_shape_event": (CLEAN.split(b"\n")[0] + b'\n["' + c + b'"]\n', "json.not_an_object"),
        "wrong_shape_payload": (_rechained(lambda d: d.events[1].payload.update(argv={CANARY: CANARY})),
                                "schema.wrong_type"),
        "path_posix_absolute": (_rechained(_file_path("/etc/" + CANARY)), "path.absolute"),
        "path_drive_letter": (_rechained(_file_path("C:/" + CANARY)), "path.drive_letter"),
        "path_unc": (_rechained(_file_path("//" + CANARY + "/share/x")), "path.unc"),
        "path_parent": (_rechained(_file_path("../" + CANARY)), "path.parent_reference"),
    }
    for name, (data, code) in upstream.items():
        yield Case(FOLDER, f"upstream__{name}.jsonl", data, _expect(code),
                   f"Upstream's hostile class {name.replace('_', ' ')}, with a canary.")
    ours = {
        "duplicate_key": (CLEAN.replace(b'{"agent":"reference-agent",',
                                        b'{"agent":"' + c + b'","agent":"reference-agent",', 1),
                          "json.duplicate_key"),
        "lone_surrogate": (CLEAN.replace(b'"agent":"reference-agent"', b'"agent":"' + c + b'\\udc00"', 1),
                           "json.lone_surrogate"),
        "nan": (CLEAN.replace(b'"duration_seconds":0.25', b'"duration_seconds":NaN,"' + c + b'":1', 1),
                "json.non_finite_number"),
        "huge_integer": (_rechained(lambda d: d.events[4].payload.update(lines_added=10**4000)),
                         "schema.invalid_value"),
        "bom": (b"\xef\xbb\xbf" + CLEAN.replace(b'"cat"', b'"' + c + b'"', 1), "load.bom"),
        "nul_byte_in_json": (CLEAN.replace(b'"cat"', b'"' + c + b'"\x00', 1), "json.invalid"),
        "nul_in_path": (_rechained(_file_path("src/" + CANARY + "\x00.py")), "path.control_character"),
        "control_chars_in_path": (_rechained(_file_path("src/\x1b[2J" + CANARY)), "path.control_character"),
        "unknown_key_canary": (_rechained(lambda d: d.events[1].payload.update({CANARY: 1})),
                               "schema.unknown_field"),
        "oversized_string_canary": (_rechained(lambda d: d.events[1].payload.update(command=CANARY * 300)),
                                    "json.string_too_long"),
        "enum_value_canary": (_rechained(lambda d: d.events[-2].payload.update(severity=CANARY)),
                              "schema.invalid_value"),
        "event_type_canary": (_line_edit(2, lambda v: v.update(event_type=CANARY)), "schema.unknown_event_type"),
        "source_path_canary": (_rechained(lambda d: d.header.update(source_artifacts=[
            {"path": "../" + CANARY, "required": True, "role": "report", "sha256": "0" * 64}])),
            "path.parent_reference"),
        "header_key_canary": (_line_edit(0, lambda v: v.update({CANARY: CANARY})), "schema.unknown_field"),
    }
    for name, (data, code) in ours.items():
        yield Case(FOLDER, f"ours__{name}.jsonl", data, _expect(code),
                   f"A hostile {name.replace('_', ' ')} carrying a canary.")
    role = _rechained(lambda d: d.header.update(source_artifacts=[
        {"path": "reports/report.json", "required": True, "role": CANARY, "sha256": "0" * 64}]))
    expected: dict[str, Any] = {command: {"exit": [0, 1]} for command in COMMANDS}
    expected["metamorphic"] = {"exit": 0}  # intact and replayable: swept, relations hold
    expected["verify"] = {"exit": 1, "code": "source.required_unavailable"}
    expected["canary"] = CANARY
    yield Case(FOLDER, "ours__source_role_canary.jsonl", role, expected,
               "A well-formed but unknown source role holding a canary: the trace is intact, the "
               "required source is missing (exit 1), and the role is reported as 'other', never echoed.")
