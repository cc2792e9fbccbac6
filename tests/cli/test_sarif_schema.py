"""Every SARIF log tracekit writes validates against the official SARIF 2.1.0 schema
(tests/data/sarif, from oasis-tcs/sarif-spec), with URI formats checked, and its rule texts are
rendered: no ``{placeholder}`` survives, and every help and information URI is absolute."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import jsonschema
import pytest

from tests.helpers import CORPUS, FIXTURE, ROOT, run_cli

SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
INSPECT = CORPUS / "third_party" / "inspect" / "tracekit_corpus.eval"
SCENARIO = CORPUS / "findings" / "exfil-email.yaml"
HARNESS = CORPUS / "third_party" / "owasp-harness" / "examples" / "traces" / "external_recipient_violation.json"

CASES = {
    "verify-valid": ["verify", str(FIXTURE)],
    "verify-tampered": ["verify", str(CORPUS / "invalid")],
    "audit": ["audit", str(CORPUS / "third_party")],
    "replay": ["replay", str(FIXTURE)],
    "check-one": ["check", str(SCENARIO), str(INSPECT), "--strict"],
    "check-harness": ["check", str(SCENARIO), str(HARNESS)],
    "check-harness-upstream": [
        "check", str(CORPUS / "third_party" / "owasp-harness" / "scenarios" / "goal_hijack" / "basic.yaml"),
        str(CORPUS / "third_party" / "owasp-harness" / "examples" / "traces" / "denied_tool_call.json"),
    ],
    "check-refused": ["check", str(SCENARIO), str(ROOT / "no-such-trace.json")],
    "check-dry-run": ["check", str(CORPUS / "third_party" / "owasp-harness" / "scenarios" / "goal_hijack" / "basic.yaml"), "--dry-run"],
    "check-campaign": ["check", str(SCENARIO), str(CORPUS / "third_party" / "inspect")],
}


def _uris(node: object) -> list[str]:
    found: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("informationUri", "helpUri") and isinstance(value, str):
                found.append(value)
            found += _uris(value)
    elif isinstance(node, list):
        for value in node:
            found += _uris(value)
    return found


@pytest.mark.parametrize("name", sorted(CASES))
def test_sarif_validates_against_the_official_schema(name: str) -> None:
    done = run_cli(*CASES[name], "-f", "sarif")
    assert done.returncode in (0, 1, 2), done.stderr
    _valid(json.loads(done.stdout))


def test_suite_sarif_validates_against_the_official_schema(tmp_path: Path) -> None:
    """``check --suite``: a judged scenario, one without a trace, one whose trace disagrees with
    its recorded outcome, and one paired with a folder of another format, in one run."""
    upstream = CORPUS / "third_party" / "owasp-harness"
    scenarios, traces = tmp_path / "s", tmp_path / "t"
    scenarios.mkdir()
    (traces / "exfil-email").mkdir(parents=True)
    shutil.copy(upstream / "scenarios" / "goal_hijack" / "basic.yaml", scenarios / "a.yaml")
    shutil.copy(upstream / "examples" / "traces" / "denied_tool_call.json", traces / "goal_hijack.basic_001.json")
    shutil.copy(upstream / "scenarios" / "goal_hijack" / "outbound_email_exfiltration_001.yaml", scenarios / "b.yaml")
    email = upstream / "scenarios" / "sensitive_data_disclosure" / "email_exfiltration_001.yaml"
    shutil.copy(email, scenarios / "c.yaml")
    doc = json.loads(HARNESS.read_text())
    doc["events"] = [*doc.get("events", []), {"type": "outcome", "outcome": "pass"}]
    (traces / "sensitive_data_disclosure.email_exfiltration_001.json").write_text(json.dumps(doc))
    shutil.copy(SCENARIO, scenarios / "d.yaml")
    shutil.copy(INSPECT, traces / "exfil-email" / "inspect.eval")
    done = run_cli("check", "--suite", str(scenarios), "--trace-dir", str(traces), "-f", "sarif", "-q")
    assert done.returncode == 0, done.stderr
    log = json.loads(done.stdout)
    _valid(log)
    [run] = log["runs"]
    assert run["properties"]["modes"] == ["harness:compatible", "inspect:strict"]
    rules = {r["ruleId"] for r in run["results"]}
    assert {"harness.trace_missing", "audit.outcome_mismatch", "goal_integrity"} <= rules


def _valid(log: object) -> None:
    validator = jsonschema.Draft7Validator(SCHEMA, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    errors = [e.message for e in validator.iter_errors(log)]
    assert errors == []
    rules = [rule for run in log["runs"] for rule in run["tool"]["driver"].get("rules", [])]
    for rule in rules:
        assert not re.search(r"\{\w+\}", json.dumps(rule)), rule
    uris = _uris(log)
    assert uris, "a SARIF log names where its rules are documented"
    assert all(re.match(r"https://", uri) for uri in uris), uris
