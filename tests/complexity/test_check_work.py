"""``tracekit check`` does bounded work (docs/threat-model.md, "Work budget"): the recipient scan
is linear, marker searches are charged to a meter and refused past it, and scenarios refuse
NaN, infinities and a BOM as traces do. Counts of work, never seconds."""

from __future__ import annotations

import re

import pytest
from gen import worst

from tracekit.formats.harness.trace import parse_trace
from tracekit.judging.harness import leakscan
from tracekit.judging.harness.assertions import no_external_recipient as recipient
from tracekit.judging.harness.evaluate import evaluate
from tracekit.judging.harness.scenario import parse_scenario
from tracekit.kernel.errors import Code, TracekitError
from tracekit.kernel.limits import DEFAULT_BUDGET, BudgetExceeded, Meter


class _Counting:
    """A compiled pattern that counts its calls and the characters they may examine."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.calls = 0
        self.chars = 0

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        self.calls += 1
        found = self.pattern.search(text, pos)
        self.chars += (found.end() if found else len(text)) - pos
        return found

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        self.calls += 1
        found = self.pattern.match(text, pos)
        self.chars += found.end() - pos if found else 0
        return found


@pytest.mark.parametrize("text", ["a" * 1024 * 1024, "a." * 300_000 + "@", "a@b" * 200_000, "x@y.z " * 100_000])
def test_recipient_scan_examines_each_character_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    run, domain = _Counting(recipient._LOCAL_RUN), _Counting(recipient._DOMAIN)
    monkeypatch.setattr(recipient, "_LOCAL_RUN", run)
    monkeypatch.setattr(recipient, "_DOMAIN", domain)
    recipient.find_emails(text)  # equal to EMAIL.findall: tests/property/test_bounded_matching.py
    assert run.chars <= len(text) + 1  # the runs partition the text: each character once
    assert domain.chars <= len(text)
    assert run.calls <= text.count("@") + text.count(" ") + 2


def test_recipient_assertion_on_a_one_mib_word_run() -> None:
    scenario = parse_scenario(worst.recipient_scenario())
    trace = parse_trace(worst.word_run_trace(1024 * 1024))
    for strict in (False, True):
        assert evaluate(scenario, trace, strict).result == "pass"


def test_compatible_marker_search_is_refused_past_the_budget() -> None:
    scenario = parse_scenario(worst.marker_scenario(10_000))
    trace = parse_trace(worst.marker_text_trace(4, 1024 * 1024))
    for strict in (False, True):
        result = evaluate(scenario, trace, strict).assertions[0]
        assert result.result == "error"
        assert result.evidence.startswith(Code.HARNESS_WORK_BUDGET_EXCEEDED.value)


def test_marker_search_is_charged_per_distinct_marker() -> None:
    texts = ["!" * 1000, " " * 500]
    meter = Meter(10**12)
    leakscan.find_forms(["m1", "m2"], texts, meter)
    plain = 2 * (1000 + leakscan.SEARCH_OVERHEAD) + 2 * (500 + leakscan.SEARCH_OVERHEAD)
    assert meter.used == plain  # no escapes, %, or base64 runs: no decoded views
    with pytest.raises(BudgetExceeded):
        leakscan.find_forms(["m1", "m2"], texts, Meter(plain - 1))


def test_duplicate_markers_report_like_upstream_and_cost_once() -> None:
    scenario = parse_scenario(worst.marker_scenario(1).replace(b'      - "m000000', b'      - "m000000qq"\n      - "m000000'))
    trace = parse_trace(b'{"messages": [{"role": "user", "content": "m000000qq and m000000qqqqqqqqqqqqqqqqqq"}], "tool_calls": [], "events": []}')
    compatible = evaluate(scenario, trace, False).assertions[0]
    assert compatible.result == "fail"
    assert "count=2" in compatible.evidence and "marker[0]" in compatible.evidence and "marker[1]" in compatible.evidence
    strict = evaluate(scenario, trace, True).assertions[0]
    assert strict.result == "fail" and "count=2" in strict.evidence


def test_the_marker_budget_allows_realistic_scenarios_on_large_traces() -> None:
    # The bound refuses floods, not normal use: 32 markers over 4 MiB of text are decided.
    scenario = parse_scenario(worst.marker_scenario(32))
    trace = parse_trace(worst.marker_text_trace(4, 1024 * 1024))
    assert evaluate(scenario, trace, False).assertions[0].result == "pass"
    meter = leakscan.marker_meter()
    assert meter.limit == DEFAULT_BUDGET.marker_work


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (b"a: .nan\n", Code.HARNESS_YAML_NON_FINITE),
        (b"a: [1, -.inf]\n", Code.HARNESS_YAML_NON_FINITE),
        (b"a: .Inf\n", Code.HARNESS_YAML_NON_FINITE),
        (b"a: 1.0e+999\n", Code.HARNESS_YAML_NON_FINITE),
        (b"\xef\xbb\xbfa: 1\n", Code.HARNESS_YAML_BOM),
    ],
)
def test_scenarios_refuse_nan_infinity_and_bom(text: bytes, code: Code) -> None:
    with pytest.raises(TracekitError) as raised:
        parse_scenario(text)
    assert raised.value.finding.code is code


def test_finite_floats_and_quoted_nan_still_load() -> None:
    scenario = worst.recipient_scenario().replace(b"  user_message: go\n", b"  user_message: '.nan'\n  weight: 1.5\n")
    assert parse_scenario(scenario).raw["input"]["weight"] == 1.5
