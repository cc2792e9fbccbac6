"""SARIF 2.1.0 in upstream's shape (``--sarif-out``).

Only ``fail`` (level ``error``) and ``error`` (level ``warning``) assertions become results;
``ruleId`` is ``agent-harness/<assertion id>``, as upstream, so code-scanning alerts line up
with upstream's; ``locations`` is empty; properties carry scenario id, assertion id, result and
evidence; the run carries ``{scenario_id, mode, overall_result}``. The driver is tracekit.
"""

from __future__ import annotations

import json
from typing import Any

from tracekit import __version__
from tracekit.harness.evaluate import SuiteResult
from tracekit.harness.model import AssertionResult, HarnessResult

SCHEMA = "https://schemastore.azurewebsites.net/schemas/json/sarif-2.1.0-rtm.5.json"
_LEVEL = {"fail": "error", "error": "warning"}


def _rule(rule_id: str, name: str) -> dict[str, Any]:
    return {
        "id": rule_id,
        "name": name,
        "shortDescription": {"text": f"Security assertion: {name}"},
        "properties": {"tags": ["security", "regression"]},
    }


def _results(scenario_id: str, assertions: tuple[AssertionResult, ...], rules: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for assertion in assertions:
        level = _LEVEL.get(assertion.result)
        if level is None:
            continue
        rule_id = f"agent-harness/{assertion.id}"
        rules.setdefault(rule_id, _rule(rule_id, assertion.id))
        text = f"Scenario '{scenario_id}' assertion '{assertion.id}' {assertion.result}"
        if assertion.evidence:
            text += f": {assertion.evidence}"
        found.append(
            {
                "ruleId": rule_id,
                "level": level,
                "message": {"text": text},
                "properties": {
                    "scenario_id": scenario_id,
                    "assertion_id": assertion.id,
                    "result": assertion.result,
                    "evidence": assertion.evidence,
                },
                "locations": [],
            }
        )
    return found


def _document(results: list[dict[str, Any]], rules: dict[str, Any], properties: dict[str, Any]) -> str:
    driver = {"name": "tracekit", "version": __version__, "rules": list(rules.values())}
    run = {"tool": {"driver": driver}, "results": results, "properties": properties}
    return json.dumps({"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2) + "\n"


def render(result: HarnessResult) -> str:
    """One result as a SARIF log with one run."""
    rules: dict[str, Any] = {}
    results = _results(result.scenario_id, result.assertions, rules)
    properties = {"scenario_id": result.scenario_id, "mode": result.mode, "overall_result": result.result}
    return _document(results, rules, properties)


def render_suite(suite: SuiteResult) -> str:
    """A suite as one run; a scenario that could not be evaluated is an ``error`` result under
    ``agent-harness/<error_reason>``."""
    rules: dict[str, Any] = {}
    results: list[dict[str, Any]] = []
    for entry in suite.entries:
        if entry.outcome is not None:
            results += _results(entry.outcome.scenario_id, entry.outcome.assertions, rules)
        else:
            name = entry.scenario.id if entry.scenario else entry.scenario_path
            evidence = entry.finding.message if entry.finding else None
            results += _results(name, (AssertionResult(str(entry.error_reason), "error", evidence),), rules)
    return _document(results, rules, {"overall_result": suite.result, "counts": suite.counts})
