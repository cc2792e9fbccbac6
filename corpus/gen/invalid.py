"""One invalid trace per failure mode, named after the attack, with the code verify must give.

Most cases are re-chained consistently with the writer so that exactly the rule under test
fails; tampering cases edit the bytes of a valid trace without re-hashing, as an attacker would.
Limits whose cases would be megabytes (total size, event count, line length) are generated at
test time in tests/unit/test_loader.py instead of being committed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from gen import base
from gen.case import Case
from tracekit.formats.agentguard.writer import DraftEvent, DraftTrace, write_trace
from tracekit.kernel.canonical import agentguard_bytes


def _expect(code: str, exit_code: int = 2) -> dict[str, Any]:
    return {"verify": {"exit": exit_code, "code": code}}


def _clean(version: int = 2) -> DraftTrace:
    return base.clean_trace(version, "target")


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")[:-1]


def _join(lines: list[bytes]) -> bytes:
    return b"\n".join(lines) + b"\n"


def _edit_line(data: bytes, index: int, edit: Callable[[dict[str, Any]], None]) -> bytes:
    """Edit one parsed line and write it back canonically, without re-hashing anything."""
    lines = _lines(data)
    value = json.loads(lines[index])
    edit(value)
    lines[index] = agentguard_bytes(value)
    return _join(lines)


def _payload(draft: DraftTrace, event_type: str, occurrence: int = 0) -> dict[str, Any]:
    return [e for e in draft.events if e.event_type == event_type][occurrence].payload


def _rechained(edit: Callable[[DraftTrace], None], version: int = 2) -> bytes:
    draft = _clean(version)
    edit(draft)
    return write_trace(draft)


CLEAN = write_trace(_clean())


def _tampering() -> Iterator[Case]:
    def flip_exit(v: dict[str, Any]) -> None:
        v["payload"]["exit_code"] = 1

    yield Case("invalid", "chain__tampered_payload.jsonl", _edit_line(CLEAN, 2, flip_exit),
               _expect("chain.event_hash_mismatch"), "An agent_command's exit code edited in place.")

    def rename_agent(v: dict[str, Any]) -> None:
        v["agent_name"] = "someone-else"

    yield Case("invalid", "chain__tampered_header_identity.jsonl", _edit_line(CLEAN, 0, rename_agent),
               _expect("chain.root_hash_mismatch"), "The header's agent_name edited in place.")

    lines = _lines(CLEAN)
    swapped = lines[:2] + [lines[3], lines[2]] + lines[4:]
    yield Case("invalid", "chain__swapped_events.jsonl", _join(swapped),
               _expect("structure.sequence_gap"), "Two agent_command lines swapped.")
    yield Case("invalid", "chain__deleted_event.jsonl", _join(lines[:3] + lines[4:]),
               _expect("structure.sequence_gap"), "An agent_command line deleted.")
    yield Case("invalid", "chain__duplicated_event.jsonl", _join(lines[:3] + [lines[2]] + lines[3:]),
               _expect("structure.sequence_duplicate"), "An agent_command line repeated.")
    yield Case("invalid", "chain__inserted_event.jsonl", _inserted(),
               _expect("chain.broken"),
               "A forged event inserted with its own valid hash; later events renumbered but not re-hashed.")
    yield Case("invalid", "chain__resequenced_without_rehash.jsonl",
               _edit_line(CLEAN, 3, lambda v: v.update(sequence=7)),
               _expect("structure.sequence_gap"), "A sequence number edited in place.")

    def new_trace_id(v: dict[str, Any]) -> None:
        v["trace_id"] = "f" * 64

    yield Case("invalid", "chain__trace_id_mismatch.jsonl", _edit_line(CLEAN, 0, new_trace_id),
               _expect("chain.trace_id_mismatch"), "trace_id no longer equals the root hash.")

    def new_final(v: dict[str, Any]) -> None:
        v["integrity"]["final_event_hash"] = "e" * 64

    yield Case("invalid", "chain__final_hash_mismatch.jsonl", _edit_line(CLEAN, 0, new_final),
               _expect("chain.final_event_hash_mismatch"), "integrity.final_event_hash edited.")

    def loosen_policy(v: dict[str, Any]) -> None:
        v["policy_snapshot"]["forbidden_paths"] = []

    yield Case("invalid", "chain__policy_snapshot_edited.jsonl", _edit_line(CLEAN, 0, loosen_policy),
               _expect("chain.policy_snapshot_hash_mismatch"),
               "The policy snapshot loosened without updating its hash.")
    yield Case("invalid", "chain__event_count_mismatch.jsonl",
               _rechained_count(), _expect("structure.event_count_mismatch"),
               "Header event_count disagrees with the file (re-hashed consistently).")


def _inserted() -> bytes:
    lines = _lines(CLEAN)
    original = json.loads(lines[2])
    forged_draft = _clean()
    forged_draft.events.insert(2, base.command(["curl", "https://example.invalid/x"]))
    forged = _lines(write_trace(forged_draft))[3]
    rest = []
    for line in lines[3:]:
        value = json.loads(line)
        value["sequence"] += 1
        rest.append(agentguard_bytes(value))
    assert original["sequence"] == 2
    return _join(lines[:3] + [forged] + rest)


def _rechained_count() -> bytes:
    draft = _clean()
    draft.header["event_count"] = len(draft.events) + 1
    return write_trace(draft, keep_event_count=True)


def _truncation() -> Iterator[Case]:
    yield Case("invalid", "load__truncated_mid_line.jsonl", CLEAN[: len(CLEAN) - 40],
               _expect("load.missing_final_newline"), "The file cut inside the last line.")
    yield Case("invalid", "load__truncated_at_line_boundary.jsonl", _join(_lines(CLEAN)[:-2]),
               _expect("structure.event_count_mismatch"), "The last two lines removed.")
    yield Case("invalid", "load__missing_final_newline.jsonl", CLEAN[:-1],
               _expect("load.missing_final_newline"), "No newline after the last record.")
    yield Case("invalid", "load__bom.jsonl", b"\xef\xbb\xbf" + CLEAN, _expect("load.bom"),
               "A UTF-8 byte order mark before the header.")
    yield Case("invalid", "load__invalid_utf8.jsonl", CLEAN.replace(b'"cat"', b'"c\xffat"', 1),
               _expect("load.invalid_utf8"), "A raw 0xFF byte inside an argv string.")
    yield Case("invalid", "load__empty_line.jsonl", CLEAN.replace(b"\n", b"\n\n", 1),
               _expect("load.empty_line"), "A blank line between header and events.")
    yield Case("invalid", "load__header_only.jsonl", _join(_lines(CLEAN)[:1]),
               _expect("load.no_events"), "A header and no events.")
    yield Case("invalid", "load__empty_file.jsonl", b"", _expect("load.no_events"), "Zero bytes.")
    yield Case("invalid", "json__malformed.jsonl", CLEAN.replace(b'"argv":[', b'"argv":[[', 1),
               _expect("json.invalid"), "Unbalanced brackets inside an event.")
    yield Case("invalid", "json__not_an_object.jsonl", _join(_lines(CLEAN)[:1] + [b"[1,2,3]"]),
               _expect("json.not_an_object"), "An event line that is a JSON array.")


def _limits() -> Iterator[Case]:
    deep = b"[" * 100 + b"]" * 100
    yield Case("invalid", "limit__depth_bomb.jsonl",
               CLEAN.replace(b'"argv":["cat"', b'"argv":[' + deep + b',"cat"', 1),
               _expect("json.too_deep"), "100 nested lists inside argv.")

    def long_string(d: DraftTrace) -> None:
        _payload(d, "agent_command")["command"] = "x" * 4097

    yield Case("invalid", "limit__string_too_long.jsonl", _rechained(long_string),
               _expect("json.string_too_long"), "A 4097-character command string.")

    def long_list(d: DraftTrace) -> None:
        _payload(d, "execution_completed")["failed_checks"] = ["x"] * 4097

    yield Case("invalid", "limit__list_too_long.jsonl", _rechained(long_list),
               _expect("json.list_too_long"), "A list of 4097 items.")

    def long_key(d: DraftTrace) -> None:
        d.header["policy_snapshot"]["severities"]["k" * 4097] = "error"

    yield Case("invalid", "limit__key_too_long.jsonl", _rechained(long_key),
               _expect("json.key_too_long"), "An object key of 4097 characters.")

    def many_values(d: DraftTrace) -> None:
        d.events[1].payload["argv"] = [[0] * 4000 for _ in range(26)]

    yield Case("invalid", "limit__too_many_values.jsonl", _rechained(many_values),
               _expect("json.too_many_values"), "An event holding over 100,000 JSON values.")


def _strictness() -> Iterator[Case]:
    def seq_bool(d: DraftTrace) -> None:
        d.events[0].sequence = True  # type: ignore[assignment]

    yield Case("invalid", "strict__bool_as_sequence.jsonl", _rechained(seq_bool),
               _expect("schema.wrong_type"), "sequence: true (Python reads it as 1).")

    yield Case("invalid", "strict__bool_as_schema_version.jsonl",
               _rechained(lambda d: d.header.update(schema_version=True)),
               _expect("schema.wrong_type"), "schema_version: true (upstream accepts it as v1).")
    yield Case("invalid", "strict__float_as_schema_version.jsonl",
               _rechained(lambda d: d.header.update(schema_version=2.0)),
               _expect("schema.wrong_type"), "schema_version: 2.0 (upstream accepts it as v2).")

    def float_exit(d: DraftTrace) -> None:
        _payload(d, "test_result")["exit_code"] = 0.0

    yield Case("invalid", "strict__float_as_exit_code.jsonl", _rechained(float_exit),
               _expect("schema.wrong_type"), "exit_code: 0.0.")

    def bool_lines(d: DraftTrace) -> None:
        _payload(d, "file_change")["lines_added"] = True

    yield Case("invalid", "strict__bool_as_line_count.jsonl", _rechained(bool_lines),
               _expect("schema.wrong_type"), "lines_added: true.")

    def huge_int(d: DraftTrace) -> None:
        _payload(d, "file_change")["lines_added"] = 10**30

    yield Case("invalid", "strict__huge_integer.jsonl", _rechained(huge_int),
               _expect("schema.invalid_value"), "lines_added: 10**30.")
    nan = CLEAN.replace(b'"duration_seconds":0.25', b'"duration_seconds":NaN', 1)
    yield Case("invalid", "strict__nan_duration.jsonl", nan, _expect("json.non_finite_number"),
               "duration_seconds: NaN (passes upstream's < 0 check).")
    inf = CLEAN.replace(b'"duration_seconds":0.25', b'"duration_seconds":1e999', 1)
    yield Case("invalid", "strict__overflowing_number.jsonl", inf,
               _expect("json.non_finite_number"), "1e999 parses to infinity in Python.")
    dup = CLEAN.replace(b'{"agent":"reference-agent",', b'{"agent":"x","agent":"reference-agent",', 1)
    yield Case("invalid", "strict__duplicate_key.jsonl", dup, _expect("json.duplicate_key"),
               "A repeated key: Python keeps the last value silently.")
    sur = CLEAN.replace(b'"agent":"reference-agent"', b'"agent":"\\ud800"', 1)
    yield Case("invalid", "strict__lone_surrogate.jsonl", sur, _expect("json.lone_surrogate"),
               "A string holding a lone surrogate escape.")
    yield Case("invalid", "strict__digest_with_trailing_newline.jsonl",
               _rechained(lambda d: d.header.update(configuration_hash="c" * 64 + "\n")),
               _expect("schema.invalid_value"),
               "A hex digest followed by a newline ('$' in a regex would accept it).")
    yield Case("invalid", "strict__negative_zero_duration.jsonl",
               _rechained(lambda d: _payload(d, "test_result").update(duration_seconds=-0.0)),
               _expect("schema.invalid_value"), "duration_seconds: -0.0.")

    def neg_offset(d: DraftTrace) -> None:
        d.events[2].relative_offset_seconds = -1.0

    yield Case("invalid", "strict__negative_offset.jsonl", _rechained(neg_offset),
               _expect("schema.invalid_value"), "relative_offset_seconds: -1.0.")
    yield from _schema_cases()


def _schema_cases() -> Iterator[Case]:
    yield Case("invalid", "schema__unknown_header_field.jsonl",
               _rechained(lambda d: d.header.update(operator_note="trust me")),
               _expect("schema.unknown_field"), "An extra header key.")
    yield Case("invalid", "schema__unknown_payload_field.jsonl",
               _rechained(lambda d: _payload(d, "test_result").update(raw_stdout="...")),
               _expect("schema.unknown_field"), "Raw output smuggled into a test_result.")
    yield Case("invalid", "schema__missing_payload_field.jsonl",
               _rechained(lambda d: _payload(d, "check_result").pop("severity")),
               _expect("schema.missing_field"), "A check_result without severity.")
    yield Case("invalid", "schema__wrong_record_type.jsonl",
               _edit_line(CLEAN, 2, lambda v: v.update(record_type="header")),
               _expect("schema.wrong_record_type"), "An event line claiming to be a header.")
    yield Case("invalid", "schema__v1_with_policy_snapshot.jsonl",
               _rechained(lambda d: d.header.update(schema_version=1)),
               _expect("schema.policy_snapshot_forbidden"), "A v1 header carrying a snapshot.")
    yield Case("invalid", "schema__v2_without_policy_snapshot.jsonl",
               _rechained(lambda d: d.header.pop("policy_snapshot")),
               _expect("schema.policy_snapshot_required"), "A v2 header with no snapshot.")
    yield Case("invalid", "schema__unsupported_version.jsonl",
               _rechained(lambda d: d.header.update(schema_version=4)),
               _expect("schema.unsupported_version"), "schema_version 4.")
    yield Case("invalid", "schema__unsupported_format.jsonl",
               _rechained(lambda d: d.header.update(schema="agentguard.other-trace")),
               _expect("schema.unsupported_format"), "Another schema identifier.")
    yield Case("invalid", "schema__unsupported_hash_algorithm.jsonl",
               _edit_line(CLEAN, 0, lambda v: v["integrity"].update(hash_algorithm="md5")),
               _expect("schema.unsupported_hash_algorithm"), "integrity.hash_algorithm md5.")
    yield Case("invalid", "schema__unknown_event_type.jsonl",
               _rechained(lambda d: d.events.insert(1, DraftEvent("shell_output", {"text": "x"}))),
               _expect("schema.unknown_event_type"), "An event type no version defines.")
    yield Case("invalid", "schema__containment_in_v2.jsonl",
               _rechained(lambda d: d.events.insert(1, base.containment())),
               _expect("schema.event_not_in_version"), "containment_evidence in a v2 trace.")
    yield Case("invalid", "schema__truncation_not_an_object.jsonl",
               _rechained(lambda d: _payload(d, "check_result").update(truncation=[])),
               _expect("schema.wrong_type"), "truncation: [] (crashes upstream's show).")
    yield Case("invalid", "schema__empty_preflight.jsonl",
               _rechained(lambda d: _payload(d, "agent_command").update(preflight={})),
               _expect("schema.missing_field"), "preflight: {} (crashes upstream's replay).")
    yield Case("invalid", "schema__diff_without_flag.jsonl",
               _rechained(lambda d: _payload(d, "file_change").update(unified_diff="x", diff_truncated=False)),
               _expect("schema.incomplete_group"), "A unified_diff while diff_included is false.")
    yield Case("invalid", "schema__partial_scan_group.jsonl", _partial_guard(),
               _expect("schema.incomplete_group"), "A guard_summary with half the scan group.")


def _partial_guard() -> bytes:
    draft = _clean()
    draft.events.insert(3, DraftEvent("guard_summary", {
        "files_observed": 1, "kill_required": False, "mode": "monitor",
        "monitor_duration_seconds": 1.0, "scan_count": 1, "terminated_agent": False,
        "triggered": False, "violations": [], "scan_complete": True,
    }))
    return write_trace(draft)


def _structure() -> Iterator[Case]:
    def containment_late(d: DraftTrace) -> None:
        d.events.insert(3, base.containment())

    yield Case("invalid", "structure__containment_not_second.jsonl",
               _rechained(containment_late, version=3),
               _expect("structure.containment_position"), "containment_evidence after commands.")

    def two_containments(d: DraftTrace) -> None:
        d.events[1:1] = [base.containment(), base.containment()]

    yield Case("invalid", "structure__two_containment_events.jsonl",
               _rechained(two_containments, version=3),
               _expect("structure.containment_position"), "Two containment_evidence events.")
    yield Case("invalid", "structure__two_completions.jsonl",
               _rechained(lambda d: d.events.append(d.events[-1])),
               _expect("structure.start_completion_order"), "An event after execution_completed.")
    yield Case("invalid", "structure__missing_test_result.jsonl",
               _rechained(lambda d: d.events.remove(next(e for e in d.events if e.event_type == "test_result"))),
               _expect("structure.event_multiplicity"), "No test_result event.")
    yield Case("invalid", "structure__two_test_results.jsonl",
               _rechained(lambda d: d.events.insert(6, base.test_result())),
               _expect("structure.event_multiplicity"), "Two test_result events.")
    yield Case("invalid", "structure__start_not_first.jsonl",
               _rechained(lambda d: d.events.insert(0, d.events.pop(1))),
               _expect("structure.start_completion_order"), "An agent_command before execution_started.")

    def file_before_command(d: DraftTrace) -> None:
        d.events.insert(1, d.events.pop(3))

    yield Case("invalid", "structure__file_change_before_command.jsonl", _rechained(file_before_command),
               _expect("structure.event_order"), "A file_change ranked before an agent_command.")
    yield Case("invalid", "structure__duplicate_file_change_path.jsonl",
               _rechained(lambda d: d.events.insert(4, base.file_change("src/widget.py"))),
               _expect("structure.duplicate_file_change_path"), "The same path changed twice.")


PATH_FORMS = {
    "absolute_posix": ("/etc/passwd", "path.absolute"),
    "drive_letter": ("C:/Windows/system.ini", "path.drive_letter"),
    "unc_forward": ("//server/share/x", "path.unc"),
    "unc_backslash": ("\\\\server\\share\\x", "path.unc"),
    "backslash": ("src\\widget.py", "path.backslash"),
    "parent_reference": ("../outside.py", "path.parent_reference"),
    "inner_parent_reference": ("src/../../outside.py", "path.parent_reference"),
    "dot_slash": ("./secrets/key.pem", "path.not_normalised"),
    "double_slash": ("src//widget.py", "path.not_normalised"),
    "trailing_slash": ("src/", "path.not_normalised"),
    "lone_dot": (".", "path.not_normalised"),
    "empty": ("", "path.empty"),
    "control_character": ("src/wid\x1bget.py", "path.control_character"),
    "nul_byte": ("src/widget.py\x00.txt", "path.control_character"),
}


def _paths() -> Iterator[Case]:
    for name, (path, code) in PATH_FORMS.items():
        def edit(d: DraftTrace, path: str = path) -> None:
            _payload(d, "file_change")["path"] = path
            _payload(d, "execution_completed")["modified_files"]["paths"][0] = path

        yield Case("invalid", f"path__{name}.jsonl", _rechained(edit), _expect(code),
                   f"A file_change path of the form {name.replace('_', ' ')}.")

    def source_escape(d: DraftTrace) -> None:
        d.header["source_artifacts"] = [
            {"path": "../../etc/passwd", "required": False, "role": "report", "sha256": "0" * 64}
        ]

    yield Case("invalid", "path__source_artifact_escape.jsonl", _rechained(source_escape),
               _expect("path.parent_reference"), "A source artifact path climbing out of the run.")


def _non_canonical() -> Iterator[Case]:
    notice = {"exit": 0, "code": "canonical.non_canonical_line"}
    fatal = {"exit": 2, "code": "canonical.non_canonical_line"}
    lines = _lines(CLEAN)
    spaced = [json.dumps(json.loads(line), sort_keys=True).encode() for line in lines]
    yield Case("noncanonical", "spacing.jsonl", _join(spaced),
               {"verify": notice, "verify --canonical": fatal},
               "Every line re-encoded with spaces after ':' and ','.")
    unsorted = [lines[0]] + [
        json.dumps(dict(reversed(list(json.loads(line).items()))), separators=(",", ":")).encode()
        for line in lines[1:]
    ]
    yield Case("noncanonical", "key_order.jsonl", _join(unsorted),
               {"verify": notice, "verify --canonical": fatal}, "Event keys in reverse order.")
    escaped = CLEAN.replace(b'"cat"', b'"\\u0063at"', 1)
    yield Case("noncanonical", "hex_escape.jsonl", escaped,
               {"verify": notice, "verify --canonical": fatal},
               "'c' spelled as a hex escape: the same parsed value, different bytes.")
    yield Case("noncanonical", "crlf.jsonl", CLEAN.replace(b"\n", b"\r\n"),
               {"verify": {"exit": 0, "code": "canonical.crlf_line_ending"},
                "verify --canonical": {"exit": 2, "code": "canonical.crlf_line_ending"}},
               "Windows line endings.")


def _forgery() -> Iterator[Case]:
    def forge(d: DraftTrace) -> None:
        _payload(d, "test_result").update(exit_code=1, functional_pass=True)

    yield Case("forgery", "chain__forgery_rehashed.jsonl", _rechained(forge),
               {"verify": {"exit": 0, "code": None}},
               "A consistent forgery: the test exit code edited and every hash recomputed. Verify "
               "accepts it (integrity is not authenticity); audit flags the inconsistency.")


def cases() -> Iterator[Case]:
    yield from _tampering()
    yield from _truncation()
    yield from _limits()
    yield from _strictness()
    yield from _structure()
    yield from _paths()
    yield from _non_canonical()
    yield from _forgery()
