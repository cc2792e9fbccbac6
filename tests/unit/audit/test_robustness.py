"""Hostile harness traces: audit never raises and never echoes a value or key from the trace."""

from __future__ import annotations

import json
from typing import Any

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from tracekit.formats.harness.view import (
    ARGUMENT_KEYS,
    FINISH_KEYS,
    ID_KEYS,
    OUTCOME_KEYS,
    RESULT_KEYS,
    SCORER_KEYS,
    START_KEYS,
    TRUNCATION_FLAGS,
)
from tracekit.judging.audit import audit_harness

CANARY = "QQcanaryQQ"
VOCABULARY = sorted(
    {
        *ARGUMENT_KEYS,
        *FINISH_KEYS,
        *ID_KEYS,
        *OUTCOME_KEYS,
        *RESULT_KEYS,
        *SCORER_KEYS,
        *START_KEYS,
        *TRUNCATION_FLAGS,
        "type",
        "role",
        "name",
        "data",
        "tools",
        "messages",
        "seed",
        "model",
        "source",
        "tool_call_id",
        "mcp_server_id",
        "mcp_server_version",
    }
)
TYPES = [
    "run",
    "outcome",
    "finding",
    "model_request",
    "model_response",
    "mcp_tool_result",
    "untrusted_context_received",
    "goal",
    CANARY,
]
ROLES = ["system", "user", "assistant", "tool", CANARY]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(
        [CANARY, CANARY * 40, "x" * 200, CANARY + "...", "[truncated]", *TYPES, *ROLES]
    ),
)
keys = st.one_of(st.sampled_from(VOCABULARY), st.just(CANARY))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=5)),
    max_leaves=20,
)
objects = st.dictionaries(keys, values, max_size=8)


@given(
    st.lists(objects, max_size=4),
    st.lists(objects, max_size=4),
    st.lists(objects, max_size=6),
    st.dictionaries(st.sampled_from(["run", "metadata", "seed", CANARY]), values, max_size=3),
)
def test_audit_survives_and_never_echoes(
    messages: list[dict[str, Any]],
    calls: list[dict[str, Any]],
    events: list[dict[str, Any]],
    extra: dict[str, Any],
) -> None:
    document = {"messages": messages, "tool_calls": calls, "events": events, **extra}
    report = audit_harness("t.json", json.dumps(document).encode("utf-8"))
    assert report.readable
    text = msgspec.json.encode(msgspec.structs.replace(report, path="")).decode()
    assert CANARY not in text
    assert report.exit_code in (0, 1)
