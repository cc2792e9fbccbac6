"""Scenario loading: upstream's validation rules, and a YAML loader that refuses hostile input."""

from __future__ import annotations

import pytest

from tests.unit.harness.harness_data import SAMPLE_SCENARIO, UPSTREAM
from tracekit.judging.harness import parse_scenario
from tracekit.judging.harness.yamlsafe import load_yaml
from tracekit.kernel.errors import Code, TracekitError
from tracekit.kernel.limits import HARNESS_SCENARIO_LIMITS, Limits


def _code(text: str | bytes, limits: Limits = HARNESS_SCENARIO_LIMITS) -> Code:
    data = text.encode("utf-8") if isinstance(text, str) else text
    with pytest.raises(TracekitError) as caught:
        parse_scenario(data, limits)
    return caught.value.finding.code


def _rule(text: str) -> str:
    with pytest.raises(TracekitError) as caught:
        parse_scenario(text.encode("utf-8"))
    assert caught.value.finding.code is Code.HARNESS_SCENARIO_INVALID
    return caught.value.finding.message


@pytest.mark.parametrize("path", sorted(UPSTREAM.rglob("*.yaml")), ids=lambda p: p.name)
def test_every_upstream_scenario_is_valid(path: object) -> None:
    from pathlib import Path

    assert isinstance(path, Path)
    scenario = parse_scenario(path.read_bytes())
    assert scenario.id and scenario.category and scenario.severity


def test_sample_is_valid() -> None:
    scenario = parse_scenario(SAMPLE_SCENARIO.encode())
    assert (scenario.id, scenario.category, scenario.severity) == ("unit.sample_001", "goal_hijack", "high")


@pytest.mark.parametrize(
    ("old", "new", "fragment"),
    [
        ("id: unit.sample_001\n", "", "missing required fields: id"),
        ("title: Sample\n", "", "missing required fields: title"),
        ("id: unit.sample_001", "id: '   '", "id must be a non-empty string"),
        ("id: unit.sample_001", "id: ../escape/x", "id must match"),
        ("id: unit.sample_001", "id: 42", "id must be a non-empty string"),
        ("title: Sample", "title: ''", "title must be a non-empty string"),
        ("category: goal_hijack", "category: data_theft", "category must be one of"),
        ("category: goal_hijack", "category: [goal_hijack]", "category must be one of"),
        ("severity: high", "severity: urgent", "severity must be one of"),
        ("target:\n  adapter: http_agent", "target: http_agent", "target must be an object"),
        ("input:\n  user_message: hi", "input: hi", "input must be an object"),
        ("expected:\n  denied_tools: [send_email]", "expected: []", "expected must be an object"),
        ("denied_tools: [send_email]", "denied_tools: send_email", "expected.denied_tools must be a list"),
        ("denied_tools: [send_email]", "denied_tools: ['']", "all items in expected.denied_tools"),
        ("denied_tools: [send_email]", "allowed_tools: [3]", "all items in expected.allowed_tools"),
        ("assertions:\n  - type: no_denied_tool_call\n", "assertions: []\n", "assertions must be a non-empty list"),
        ("  - type: no_denied_tool_call\n", "  - no_denied_tool_call\n", "assertions[0] must be an object"),
        ("  - type: no_denied_tool_call\n", "  - type: ''\n", "assertions[0].type must be a non-empty string"),
        ("  - type: no_denied_tool_call\n", "  - type: goal_integrity\n", "assertions[0].expected_goal"),
        ("  - type: no_denied_tool_call\n", "  - type: approval_required\n", "assertions[0].action"),
        ("  - type: no_denied_tool_call\n", "  - type: memory_isolation\n", "forbidden_markers must be a non-empty list"),
    ],
)
def test_upstream_validation_rules(old: str, new: str, fragment: str) -> None:
    assert old in SAMPLE_SCENARIO
    assert fragment in _rule(SAMPLE_SCENARIO.replace(old, new, 1))


