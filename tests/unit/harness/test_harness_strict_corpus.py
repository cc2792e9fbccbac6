"""Every strict rule on its corpus pair: compatible mode shows upstream's gap, strict closes it.

The expected verdicts in corpus/harness/expected-results.json are written by hand in the
generator from docs/harness.md, independently of tracekit's code.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from tests.unit.harness.harness_data import ROOT, STRICT, strict_cases
from tracekit.judging.harness import evaluate, parse_scenario, parse_trace

CASES = strict_cases()


def test_generator_has_no_drift() -> None:
    run = subprocess.run(
        [sys.executable, str(STRICT / "generate.py"), "--check"], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert run.returncode == 0, run.stdout


def test_every_rule_has_a_pass_and_a_fail_pair() -> None:
    folders = {case["scenario"].split("/")[0] for case in CASES}
    assert len(folders) == 9
    for folder in folders - {"s9_not_run_is_not_pass"}:
        strict = [c["strict"]["result"] for c in CASES if c["scenario"].startswith(folder + "/")]
        assert "pass" in strict and "fail" in strict, folder


def test_each_failing_case_is_a_gap_upstream_has() -> None:
    # Every strict failure is a trace upstream's semantics do not fail.
    for case in CASES:
        if case["strict"]["result"] == "fail":
            assert case["compatible"]["result"] != "fail", case["trace"]


@pytest.mark.parametrize("case", CASES, ids=[c["trace"] for c in CASES])
@pytest.mark.parametrize("mode", ["compatible", "strict"])
def test_case(case: dict[str, Any], mode: str) -> None:
    scenario = parse_scenario((STRICT / case["scenario"]).read_bytes())
    trace = parse_trace((STRICT / case["trace"]).read_bytes())
    result = evaluate(scenario, trace, strict=mode == "strict")
    assert result.result == case[mode]["result"]
    assert {a.id: a.result for a in result.assertions} == case[mode]["assertions"]
    assert result.strict is (mode == "strict")
