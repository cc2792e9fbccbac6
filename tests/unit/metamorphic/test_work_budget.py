"""The metamorphic work budget charges replay-heavy sources for their matching work (counted,
never timed; docs/metamorphic.md "Work budget")."""

from __future__ import annotations

from gen import worst

from tracekit.formats.agentguard.verify import VerifyOptions, verify_bytes
from tracekit.judging.metamorphic import NAMES, StudyConfig, TraceTask
from tracekit.judging.metamorphic.cases import (
    MATCH_UNITS_PER_BYTE,
    case_cost,
    evaluate_source,
    match_units,
)
from tracekit.kernel.limits import DEFAULT_BUDGET


def test_a_small_trace_with_a_heavy_policy_is_charged_its_replay_work() -> None:
    data = worst.glob_bomb(64, 256, path_chars=200)
    report = verify_bytes(data, VerifyOptions(keep_events=True, check_sources=False))
    assert report.header is not None
    matched = match_units(report, report.header.policy_snapshot)  # type: ignore[arg-type]
    assert matched > 50 * MATCH_UNITS_PER_BYTE * len(data)  # matching, not bytes, dominates
    cost = case_cost(len(data), matched, "timestamp_variation")
    config = StudyConfig(transforms=NAMES, trials=10)
    result = evaluate_source(TraceTask(1, "g.jsonl", "g.jsonl", config), data, None)
    run = len(result.cases) - sum(c.reason.startswith("not applicable: the policy") for c in result.cases)
    assert result.not_run > 0 and result.charged <= DEFAULT_BUDGET.metamorphic_bytes
    assert run <= DEFAULT_BUDGET.metamorphic_bytes // cost  # a byte budget alone would allow far more
    assert DEFAULT_BUDGET.metamorphic_bytes // len(data) > 10 * run


def test_an_ordinary_policy_costs_little_matching() -> None:
    from tests.unit.metamorphic.support import clean_bytes

    data = clean_bytes()
    report = verify_bytes(data, VerifyOptions(keep_events=True, check_sources=False))
    assert report.header is not None
    matched = match_units(report, report.header.policy_snapshot)  # type: ignore[arg-type]
    assert 0 < matched // MATCH_UNITS_PER_BYTE < 4 * len(data)
