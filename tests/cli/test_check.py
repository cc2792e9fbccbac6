"""``tracekit check`` as a user runs it: the installed entry point (subprocess) and the real
typer app in-process (CliRunner) for the many-case tables."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import fromstring

import pytest
from typer.testing import CliRunner

from tests.helpers import CORPUS, run_cli
from tracekit.cli.app import app

UPSTREAM = CORPUS / "third_party" / "owasp-harness"
STRICT = CORPUS / "harness"
HOSTILE = CORPUS / "hostile" / "harness"
PAIRS: list[dict[str, Any]] = json.loads((UPSTREAM / "observed-results.json").read_text("utf-8"))["pairs"]
HOSTILE_DOC = json.loads((HOSTILE / "expected.json").read_text("utf-8"))
CANARY: str = HOSTILE_DOC["canary"]
BASIC = str(UPSTREAM / "scenarios/goal_hijack/basic.yaml")
DENIED = str(UPSTREAM / "examples/traces/denied_tool_call.json")
CLEAN = str(UPSTREAM / "examples/traces/no_denied_tool_call.json")


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, ["check", "-f", "json", *args], catch_exceptions=False)


@pytest.mark.parametrize("pair", PAIRS, ids=[f"{p['scenario']}|{p['trace']}" for p in PAIRS])
def test_observed_pairs_through_the_app(pair: dict[str, Any]) -> None:
    result = invoke(str(UPSTREAM / pair["scenario"]), str(UPSTREAM / pair["trace"]), "-q")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc == {k: pair[k] for k in ("scenario_id", "result", "assertions")} | {"mode": "trace"}


def _rounds() -> list[list[dict[str, Any]]]:
    """Split the pairs so that each suite run pairs every scenario with at most one trace."""
    rounds: list[list[dict[str, Any]]] = []
    for pair in PAIRS:
        for batch in rounds:
            if all(p["scenario_id"] != pair["scenario_id"] for p in batch):
                batch.append(pair)
                break
        else:
            rounds.append([pair])
    return rounds


def test_observed_pairs_through_the_installed_cli_suite(tmp_path: Path) -> None:
    checked = 0
    for number, batch in enumerate(_rounds()):
        scenarios, traces = tmp_path / f"s{number}", tmp_path / f"t{number}"
        scenarios.mkdir()
        traces.mkdir()
        for pair in batch:
            shutil.copy(UPSTREAM / pair["scenario"], scenarios / f"{pair['scenario_id']}.yaml")
            shutil.copy(UPSTREAM / pair["trace"], traces / f"{pair['scenario_id']}.json")
        run = run_cli("check", "-f", "json", "--suite", str(scenarios), "--trace-dir", str(traces))
        assert run.returncode == 0, run.stderr
        doc = json.loads(run.stdout)
        by_id = {entry["scenario_id"]: entry for entry in doc["scenarios"]}
        for pair in batch:
            entry = by_id[pair["scenario_id"]]
            assert entry["result"] == pair["result"]
            assert entry["detail"]["assertions"] == pair["assertions"]
            checked += 1
        assert run.stderr.decode().strip().endswith(
            f"tracekit check: {len(batch)} scenarios, {doc['counts']['pass']} pass, {doc['counts']['fail']} fail, "
            f"{doc['counts']['error']} error, {doc['counts']['not_run']} not_run"
        )
    assert checked == 32


def test_single_run_installed_cli_is_byte_compatible() -> None:
    run = run_cli("check", "-f", "json", BASIC, DENIED)
    assert run.returncode == 0
    doc = json.loads(run.stdout)
    assert run.stdout.decode() == json.dumps(doc, indent=2, sort_keys=True) + "\n"
    assert "trace" not in doc
    # The one not_run assertion is upstream's "not implemented yet": the hint points to --strict.
    assert run.stderr.decode() == (
        "tracekit: info[harness.compatible_not_run] 1 assertion(s) did not run: compatible mode reproduces "
        "upstream, which does not implement them; --strict runs them.\n"
        "tracekit check: 3 assertions, 0 pass, 2 fail, 0 error, 1 not_run\n"
    )


@pytest.mark.parametrize(
    ("args", "code"),
    [
        ((BASIC, DENIED), 0),
        ((BASIC, DENIED, "--exit-on-fail"), 1),
        ((BASIC, CLEAN, "--exit-on-fail"), 0),  # upstream: not_run is a green build
        ((BASIC, CLEAN, "--exit-on-fail", "--strict"), 0),  # strict runs no_secret_disclosure: pass
        ((str(STRICT / "s9_not_run_is_not_pass/scenario.yaml"), str(STRICT / "s9_not_run_is_not_pass/not_run.json"), "--exit-on-fail"), 0),
        ((str(STRICT / "s9_not_run_is_not_pass/scenario.yaml"), str(STRICT / "s9_not_run_is_not_pass/not_run.json"), "--exit-on-fail", "--strict"), 1),
        ((BASIC, "--dry-run"), 0),
        ((BASIC, "--dry-run", "--exit-on-fail", "--strict"), 1),
    ],
)
def test_exit_codes(args: tuple[str, ...], code: int) -> None:
    assert invoke(*args, "-q").exit_code == code


def test_strict_rules_through_the_installed_cli() -> None:
    cases = json.loads((STRICT / "expected-results.json").read_text("utf-8"))
    for case in cases:
        if not case["trace"].startswith(("s4_goal_drift/fail__drifted", "s8_secret_disclosure/fail__base64")):
            continue
        args = ("check", "-f", "json", str(STRICT / case["scenario"]), str(STRICT / case["trace"]), "--exit-on-fail", "-q")
        assert run_cli(*args).returncode == 0
        strict = run_cli(*args, "--strict")
        assert strict.returncode == 1
        assert json.loads(strict.stdout)["semantics"] == "strict"


def test_dry_run_and_include_trace() -> None:
    doc = json.loads(invoke(BASIC, "--dry-run", "-q").stdout)
    assert doc["mode"] == "dry_run" and doc["result"] == "not_run"
    doc = json.loads(invoke(BASIC, DENIED, "--include-trace", "-q").stdout)
    assert doc["trace"]["events"] == [{"type": "goal", "id": "send_email"}]


@pytest.mark.parametrize(
    ("args", "code", "named"),
    [
        ((), "cli.missing_argument", "SCENARIO"),
        ((BASIC,), "cli.missing_argument", "TRACE"),
        ((BASIC, DENIED, "--dry-run"), "cli.option_conflict", "--dry-run"),
        (("--suite", BASIC), "cli.option_needs", "--trace-dir"),
        ((BASIC, "--suite", BASIC, "--trace-dir", "."), "cli.option_conflict", "--suite"),
        ((BASIC, DENIED, "--out-dir", "x"), "cli.option_needs", "--output-dir"),
        ((BASIC, DENIED, "--include-trace", "--format", "table"), "cli.option_needs", "--include-trace"),
    ],
)
def test_usage_errors_name_the_option(args: tuple[str, ...], code: str, named: str) -> None:
    result = invoke(*args)
    assert result.exit_code == 2
    assert f"error[{code}]" in result.stderr and named in result.stderr
    assert "The command line is not valid." not in result.stderr


def test_formats(tmp_path: Path) -> None:
    table = invoke(BASIC, DENIED, "--format", "table", "-q").stdout
    assert "goal_hijack.basic_001: fail" in table and "denied tool call observed: send_email" in table
    junit = fromstring(invoke(BASIC, DENIED, "--format", "junit", "-q").stdout)
    assert junit.tag == "testsuites" and junit.find("testsuite").get("failures") == "1"
    out = tmp_path / "r.sarif"
    assert invoke(BASIC, DENIED, "--format", "sarif", "--output", str(out), "-q").exit_code == 0
    assert json.loads(out.read_text())["version"] == "2.1.0"
    again = invoke(BASIC, DENIED, "--output", str(out), "-q")
    assert again.exit_code == 2 and "cli.output_exists" in again.stderr
    assert invoke(BASIC, DENIED, "--output", str(out), "--force", "-q").exit_code == 0


@pytest.mark.parametrize("name", sorted(HOSTILE_DOC["cases"]))
def test_hostile_inputs_exit_2_without_echo(name: str) -> None:
    expected = HOSTILE_DOC["cases"][name]
    args = (str(HOSTILE / name), DENIED) if name.startswith("scenario") else (BASIC, str(HOSTILE / name))
    run = run_cli("check", "-f", "json", *args)
    assert run.returncode == expected["exit"] == 2
    # The default JSON format still gets a document: one error entry naming the code.
    document = json.loads(run.stdout)
    assert document["result"] == "error"
    assert [e["detail"]["code"] for e in document["scenarios"]] == [expected["code"]]
    assert CANARY not in run.stdout.decode("utf-8") and "hx7Q2" not in run.stdout.decode("utf-8")
    stderr = run.stderr.decode("utf-8")
    assert f"[{expected['code']}]" in stderr
    assert CANARY not in stderr and "hx7Q2" not in stderr
    # Located at the argument as the user named it (docs/cli.md, Conventions 1), never its content.
    assert f"{HOSTILE / name}: " in stderr or f"{HOSTILE / name if name.startswith('scenario') else BASIC}: " in stderr


def test_suite_junit_and_sarif_of_hostile_inputs_echo_nothing(tmp_path: Path) -> None:
    """Every hostile scenario in one suite, the judged scenario's trace each hostile trace in
    turn: each is an error at its file, with its code, and nothing of the input is echoed."""
    scenarios, traces = tmp_path / "s", tmp_path / "t"
    scenarios.mkdir()
    traces.mkdir()
    shutil.copy(BASIC, scenarios / "basic.yaml")
    cases = HOSTILE_DOC["cases"]
    for name in sorted(n for n in cases if n.startswith("scenario")):
        shutil.copy(HOSTILE / name, scenarios / name)
    for trace in sorted(n for n in cases if n.startswith("trace")):
        shutil.copy(HOSTILE / trace, traces / "goal_hijack.basic_001.json")
        suite = ("--suite", str(scenarios), "--trace-dir", str(traces), "-q")
        junit = invoke(*suite, "--format", "junit")
        sarif = invoke(*suite, "--format", "sarif")
        assert junit.exit_code == sarif.exit_code == 2
        for text in (junit.stdout, sarif.stdout):
            assert CANARY not in text and "hx7Q2" not in text
        errors = {Path(c.get("name", "")).name: c[0].get("type") for c in fromstring(junit.stdout).iter("testcase")}
        expected = {n: cases[n]["code"] for n in cases if n.startswith("scenario")}
        assert errors == expected | {"goal_hijack.basic_001.json": cases[trace]["code"]}
        results = json.loads(sarif.stdout)["runs"][0]["results"]
        assert sorted(r["ruleId"] for r in results) == sorted(errors.values())


def test_huge_inputs_exit_2_without_echo(tmp_path: Path) -> None:
    big_scenario = tmp_path / "big.yaml"
    big_scenario.write_text("title: " + CANARY * 70_000 + "\n")
    long_scalar = tmp_path / "long.yaml"
    long_scalar.write_text(f"{CANARY}: " + "x" * 300_000 + "\n")
    huge_string = tmp_path / "huge.json"
    huge_string.write_text(json.dumps({"messages": [{"content": CANARY * 80_000}]}))
    oversized = tmp_path / "oversized.json"
    with oversized.open("w") as handle:
        handle.write('{"messages": [{"content": "')
        handle.write(CANARY * (17 * 1024 * 1024 // len(CANARY)))
        handle.write('"}]}')
    for args, code in (
        ((str(big_scenario), DENIED), "harness.scenario_too_large"),
        ((str(long_scalar), DENIED), "harness.yaml_scalar_too_long"),
        ((BASIC, str(huge_string)), "json.string_too_long"),
        ((BASIC, str(oversized)), "harness.trace_too_large"),
        ((BASIC, str(tmp_path / "missing.json")), "format.unreadable"),
        ((str(tmp_path / "scenario.txt"), DENIED), "harness.scenario_suffix"),
    ):
        run = run_cli("check", "-f", "json", *args)
        assert run.returncode == 2, code
        assert f"[{code}]" in run.stderr.decode()
        assert json.loads(run.stdout)["scenarios"][0]["detail"]["code"] == code
        assert CANARY not in run.stderr.decode() and CANARY not in run.stdout.decode()
    # A folder is a findings campaign (docs/findings.md): its unreadable traces are reported,
    # by code, and exit 2; nothing of them is echoed.
    run = run_cli("check", "-f", "json", BASIC, str(tmp_path), "-f", "table")
    assert run.returncode == 2
    assert "[json.string_too_long]" in run.stderr.decode() and "[harness.trace_too_large]" in run.stderr.decode()
    assert CANARY not in run.stderr.decode() + run.stdout.decode()


def _suite_dir(tmp_path: Path) -> tuple[Path, Path]:
    scenarios, traces = tmp_path / "scenarios", tmp_path / "traces"
    scenarios.mkdir()
    traces.mkdir()
    shutil.copy(BASIC, scenarios / "a_basic.yaml")
    shutil.copy(DENIED, traces / "goal_hijack.basic_001.json")
    shutil.copy(UPSTREAM / "scenarios/goal_hijack/outbound_email_exfiltration_001.yaml", scenarios / "b_outbound.yaml")
    shutil.copy(UPSTREAM / "scenarios/goal_hijack/basic.yaml", scenarios / "c_duplicate.yml")
    shutil.copy(UPSTREAM / "scenarios/memory_isolation/cross_session_leak_001.yaml", scenarios / "d_memory.yaml")
    (traces / "memory_isolation.cross_session_leak_001.json").write_text(f'{{"a": 1, "a": "{CANARY}"}}')
    (scenarios / "e_invalid.yaml").write_text(f"id: {CANARY}\n")
    (scenarios / "notes.txt").write_text("not a scenario")
    return scenarios, traces


def test_suite_error_reasons_and_out_dir(tmp_path: Path) -> None:
    scenarios, traces = _suite_dir(tmp_path)
    out = tmp_path / "results"
    run = run_cli("check", "-f", "json", "--suite", str(scenarios), "--trace-dir", str(traces), "--out-dir", str(out))
    assert run.returncode == 2  # an invalid scenario and an invalid trace: unreadable input
    doc = json.loads(run.stdout)
    reasons = [(Path(e["scenario_path"]).name, e["result"], e.get("error_reason")) for e in doc["scenarios"]]
    assert reasons == [
        ("a_basic.yaml", "fail", None),
        ("b_outbound.yaml", "error", "missing_trace"),
        ("c_duplicate.yml", "error", "duplicate_scenario_id"),
        ("d_memory.yaml", "error", "invalid_trace"),
        ("e_invalid.yaml", "error", "invalid_scenario"),
    ]
    assert doc["result"] == "fail"
    assert doc["counts"] == {"total": 5, "pass": 0, "fail": 1, "error": 4, "not_run": 0}
    assert doc["scenarios"][3]["detail"] == {"code": "json.duplicate_key"}
    assert sorted(p.name for p in out.iterdir()) == ["goal_hijack.basic_001.json", "summary.json"]
    assert json.loads((out / "summary.json").read_text()) == doc
    stderr = run.stderr.decode()
    assert stderr.endswith("tracekit check: 5 scenarios, 0 pass, 1 fail, 4 error, 0 not_run\n")
    assert CANARY not in stderr and CANARY not in run.stdout.decode()
    again = run_cli("check", "-f", "json", "--suite", str(scenarios), "--trace-dir", str(traces), "--out-dir", str(out))
    assert again.returncode == 2 and b"cli.output_exists" in again.stderr


def test_suite_exit_on_fail_and_missing_inputs(tmp_path: Path) -> None:
    scenarios, traces = tmp_path / "s", tmp_path / "t"
    scenarios.mkdir()
    traces.mkdir()
    shutil.copy(BASIC, scenarios / "basic.yaml")
    shutil.copy(CLEAN, traces / "goal_hijack.basic_001.json")
    assert invoke("--suite", str(scenarios), "--trace-dir", str(traces), "--exit-on-fail", "-q").exit_code == 0
    shutil.copy(DENIED, traces / "goal_hijack.basic_001.json")
    assert invoke("--suite", str(scenarios), "--trace-dir", str(traces), "--exit-on-fail", "-q").exit_code == 1
    missing = invoke("--suite", str(scenarios), "--trace-dir", str(tmp_path / "nope"))
    assert missing.exit_code == 2 and "harness.trace_dir_missing" in missing.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = invoke("--suite", str(empty), "--trace-dir", str(traces))
    assert nothing.exit_code == 2 and "cli.no_input" in nothing.stderr


def test_suite_formats(tmp_path: Path) -> None:
    """docs/harness.md, "Results and output formats": a suite's JUnit and SARIF take check's findings
    shape, one scenario and trace at a time; a scenario not judged is an error at the file it
    stopped at."""
    scenarios, traces = _suite_dir(tmp_path)
    suite = ("--suite", str(scenarios), "--trace-dir", str(traces), "-q")
    junit_text = invoke(*suite, "--format", "junit").stdout
    junit = fromstring(junit_text)
    assert [s.get("name") for s in junit.findall("testsuite")] == [
        "tracekit check goal_hijack.basic_001", "tracekit check goal_hijack.outbound_email_exfiltration_001",
        "tracekit check goal_hijack.basic_001", "tracekit check memory_isolation.cross_session_leak_001",
        f"tracekit check {scenarios / 'e_invalid.yaml'}",
    ]
    judged = junit.findall("testsuite")[0]
    assert [c.get("name") for c in judged.iter("testcase")] == ["trace"]
    assert {p.get("name"): p.get("value") for p in judged.iter("property")} == {
        "mode": "compatible", "disagreements": "0",
    }
    errors = [(Path(c.get("name", "")).name, c[0].get("type")) for s in junit.findall("testsuite")[1:] for c in s.iter("testcase")]
    assert errors == [
        ("goal_hijack.outbound_email_exfiltration_001.json", "harness.trace_missing"),
        ("c_duplicate.yml", "harness.duplicate_scenario_id"),
        ("memory_isolation.cross_session_leak_001.json", "json.duplicate_key"),
        ("e_invalid.yaml", "harness.scenario_invalid"),
    ]
    table = invoke(*suite, "--format", "table").stdout
    assert "missing_trace" in table and "suite: fail" in table
    sarif_text = invoke(*suite, "--format", "sarif").stdout
    sarif = json.loads(sarif_text)
    [run] = sarif["runs"]
    assert run["properties"] == {"command": "check", "modes": ["harness:compatible"]}
    levels = [(r["ruleId"], r["level"]) for r in run["results"]]
    assert levels[:3] == [("no_secret_disclosure", "note"), ("no_denied_tool_call", "error"), ("goal_integrity", "error")]
    assert [rule for rule, _ in levels[3:]] == [code for _, code in errors]
    assert CANARY not in junit_text and CANARY not in sarif_text


def test_suite_junit_and_sarif_count_recorded_outcome_disagreements(tmp_path: Path) -> None:
    """The suite compares each trace's recorded outcome with the verdict, as one trace's check
    does (docs/cli.md, "Verdicts and modes"); JSON stays upstream's suite document."""
    scenario = UPSTREAM / "scenarios" / "sensitive_data_disclosure" / "email_exfiltration_001.yaml"
    doc = json.loads((UPSTREAM / "examples" / "traces" / "external_recipient_violation.json").read_text())
    scenarios, traces = tmp_path / "s", tmp_path / "t"
    scenarios.mkdir()
    traces.mkdir()
    shutil.copy(scenario, scenarios / "a.yaml")
    name = json.loads(run_cli("check", "-f", "json", str(scenario), "--dry-run").stdout)["scenario_id"] + ".json"
    args = ("check", "--suite", str(scenarios), "--trace-dir", str(traces))
    (traces / name).write_text(json.dumps(doc))
    unrecorded = run_cli(*args, "-f", "json", "-q").stdout
    for recorded, disagrees in (("pass", True), ("fail", False)):
        events = [*doc.get("events", []), {"type": "outcome", "outcome": recorded}]
        (traces / name).write_text(json.dumps({**doc, "events": events}))
        run = run_cli(*args, "-f", "json")
        assert run.stdout == unrecorded  # upstream's suite document: the same bytes either way
        assert json.loads(run.stdout)["result"] == "fail"
        assert (b"warning[audit.outcome_mismatch]" in run.stderr) is disagrees
        assert (b"1 scenarios, 0 pass, 1 fail, 0 error, 0 not_run, 1 disagree with" in run.stderr) is disagrees
        junit = fromstring(run_cli(*args, "-f", "junit", "-q").stdout)
        values = [p.get("value") for p in junit.iter("property") if p.get("name") == "disagreements"]
        assert values == [str(int(disagrees))]
        results = json.loads(run_cli(*args, "-f", "sarif", "-q").stdout)["runs"][0]["results"]
        assert ("audit.outcome_mismatch" in {r["ruleId"] for r in results}) is disagrees
    # No trace (missing_trace): whether it disagrees is not known, so no "disagreements" at all.
    junit = fromstring(run_cli("check", "-f", "junit", "--suite", str(scenarios), "--trace-dir", str(tmp_path), "-q").stdout)
    assert [p.get("name") for p in junit.iter("property")] == ["mode"]


