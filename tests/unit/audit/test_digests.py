"""The fast digests (msgspec's sorted encoding, schema-placed volatile keys) give exactly the bytes
of the generic walk and the RFC 8785 encoder, on every value where they are used, and step aside
where they could differ."""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec
import pytest
import rfc8785

from tracekit.formats.agentguard.schema import agentguard as ag
from tracekit.judging.audit.digests import (
    _plan,
    canonical_json,
    demonstration_digest,
    payload_digest,
    strip_volatile,
)
from tracekit.kernel.canonical import agentguard_bytes

TRICKY_TEXT = [
    "plain",
    "",
    '"quoted" \\ back',
    "\x00\x01\x08\x09\x0a\x0b\x0c\x0d\x1f",
    "\x7f \u2028 \u2029 \ufeff \ue000 \uffff",
    "\U0001f600 astral \U0010ffff",
    "1,2.5e3 :1234567890123456 [0.5",
    "\ud800 lone surrogate",
]
TRICKY_INTS = [0, -1, 2**53 - 1, -(2**53 - 1), 2**53, -(2**53), 2**63 - 1, -(2**63)]


def exact(value: Any) -> bytes:
    try:
        return rfc8785.dumps(value)
    except ValueError:
        return agentguard_bytes(value)


def old_digest(value: Any) -> str:
    return hashlib.sha256(exact(strip_volatile(value))).hexdigest()


@pytest.mark.parametrize("text", TRICKY_TEXT)
@pytest.mark.parametrize("number", [*TRICKY_INTS, 0.5, -0.0, 1e21, 1e-7, 100.0])
def test_canonical_json_is_rfc8785_or_steps_aside(text: str, number: float) -> None:
    value = {text: [number, text, {"\U0001f600": 1, "\ue000": 2, text: None}], "k": True}
    try:
        expected = exact(value)
    except ValueError:  # a lone surrogate as a key outside Python's json: not our domain
        return
    assert canonical_json(value) == expected


def agent_command(text: str, exit_code: int, size: int) -> ag.AgentCommand:
    identity = {"bytes": size, "sha256": "0" * 64, "truncated": False}
    return msgspec.convert(
        {
            "agent": text,
            "argv": [text, "x"],
            "blocked": False,
            "command": text,
            "duration_seconds": 0.25,
            "executed": True,
            "exit_code": exit_code,
            "preflight": {"blocked": False, "matched_patterns": [text], "mode": "enforce"},
            "stderr": identity,
            "stdout": identity,
            "timed_out": False,
            "truncation": {"argv": False, "command": False, "patterns": False},
            "working_directory_role": "repository",
        },
        ag.AgentCommand,
    )


def file_change(text: str, added: int) -> ag.FileChange:
    return msgspec.convert(
        {
            "change_type": "modified",
            "diff_included": True,
            "diff_truncated": False,
            "lines_added": added,
            "lines_deleted": 1,
            "new_content_sha256": None,
            "new_mode": "100644",
            "old_content_sha256": None,
            "old_mode": None,
            "path": text,
            "symlink_target": None,
            "unified_diff": f"@@ -1,2 +1,3.5e7 @@\n{text}",
        },
        ag.FileChange,
    )


@pytest.mark.parametrize("text", TRICKY_TEXT)
@pytest.mark.parametrize("number", TRICKY_INTS)
def test_demonstration_digest_is_the_generic_digest(text: str, number: int) -> None:
    payloads: list[tuple[str, Any]] = [
        ("agent_command", agent_command(text, number, 3)),
        ("file_change", file_change(text, abs(number) % 2**63)),
        ("agent_command", agent_command("ok", 0, abs(number) % 2**63)),
    ]
    generic = [
        {"event_type": kind, "payload": msgspec.to_builtins(payload)} for kind, payload in payloads
    ]
    assert demonstration_digest(payloads) == old_digest(generic) == payload_digest(generic)


def test_free_form_payloads_take_the_generic_walk() -> None:
    payloads: list[tuple[str, Any]] = [("test_result", {"id": 1, "x": {"time": 2, "y": 0.5}})]
    generic = [{"event_type": "test_result", "payload": {"x": {"y": 0.5}}}]
    assert demonstration_digest(payloads) == hashlib.sha256(exact(generic)).hexdigest()


def test_plans_place_volatile_keys_and_integers_from_the_schema() -> None:
    plan = _plan(ag.AgentCommand)
    assert plan is not None
    assert plan.volatile == (("duration_seconds",),)
    assert ("stdout", "bytes") in plan.integers and ("exit_code",) in plan.integers
    assert _plan(ag.GuardSummary) is None  # floats that stay: the generic encoder decides


def test_no_demonstration_payloads_digest_the_empty_list() -> None:
    assert demonstration_digest([]) == hashlib.sha256(b"[]").hexdigest() == payload_digest([])
