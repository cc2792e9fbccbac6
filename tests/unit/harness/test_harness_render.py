"""Renderers: upstream-shaped JSON and suites, one result's and a suite's JUnit and SARIF in
check's findings shape; tables and XML that untrusted evidence cannot break."""

from __future__ import annotations

import json
from xml.etree.ElementTree import fromstring

import msgspec

from tests.unit.harness.harness_data import UPSTREAM
from tracekit.judging.harness import evaluate, parse_scenario, parse_trace
from tracekit.judging.harness.evaluate import EntryDetail, SuiteEntry, SuiteResult
from tracekit.judging.harness.model import AssertionResult, HarnessResult
from tracekit.report import harness_findings, harness_json, harness_table
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


def test_junit_takes_the_findings_shape() -> None:
    """docs/harness.md, "Results and output formats": one harness trace's JUnit is check's findings JUnit,
    its one episode (``trace``) a testcase whose failure lists every assertion not passing."""
    root = fromstring(harness_findings.render(_basic(), "junit", "t.json", 0))
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("1", "1", "0", "0")
    (case,) = suite.findall("testcase")
    assert (case.get("name"), case.get("classname")) == ("trace", "tracekit.check.t.json")
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "no_denied_tool_call" and failure.get("message") == "fail"
    assert failure.text is not None
    assert "no_secret_disclosure not_run, no_denied_tool_call fail, goal_integrity fail" in failure.text
    assert "no_denied_tool_call: denied tool call observed: send_email" in failure.text
    modes = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert modes == {"mode": "compatible", "disagreements": "0"}


def test_junit_never_shows_not_run_as_a_pass() -> None:
    """Compatible mode does not gate not_run (as upstream), so the testcase is skipped, not green."""
    result = HarnessResult("s.1", "dry_run", "not_run", (AssertionResult("goal_integrity", "not_run", "dry run"),))
    (case,) = fromstring(harness_findings.render(result, "junit", "s.yaml", 0)).iter("testcase")
    assert case.get("name") == "dry_run" and case.find("skipped") is not None


def test_junit_survives_control_characters() -> None:
    root = fromstring(harness_findings.render(HOSTILE, "junit", "t.json", 0))
    failure = root.find("testsuite/testcase/failure")
    assert failure is not None and failure.text is not None and "\\x1b" in failure.text
    assert "\x1b" not in failure.text and "\u202e" not in failure.text


def test_sarif_takes_the_findings_shape() -> None:
    log = json.loads(harness_findings.render(_basic(), "sarif", "t.json", 1))
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    assert run["tool"]["driver"]["name"] == "tracekit"
    rules = [(r["ruleId"], r["level"]) for r in run["results"]]
    assert rules == [
        ("no_secret_disclosure", "note"), ("no_denied_tool_call", "error"), ("goal_integrity", "error"),
        ("audit.outcome_mismatch", "warning"),
    ]
    location = run["results"][1]["locations"][0]
    assert location["physicalLocation"]["artifactLocation"]["uri"] == "t.json"
    assert location["logicalLocations"] == [{"kind": "episode", "name": "trace"}]
    assert run["results"][1]["message"]["text"] == "no_denied_tool_call fail: denied tool call observed: send_email"
    assert run["properties"] == {"command": "check", "mode": "compatible", "scenario": "goal_hijack.basic_001"}
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
    for name, renderer in RENDERERS.items():
        if renderer.one is None:  # JUnit and SARIF: the findings shape (test below)
            assert name in ("junit", "sarif") and renderer.suite is None
            assert harness_findings.render(result, name, "t.json", 0).endswith("\n")
            continue
        assert renderer.one(result, None).endswith("\n")
        assert renderer.suite is not None and renderer.suite(suite).endswith("\n")


def _suite_rows(disagrees: bool) -> tuple[HarnessResult, harness_findings.SuiteRows]:
    result = _basic()
    judged = SuiteEntry(
        "a.yaml", result.result, result.scenario_id, trace_path="t/goal_hijack.basic_001.json",
        detail=EntryDetail(assertions=result.assertions),
    )
    invalid = SuiteEntry("b.yaml", "error", error_reason="invalid_scenario", evidence="x",
                         detail=EntryDetail(code="harness.scenario_invalid"))
    missing = SuiteEntry("c.yaml", "error", "c.1", trace_path="t/c.1.json", error_reason="missing_trace",
                         evidence="x", detail=EntryDetail(code="harness.trace_missing"))
    head = SuiteResult.of((judged, invalid, missing))
    rows = ((judged, disagrees), (invalid, None), (missing, None))
    return result, harness_findings.SuiteRows(msgspec.structs.replace(head, scenarios=()), rows)


def test_suite_junit_is_one_findings_testsuite_per_scenario() -> None:
    from xml.etree.ElementTree import tostring

    for disagrees in (False, True):
        result, rows = _suite_rows(disagrees)
        root = fromstring(harness_findings.suite_junit(rows, None))
        suites = root.findall("testsuite")
        assert [s.get("name") for s in suites] == [
            "tracekit check goal_hijack.basic_001", "tracekit check b.yaml", "tracekit check c.1",
        ]
        # A judged scenario's testsuite is what check -f junit writes for its trace alone.
        one = fromstring(harness_findings.render(result, "junit", "t/goal_hijack.basic_001.json", int(disagrees)))
        assert tostring(suites[0]) == tostring(one.find("testsuite"))
        props = {p.get("name"): p.get("value") for p in suites[0].iter("property")}
        assert props["disagreements"] == str(int(disagrees))
        # Not judged: an error testcase at the file it stopped at; disagreements not known, not 0.
        for suite, path, code in zip(suites[1:], ("b.yaml", "t/c.1.json"), ("harness.scenario_invalid",
                                                                          "harness.trace_missing"), strict=True):
            assert "disagreements" not in {p.get("name") for p in suite.iter("property")}
            assert (suite.get("tests"), suite.get("errors"), suite.get("failures")) == ("1", "1", "0")
            case = suite.find("testcase")
            assert case is not None and case.get("name") == path
            error = case.find("error")
            assert error is not None and error.get("type") == code


def test_suite_sarif_is_one_findings_run() -> None:
    for disagrees in (False, True):
        result, rows = _suite_rows(disagrees)
        log = json.loads(harness_findings.suite_sarif(rows, None))
        assert len(log["runs"]) == 1
        run = log["runs"][0]
        one = json.loads(harness_findings.render(result, "sarif", "t/goal_hijack.basic_001.json", int(disagrees)))
        judged = one["runs"][0]["results"]
        assert run["results"][: len(judged)] == judged
        assert ("audit.outcome_mismatch" in {r["ruleId"] for r in judged}) is disagrees
        left = run["results"][len(judged):]
        assert [(r["ruleId"], r["level"]) for r in left] == [
            ("harness.scenario_invalid", "error"), ("harness.trace_missing", "error"),
        ]
        assert [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in left] == [
            "b.yaml", "t/c.1.json",
        ]
        assert run["properties"] == {"command": "check", "modes": ["harness:compatible"]}
        assert sorted(r["id"] for r in run["tool"]["driver"]["rules"]) == sorted({r["ruleId"] for r in run["results"]})


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
