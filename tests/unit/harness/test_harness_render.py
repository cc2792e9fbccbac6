"""Renderers: upstream-shaped JSON, JUnit and SARIF; tables and XML that untrusted evidence
cannot break."""

from __future__ import annotations

import json
from xml.etree.ElementTree import fromstring

from tests.unit.harness.harness_data import UPSTREAM
from tracekit.judging.harness import evaluate, parse_scenario, parse_trace
from tracekit.judging.harness.evaluate import EntryDetail, SuiteEntry, SuiteResult
from tracekit.judging.harness.model import AssertionResult, HarnessResult
from tracekit.report import harness_json, harness_junit, harness_sarif, harness_table
from tracekit.report.harness_render import RENDERERS
from tracekit.report.harness_text import terminal_safe, xml_safe


def _basic() -> HarnessResult:
    scenario = parse_scenario((UPSTREAM / "scenarios/goal_hijack/basic.yaml").read_bytes())
    trace = parse_trace((UPSTREAM / "examples/traces/denied_tool_call.json").read_bytes())
    return evaluate(scenario, trace)


HOSTILE = HarnessResult(
    "s.1", "trace", "fail", (AssertionResult("no_external_recipient", "fail", "unauthorized: a\x1b[31m\u202e\x00@x"),)
)


def test_json_is_upstreams_format_without_the_trace() -> None:
    text = harness_json.render(_basic())
    data = json.loads(text)
    assert list(data) == ["assertions", "mode", "result", "scenario_id"]
    assert text == json.dumps(data, indent=2, sort_keys=True) + "\n"
    assert data["mode"] == "trace" and "trace" not in data and "semantics" not in data


def test_json_with_trace_and_strict_marker() -> None:
    scenario = parse_scenario((UPSTREAM / "scenarios/goal_hijack/basic.yaml").read_bytes())
    trace = parse_trace((UPSTREAM / "examples/traces/denied_tool_call.json").read_bytes())
    data = json.loads(harness_json.render(evaluate(scenario, trace, strict=True), trace))
    assert data["trace"]["tool_calls"][0]["name"] == "send_email"
    assert data["semantics"] == "strict"


def test_junit_shape() -> None:
    root = fromstring(harness_junit.render(_basic()))
    assert root.tag == "testsuite"
    assert (root.get("name"), root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")) == (
        "goal_hijack.basic_001", "3", "2", "0", "1"
    )
    cases = root.findall("testcase")
    assert [c.get("name") for c in cases] == ["no_secret_disclosure", "no_denied_tool_call", "goal_integrity"]
    skipped = cases[0].find("skipped")
    failure = cases[1].find("failure")
    assert skipped is not None and skipped.get("message") == "assertion not run"
    assert failure is not None and failure.get("message") == "assertion failed"
    assert failure.text == "denied tool call observed: send_email"


def test_junit_survives_control_characters() -> None:
    root = fromstring(harness_junit.render(HOSTILE))
    failure = root.find("testcase/failure")
    assert failure is not None and failure.text is not None and "\\x1b" in failure.text


def test_sarif_shape() -> None:
    log = json.loads(harness_sarif.render(_basic()))
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    assert run["tool"]["driver"]["name"] == "tracekit"
    assert [r["ruleId"] for r in run["results"]] == ["agent-harness/no_denied_tool_call", "agent-harness/goal_integrity"]
    assert {r["level"] for r in run["results"]} == {"error"}
    assert run["results"][0]["locations"] == []
    assert run["results"][0]["properties"]["evidence"] == "denied tool call observed: send_email"
    assert run["properties"] == {"scenario_id": "goal_hijack.basic_001", "mode": "trace", "overall_result": "fail"}
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} == {r["ruleId"] for r in run["results"]}


def test_table_escapes_terminal_control() -> None:
    text = harness_table.render(HOSTILE)
    assert "\x1b" not in text and "\u202e" not in text and "\x00" not in text
    assert "\\x1b" in text and "\\u202e" in text


def test_text_helpers() -> None:
    assert terminal_safe("plain é") == "plain é"
    assert terminal_safe("a\u200bb") == "a\\u200bb"
    assert xml_safe("ok\tline\n") == "ok\tline\n"
    assert xml_safe("a\x01b\ufffe") == "a\\x01b\\ufffe"


def test_every_renderer_renders_results_and_suites() -> None:
    result = _basic()
    suite = SuiteResult.of(
        (
            SuiteEntry("a.yaml", result.result, result.scenario_id, detail=EntryDetail(assertions=result.assertions)),
            SuiteEntry("b.yaml", "error", error_reason="invalid_scenario"),
        )
    )
    for renderer in RENDERERS.values():
        assert renderer.one(result, None).endswith("\n")
        assert renderer.suite(suite).endswith("\n")
    root = fromstring(RENDERERS["junit"].suite(suite))
    assert [s.get("name") for s in root.findall("testsuite")] == ["goal_hijack.basic_001", "b.yaml"]
    sarif = json.loads(RENDERERS["sarif"].suite(suite))
    assert "agent-harness/invalid_scenario" in {r["ruleId"] for r in sarif["runs"][0]["results"]}


def test_suite_json_is_derived_from_the_typed_report() -> None:
    import pickle

    import msgspec

    from tracekit.judging.harness import run_suite
    from tracekit.kernel.errors import Code, finding

    basic = (UPSTREAM / "scenarios/goal_hijack/basic.yaml").read_bytes()
    trace = (UPSTREAM / "examples/traces/denied_tool_call.json").read_bytes()
    unreadable = finding(Code.HARNESS_TRACE_TOO_LARGE, limit=7)
    reads = {"t/goal_hijack.basic_001.json": trace}
    scenarios = [("a.yaml", basic), ("b.yaml", basic), ("c.yaml", unreadable)]
    suite = run_suite(scenarios, "t", reads.get, strict=True)
    data = json.loads(harness_json.render_suite(suite))
    assert data == msgspec.json.decode(msgspec.json.encode(suite))
    assert data["counts"] == {"total": 3, "pass": 0, "fail": 1, "error": 2, "not_run": 0}
    assert data["semantics"] == "strict" and data["result"] == "fail"
    assert [e.get("error_reason") for e in data["scenarios"]] == [None, "duplicate_scenario_id", "invalid_scenario"]
    assert data["scenarios"][2] == {
        "scenario_path": "c.yaml", "result": "error", "error_reason": "invalid_scenario",
        "evidence": unreadable.message, "detail": {"code": "harness.trace_too_large"},
    }
    assert suite.scenarios[2].problem == unreadable
    assert suite.scenarios[0].problem is None
    outcome = suite.scenarios[0].outcome(True)
    assert outcome is not None and outcome.strict and outcome.assertions == suite.scenarios[0].assertions
    # Worker results cross process boundaries and spools: an entry pickles, and its JSON decodes
    # back to an equal Struct.
    assert pickle.loads(pickle.dumps(suite)) == suite
    for entry in suite.scenarios:
        assert msgspec.json.decode(msgspec.json.encode(entry), type=SuiteEntry) == entry


def test_result_json_is_derived_and_omits_what_upstream_omits() -> None:
    import msgspec

    result = _basic()
    assert json.loads(harness_json.render(result)) == msgspec.json.decode(msgspec.json.encode(result))
    assert "semantics" not in msgspec.to_builtins(result)
    assert [a.as_dict() for a in result.assertions] == list(msgspec.to_builtins(result.assertions))
    assert msgspec.to_builtins(AssertionResult("x", "pass")) == {"id": "x", "result": "pass"}
