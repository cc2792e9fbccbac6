"""Integrity invariants on the real third-party fixture (docs/trace-format.md steps 6 and 7).

Every single-byte change is detected (exit 2) or, when the parsed values are unchanged, reported
as non-canonical; truncation at any offset is detected.
"""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import FIXTURE
from tracekit.formats.agentguard.verify import verify_bytes

DATA = FIXTURE.read_bytes()


def _parsed(data: bytes) -> list[object] | None:
    try:
        return [json.loads(line) for line in data.split(b"\n") if line]
    except ValueError:
        return None


def _assert_detected(changed: bytes) -> None:
    report = verify_bytes(changed)
    if report.exit_code == 2:
        return
    codes = {f.code.value for f in report.findings}
    assert _parsed(changed) == _parsed(DATA), "an accepted change altered the parsed values"
    assert codes & {"canonical.non_canonical_line", "canonical.crlf_line_ending"}


def test_every_single_byte_change_at_every_offset() -> None:
    # Exhaustive over offsets, with two replacement bytes each: a bit flip and a letter.
    for offset in range(len(DATA)):
        for new in (DATA[offset] ^ 0x01, ord("x") if DATA[offset] != ord("x") else ord("y")):
            _assert_detected(DATA[:offset] + bytes([new]) + DATA[offset + 1 :])


@given(st.integers(min_value=0, max_value=len(DATA) - 1), st.integers(min_value=0, max_value=255))
def test_any_single_byte_value(offset: int, new: int) -> None:
    if new != DATA[offset]:
        _assert_detected(DATA[:offset] + bytes([new]) + DATA[offset + 1 :])


def test_truncation_at_every_offset_is_detected() -> None:
    for length in range(len(DATA)):
        assert verify_bytes(DATA[:length]).exit_code == 2, length


def test_hex_escape_is_the_same_value_but_reported() -> None:
    changed = DATA.replace(b'"python"', b'"\\u0070ython"', 1)
    report = verify_bytes(changed)
    assert report.exit_code == 0
    assert "canonical.non_canonical_line" in {f.code.value for f in report.findings}