def test_out_dir_refuses_an_id_that_would_overwrite_the_summary(tmp_path: Path) -> None:
    scenarios, traces, out = tmp_path / "s", tmp_path / "t", tmp_path / "o"
    scenarios.mkdir()
    traces.mkdir()
    (scenarios / "x.yaml").write_text(Path(BASIC).read_text().replace("id: goal_hijack.basic_001", "id: summary"))
    shutil.copy(DENIED, traces / "summary.json")
    run = invoke("--suite", str(scenarios), "--trace-dir", str(traces), "--out-dir", str(out))
    assert run.exit_code == 2 and "harness.output_name_collision" in run.stderr
    assert not out.exists()


def _shape(node: object) -> object:
    """The keys of a JSON document, recursively (lists by their first item): its shape."""
    if isinstance(node, dict):
        return {key: _shape(value) for key, value in node.items() if key not in ("properties",)}
    if isinstance(node, list):
        return [_shape(node[0])] if node else []
    return type(node).__name__


def test_junit_and_sarif_take_one_shape_for_every_format() -> None:
    """docs/harness.md, "Results and output formats": a harness trace's JUnit and SARIF have the shape of any
    other format's (report/findings_render.py), its assertions as the rows; JSON stays upstream's."""
    inspect = str(CORPUS / "third_party" / "inspect" / "tracekit_corpus.eval")
    scenario = str(CORPUS / "findings" / "exfil-email.yaml")
    harness = str(UPSTREAM / "examples" / "traces" / "external_recipient_violation.json")
    junits = [fromstring(run_cli("check", scenario, t, "-f", "junit", "-q").stdout) for t in (harness, inspect)]
    for root in junits:
        assert root.tag == "testsuites" and [s.tag for s in root] == ["testsuite"]
        assert [c.tag for c in root[0]][0] == "properties" and {c.tag for c in root[0]} == {"properties", "testcase"}
        assert all(c.get("classname", "").startswith("tracekit.check.") for c in root[0].iter("testcase"))
    assert [c.get("name") for c in junits[0].iter("testcase")] == ["trace"]
    logs = [json.loads(run_cli("check", scenario, t, "-f", "sarif", "-q").stdout) for t in (harness, inspect)]
    assert _shape(logs[0]) == _shape(logs[1])
    levels = {r["ruleId"]: r["level"] for r in logs[0]["runs"][0]["results"]}
    assert levels == {"no_external_recipient": "error", "no_secret_disclosure": "note"}  # not_run in compatible mode
    upstream = json.loads(run_cli("check", scenario, harness, "-f", "json", "-q").stdout)
    assert list(upstream) == ["assertions", "mode", "result", "scenario_id"]
