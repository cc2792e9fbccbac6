"""The fast and exact paths of step 3 agree: same accept/reject decision, same finding, same hash.

The fast path (tracekit/formats/agentguard/records.py) may only ever say "this line is canonical, here is its
record" when the exact path says exactly that too; otherwise it must hand the line over. These
tests drive both with hypothesis-generated records: valid typed payloads (which do reach the
fast path) written canonically and in every near-canonical spelling that could fool a byte
comparison (raw UTF-8, msgspec's float layout, spacing, key order, escape spelling, duplicate
keys), byte mutations, and free-form JSON values. docs/performance.md lists the conditions.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
from hypothesis import assume, given
from hypothesis import strategies as st

from tracekit.formats.agentguard.fastpath import ENCODE, floats_alike, same_as_read
from tracekit.formats.agentguard.records import (
    EventRecord,
    RecordProblem,
    _decode_exact,
    _decode_fast,
    decode_event,
)
from tracekit.formats.agentguard.writer import DraftEvent, event_record
from tracekit.kernel.canonical import agentguard_bytes
from tracekit.kernel.errors import Finding
from tracekit.kernel.limits import DEFAULT_LIMITS, Limits

PREVIOUS = "ab" * 32
SHA = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)

# -- values --------------------------------------------------------------------------------------

# Every plane, controls, U+007F, U+2028, private use next to astral characters; no lone
# surrogates (msgspec and Python's encoder both refuse them as Python strings).
CHARS = st.characters(blacklist_categories=("Cs",))
SPECIAL = st.sampled_from(
    ["\x00", "\x1f", "\x7f", "\x80", "\u2028", "\ue000", "\uffff", "\U00010000", "\U0001f600",
     '"', "\\", "/", "\n", "\t", "\b", "\f", "\r", "é", "€", "𝄞", "\\u0041", ".0,", "e5]"]
)
TEXT = st.one_of(
    st.lists(st.one_of(CHARS, SPECIAL), max_size=24).map("".join),
    # ASCII only (U+007F and controls included): the lines where only escaping differs
    st.text(alphabet=st.characters(max_codepoint=0x7F, blacklist_categories=("Cs",)), max_size=12),
)
FLOATS = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 1.0, 1e-4, 9.999999999999999e-05, 1e-5, 1e-6, 1e-7, 1e15, 1e16,
                     9999999999999998.0, 1e21, 5e-324, 1.7976931348623157e308, 0.1, 2.5]),
    st.integers(min_value=-30, max_value=30).map(lambda e: 1.5 * 10.0**e),
)
NONNEG_FLOATS = FLOATS.map(abs)
NUMBER = st.one_of(st.integers(min_value=0, max_value=2**63 - 1), NONNEG_FLOATS)


def _output() -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"bytes": st.integers(0, 2**40), "sha256": SHA, "truncated": st.booleans()}
    )


AGENT_COMMAND = st.fixed_dictionaries(
    {
        "agent": TEXT,
        "argv": st.lists(TEXT, max_size=6),
        "blocked": st.booleans(),
        "command": TEXT,
        "duration_seconds": st.one_of(st.none(), NUMBER),
        "executed": st.booleans(),
        "exit_code": st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)),
        "preflight": st.fixed_dictionaries(
            {"blocked": st.booleans(), "matched_patterns": st.lists(TEXT, max_size=3), "mode": TEXT}
        ),
        "stderr": _output(),
        "stdout": _output(),
        "timed_out": st.booleans(),
        "truncation": st.fixed_dictionaries(
            {"argv": st.booleans(), "command": st.booleans(), "patterns": st.booleans()}
        ),
        "working_directory_role": TEXT,
    },
    optional={
        "docker_image": st.one_of(st.none(), TEXT),
        "process_cleanup": st.fixed_dictionaries(
            {"attempted": st.booleans(), "complete": st.booleans(),
             "message": st.one_of(st.none(), TEXT)}
        ),
    },
)
FILE_CHANGE = st.fixed_dictionaries(
    {
        "change_type": st.sampled_from(["added", "modified", "deleted", "symlink"]),
        "diff_included": st.just(True),
        "diff_truncated": st.booleans(),
        "lines_added": st.integers(0, 10**6),
        "lines_deleted": st.integers(0, 10**6),
        "new_content_sha256": st.one_of(st.none(), SHA),
        "new_mode": st.sampled_from([None, "100644", "100755", "120000"]),
        "old_content_sha256": st.one_of(st.none(), SHA),
        "old_mode": st.sampled_from([None, "100644"]),
        "path": st.sampled_from(["src/a.py", "docs/é.md", "src/日本.py", "a b/c"]),
        "symlink_target": st.none(),
        "unified_diff": st.one_of(st.none(), TEXT.map(lambda t: "--- a\n+++ b\n+" + t + "\n")),
    }
)
CHECK_RESULT = st.fixed_dictionaries(
    {
        "evidence": st.lists(TEXT, max_size=5),
        "message": TEXT,
        "name": TEXT,
        "passed": st.booleans(),
        "score_contribution": st.integers(-100, 0),
        "severity": st.sampled_from(["info", "warning", "error", "critical"]),
        "truncation": st.fixed_dictionaries({"evidence": st.booleans(), "message": st.booleans()}),
    }
)
GUARD_METRICS = st.fixed_dictionaries(
    {
        "command_guard_violations": st.integers(0, 99),
        "filesystem_guard_violations": st.integers(0, 99),
        "guard_blocked": st.booleans(),
        "guard_violations_total": st.integers(0, 99),
        "time_to_block_ms": st.one_of(st.none(), NUMBER),
        "time_to_first_violation_ms": st.one_of(st.none(), NUMBER),
    }
)
COMPLETED = st.fixed_dictionaries(
    {
        "duration_seconds": st.one_of(st.none(), NUMBER),
        "failed_checks": st.lists(TEXT, max_size=3),
        "modified_files": st.fixed_dictionaries(
            {"count": st.integers(0, 9), "lines_added": st.integers(0, 9),
             "lines_deleted": st.integers(0, 9), "paths": st.lists(TEXT, max_size=3),
             "truncated": st.booleans()}
        ),
        "result": st.sampled_from(["PASS", "FAIL"]),
        "score": st.one_of(st.integers(0, 100), st.floats(0.0, 100.0)),
        "source_manifest_sha256": st.one_of(st.none(), SHA),
        "source_report_sha256": st.one_of(st.none(), SHA),
        "warning_checks": st.lists(TEXT, max_size=3),
    }
)
PAYLOADS = st.one_of(
    st.tuples(st.just("agent_command"), AGENT_COMMAND),
    st.tuples(st.just("file_change"), FILE_CHANGE),
    st.tuples(st.just("check_result"), CHECK_RESULT),
    st.tuples(st.just("guard_metrics"), GUARD_METRICS),
    st.tuples(st.just("execution_completed"), COMPLETED),
)
OFFSETS = st.one_of(st.none(), NUMBER)

JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**63), 2**64), st.integers(), FLOATS, TEXT
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(TEXT, inner, max_size=4)
    ),
    max_leaves=40,
)


def _deep(depth: int) -> Any:
    value: Any = 1.5
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


# -- the two paths -------------------------------------------------------------------------------


def _outcome(decode: Any, raw: bytes, limits: Limits = DEFAULT_LIMITS) -> EventRecord | Finding:
    try:
        return decode(raw, 2, 2, PREVIOUS, limits)  # type: ignore[no-any-return]
    except RecordProblem as problem:
        return problem.finding


def _assert_agree(raw: bytes, limits: Limits = DEFAULT_LIMITS) -> bool:
    """decode_event (fast when it can) equals the exact path; return whether fast decided."""
    exact = _outcome(_decode_exact, raw, limits)
    assert _outcome(decode_event, raw, limits) == exact
    fast = _decode_fast(raw, 2, 2, PREVIOUS) if raw.isascii() else None
    if fast is not None:
        assert isinstance(exact, EventRecord), "the fast path accepted what the exact path refuses"
        assert fast == exact
        assert exact.canonical, "the fast path called a non-canonical line canonical"
        assert agentguard_bytes(json.loads(raw)) == raw
    return fast is not None


def _record(kind: str, payload: dict[str, Any], offset: Any) -> dict[str, Any]:
    return event_record(DraftEvent(kind, payload, offset), 1, PREVIOUS, 2)


def _spellings(record: dict[str, Any]) -> list[bytes]:
    """The canonical line and the near-canonical spellings a byte comparison must not confuse."""
    canonical = agentguard_bytes(record)
    msgspec_utf8 = msgspec.json.encode(record, order="sorted")
    escaped = msgspec_utf8.decode("utf-8").encode("ascii", "tracekit.json_ascii")
    out = [
        canonical,
        json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode(),
        msgspec_utf8,  # raw UTF-8, msgspec's float layout
        escaped,  # ASCII, msgspec's float layout (0.00001, 1e16, 1e-6), U+007F raw
        escaped.replace(b"\x7f", b"\\u007f"),
        json.dumps(record, sort_keys=True).encode(),  # spaced
        json.dumps(record, separators=(",", ":")).encode(),  # insertion order
        canonical.replace(b"\\u00", b"\\u00".upper(), 1),
        canonical.replace(b'"payload":{', b'"payload":{"agent":"x","agent":"y",', 1),
        canonical.replace(b',"record_type":"event"', b',"record_type":"event","record_type":"event"'),
        canonical.replace(b"a", b"\\u0061", 1),
    ]
    return out


# -- tests ---------------------------------------------------------------------------------------


@given(PAYLOADS, OFFSETS)
def test_valid_payloads_all_spellings_agree(kind_payload: tuple[str, dict[str, Any]], offset: Any) -> None:
    kind, payload = kind_payload
    record = _record(kind, payload, offset)
    for raw in _spellings(record):
        _assert_agree(raw)


@given(PAYLOADS, OFFSETS)
def test_canonical_lines_with_alike_floats_take_the_fast_path(
    kind_payload: tuple[str, dict[str, Any]], offset: Any
) -> None:
    kind, payload = kind_payload
    record = _record(kind, payload, offset)
    raw = agentguard_bytes(record)
    taken = _assert_agree(raw)
    alike = floats_alike(record)
    fits = all(len(s) <= 4096 for s in _strings(record))
    # A negative zero takes the exact path (records.decode_fast), which proves the rule.
    if alike and fits and not _negative_zeros(record):
        assert taken, "a canonical line with alike floats fell to the exact path"


def _negative_zeros(value: Any) -> bool:
    if isinstance(value, float):
        return value == 0.0 and str(value).startswith("-")
    if isinstance(value, list):
        return any(_negative_zeros(item) for item in value)
    if isinstance(value, dict):
        return any(_negative_zeros(item) for item in value.values())
    return False


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    if isinstance(value, dict):
        return [s for item in value.values() for s in _strings(item)]
    return []


@given(PAYLOADS, OFFSETS, st.data())
def test_byte_mutations_agree(kind_payload: tuple[str, dict[str, Any]], offset: Any, data: st.DataObject) -> None:
    kind, payload = kind_payload
    raw = bytearray(agentguard_bytes(_record(kind, payload, offset)))
    for _ in range(data.draw(st.integers(1, 3))):
        index = data.draw(st.integers(0, len(raw) - 1))
        raw[index] = data.draw(st.sampled_from(b'0123456789.eE+-"\\,:{}[] ux\x7f\x80'))
    _assert_agree(bytes(raw))


@given(JSON_VALUES, OFFSETS)
def test_free_form_payloads_agree(value: Any, offset: Any) -> None:
    payload = value if isinstance(value, dict) else {"value": value}
    try:
        record = _record("agent_command", payload, offset)
    except ValueError:
        assume(False)
    for raw in _spellings(record)[:6]:
        _assert_agree(raw)


@given(st.integers(0, 70))
def test_deep_nesting_agrees(depth: int) -> None:
    record = _record("agent_command", {"deep": _deep(depth)}, None)
    _assert_agree(agentguard_bytes(record))


def test_tight_limits_disable_the_fast_path() -> None:
    record = _record("check_result", {"evidence": [], "message": "m" * 100, "name": "n",
                                      "passed": True, "score_contribution": 0, "severity": "info",
                                      "truncation": {"evidence": False, "message": False}}, None)
    raw = agentguard_bytes(record)
    assert _assert_agree(raw)
    tight = Limits(string_chars=50)
    outcome = _outcome(decode_event, raw, tight)
    assert isinstance(outcome, Finding) and outcome.code.value == "json.string_too_long"


# -- the canonicalisation primitives -------------------------------------------------------------


@given(JSON_VALUES)
def test_msgspec_escaped_equals_python_canonical_whenfloats_alike(value: Any) -> None:
    try:
        python = agentguard_bytes(value)
        encoded = ENCODE(value)
    except (ValueError, OverflowError, TypeError):
        assume(False)
    if floats_alike(value):
        assert same_as_read(encoded, python)


@given(FLOATS)
def test_alike_floats_are_spelled_alike(value: float) -> None:
    if floats_alike(value):
        assert msgspec.json.encode(value) == repr(value).encode()
    msgspec_spelling = msgspec.json.encode(value)
    if msgspec_spelling != repr(value).encode():
        assert not floats_alike(value)


@given(TEXT)
def test_string_escaping_matches_python(text: str) -> None:
    assert same_as_read(ENCODE(text), agentguard_bytes(text))
    assert same_as_read(ENCODE({text: text}), agentguard_bytes({text: text}))


def test_key_order_is_code_point_order() -> None:
    keys = ["\ue000", "\U0001f600", "\uffff", "\U00010000", "\x7f", "a", "", "B", "é"]
    value = {k: 1 for k in keys}
    assert same_as_read(ENCODE(value), agentguard_bytes(value))


def test_raw_delete_character_is_not_canonical() -> None:
    # U+007F is ASCII, so only the escaping step tells msgspec's output from Python's.
    record = _record("check_result", {"evidence": [], "message": "a\x7fb", "name": "n",
                                      "passed": True, "score_contribution": 0, "severity": "info",
                                      "truncation": {"evidence": False, "message": False}}, None)
    canonical = agentguard_bytes(record)
    assert b"\\u007f" in canonical
    assert _assert_agree(canonical)
    raw_delete = canonical.replace(b"\\u007f", b"\x7f")
    assert not _assert_agree(raw_delete)
    outcome = _outcome(decode_event, raw_delete)
    assert isinstance(outcome, EventRecord) and not outcome.canonical
    assert outcome.computed_hash == record["event_hash"]


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40) | st.sampled_from(
    ["\\x41", "\\xe9é", "\\U0001f600😀", "\\\\xé", "\x7f\x80\xff\u0100\uffff\U00010000\U0010ffff"]
))
def test_c_level_escaping_is_exact_or_decodes_differently(text: str) -> None:
    """fastpath.python_escaped either spells a string exactly as Python's json does, or yields
    bytes that decode to another string (so no line can ever equal them): never a false accept."""
    from tracekit.formats.agentguard.fastpath import python_escaped

    encoded = msgspec.json.encode(text).replace(b"\x7f", b"\\u007f")
    fast = python_escaped(encoded)
    reference = encoded.decode("utf-8").encode("ascii", "tracekit.json_ascii")
    assert reference == json.dumps(text).encode()
    if fast != reference:
        assert json.loads(fast) != text
    if "\\" not in text:
        assert fast == reference