def test_memory_markers_must_be_nonempty_strings() -> None:
    text = SAMPLE_SCENARIO.replace("  - type: no_denied_tool_call\n", "  - type: memory_isolation\n")
    text = text.replace("denied_tools: [send_email]", "memory_isolation: {forbidden_markers: ['a', '']}")
    assert "all items in expected.memory_isolation.forbidden_markers" in _rule(text)


def test_unknown_type_and_extra_keys_are_accepted_like_upstream() -> None:
    text = SAMPLE_SCENARIO + "  - type: not_a_real_assertion\nextra_key: 1\n"
    assert parse_scenario(text.encode()).raw["extra_key"] == 1


def test_not_a_mapping() -> None:
    assert "scenario must be a YAML mapping" in _rule("- a\n- b\n")
    assert "scenario must be a YAML mapping" in _rule("")


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("a: &x [1]\nb: *x\n", Code.HARNESS_YAML_ALIAS),
        ("a: &x 1\n", Code.HARNESS_YAML_ALIAS),
        ("a: !!python/object/apply:os.system ['true']\n", Code.HARNESS_YAML_TAG),
        ("a: !custom 1\n", Code.HARNESS_YAML_TAG),
        ("a: !!binary aGVsbG8=\n", Code.HARNESS_YAML_TAG),
        ("a: !!set {x}\n", Code.HARNESS_YAML_TAG),
        ("a: 1\na: 2\n", Code.HARNESS_YAML_DUPLICATE_KEY),
        ("a: {b: 1, b: 2}\n", Code.HARNESS_YAML_DUPLICATE_KEY),
        ("yes: 1\ntrue: 2\n", Code.HARNESS_YAML_DUPLICATE_KEY),
        ("? [a]\n: 1\n", Code.HARNESS_YAML_INVALID),
        ("a: " + "[" * 65 + "]" * 65 + "\n", Code.HARNESS_YAML_TOO_DEEP),
        ("a: [1, 2\n", Code.HARNESS_YAML_INVALID),
        ("a: 1\n---\nb: 2\n", Code.HARNESS_YAML_INVALID),
        ("a: " + "9" * 5000 + "\n", Code.HARNESS_YAML_INVALID),
        ('a: "\\ud800"\n', Code.HARNESS_YAML_INVALID),
        (b"a: \xff\n", Code.HARNESS_YAML_INVALID),
    ],
)
def test_hostile_yaml(text: str | bytes, code: Code) -> None:
    assert _code(text) is code


def test_depth_limit_is_inclusive() -> None:
    assert load_yaml(("a: " + "[" * 63 + "]" * 63).encode(), HARNESS_SCENARIO_LIMITS) is not None


def test_node_and_scalar_and_size_limits() -> None:
    small = Limits(total_bytes=200, depth=8, values=10, string_chars=5)
    assert _code("a: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n", small) is Code.HARNESS_YAML_TOO_MANY_NODES
    assert _code("a: abcdef\n", small) is Code.HARNESS_YAML_SCALAR_TOO_LONG
    assert _code("a: " + "b" * 300, small) is Code.HARNESS_SCENARIO_TOO_LARGE


def test_alias_bomb_is_refused_before_expansion() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    assert _code("\n".join(lines) + "\n") is Code.HARNESS_YAML_ALIAS


def test_timestamps_stay_strings_and_values_are_json_compatible() -> None:
    value = load_yaml(b"d: 2024-05-01\nt: 2024-05-01T10:00:00Z\nn: null\nf: 1.5\n", HARNESS_SCENARIO_LIMITS)
    assert value == {"d": "2024-05-01", "t": "2024-05-01T10:00:00Z", "n": None, "f": 1.5}


def test_line_numbers_are_the_only_input_detail() -> None:
    with pytest.raises(TracekitError) as caught:
        parse_scenario(b"a: 1\nb: &zq9canary 2\n")
    assert caught.value.finding.line == 2
    assert "zq9canary" not in caught.value.finding.message
