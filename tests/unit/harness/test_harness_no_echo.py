"""No diagnostic ever contains a canary planted anywhere in a scenario or a trace."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.harness.harness_data import SAMPLE_SCENARIO
from tracekit.judging.harness import parse_scenario, parse_trace
from tracekit.kernel.errors import TracekitError

CANARY = "QqCanary9173"

keys = st.sampled_from(["id", "title", "category", "severity", "target", "input", "expected", "assertions", "type",
                        "denied_tools", "allowed_tools", "messages", "tool_calls", "events", CANARY, CANARY + "_k"])
scalars = st.one_of(st.just(CANARY), st.just(CANARY * 3), st.integers(), st.booleans(), st.none(), st.text(max_size=5))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=12,
)


def _message(data: bytes, loader: Any) -> str | None:
    try:
        loader(data)
    except TracekitError as error:
        return error.finding.message
    return None


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(keys, values, max_size=8))
def test_trace_diagnostics_never_echo(doc: dict[str, Any]) -> None:
    message = _message(json.dumps(doc).encode(), parse_trace)
    assert message is None or CANARY not in message


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(keys, values, max_size=8))
def test_scenario_diagnostics_never_echo(doc: dict[str, Any]) -> None:
    # JSON is YAML: the same documents exercise the scenario validator.
    message = _message(json.dumps(doc).encode(), parse_scenario)
    assert message is None or CANARY not in message


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(SAMPLE_SCENARIO.splitlines()), st.sampled_from(["", "x", ": [", f"{CANARY}:", f"&{CANARY}", f"!{CANARY}", "\t"]))
def test_mutated_scenario_lines_never_echo(line: str, suffix: str) -> None:
    text = SAMPLE_SCENARIO.replace(line, line + suffix + CANARY, 1)
    message = _message(text.encode(), parse_scenario)
    assert message is None or CANARY not in message
