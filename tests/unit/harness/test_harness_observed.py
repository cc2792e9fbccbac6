"""Compatible mode reproduces upstream v0.2.0 on all 32 observed scenario/trace pairs."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.harness.harness_data import UPSTREAM, observed_pairs
from tracekit.judging.harness import evaluate, parse_scenario, parse_trace

PAIRS = observed_pairs()


def test_there_are_32_pairs() -> None:
    assert len(PAIRS) == 32


@pytest.mark.parametrize("pair", PAIRS, ids=[f"{p['scenario']}|{p['trace']}" for p in PAIRS])
def test_compatible_matches_upstream(pair: dict[str, Any]) -> None:
    scenario = parse_scenario((UPSTREAM / pair["scenario"]).read_bytes())
    trace = parse_trace((UPSTREAM / pair["trace"]).read_bytes())
    result = evaluate(scenario, trace)
    assert result.scenario_id == pair["scenario_id"]
    assert result.result == pair["result"]
    assert [a.as_dict() for a in result.assertions] == pair["assertions"]


@pytest.mark.parametrize("pair", PAIRS, ids=[f"{p['scenario']}|{p['trace']}" for p in PAIRS])
def test_strict_never_passes_what_upstream_fails(pair: dict[str, Any]) -> None:
    scenario = parse_scenario((UPSTREAM / pair["scenario"]).read_bytes())
    trace = parse_trace((UPSTREAM / pair["trace"]).read_bytes())
    strict = evaluate(scenario, trace, strict=True)
    for upstream, ours in zip(pair["assertions"], strict.assertions, strict=True):
        assert ours.id == upstream["id"]
        if upstream["result"] == "fail":
            assert ours.result == "fail"
    if pair["result"] == "fail":
        assert strict.result == "fail"
