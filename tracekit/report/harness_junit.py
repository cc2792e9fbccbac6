"""JUnit XML of a suite (``check --suite``) in upstream's shape (``--junit-out``): one
``<testsuite>`` per scenario with one ``<testcase>`` per assertion; fail -> ``<failure
message="assertion failed">``, error -> ``<error message="assertion error">``, not_run ->
``<skipped message="assertion not run">``, each holding the evidence. Characters XML 1.0 cannot
carry are escaped (upstream writes them raw). One harness trace's JUnit takes check's findings
shape instead (tracekit/report/harness_findings.py).
"""

from __future__ import annotations

from xml.etree.ElementTree import Element, SubElement, tostring

from tracekit.judging.harness.evaluate import SuiteEntry, SuiteResult
from tracekit.judging.harness.model import AssertionResult
from tracekit.report.harness_text import xml_safe

_STATUS = {
    "fail": ("failure", "assertion failed"),
    "error": ("error", "assertion error"),
    "not_run": ("skipped", "assertion not run"),
}


def _suite_element(name: str, assertions: tuple[AssertionResult, ...]) -> Element:
    tally = {kind: sum(1 for a in assertions if a.result == kind) for kind in _STATUS}
    suite = Element(
        "testsuite",
        {
            "name": xml_safe(name),
            "tests": str(len(assertions)),
            "failures": str(tally["fail"]),
            "errors": str(tally["error"]),
            "skipped": str(tally["not_run"]),
        },
    )
    for assertion in assertions:
        case = SubElement(suite, "testcase", {"classname": xml_safe(name), "name": xml_safe(assertion.id)})
        status = _STATUS.get(assertion.result)
        if status is not None:
            child = SubElement(case, status[0], {"message": status[1]})
            child.text = xml_safe(assertion.evidence or assertion.result)
    return suite


def _entry_element(entry: SuiteEntry) -> Element:
    if entry.assertions is not None and entry.scenario_id is not None:
        return _suite_element(entry.scenario_id, entry.assertions)
    name = entry.scenario_id if entry.scenario_id is not None else entry.scenario_path
    evidence = entry.evidence if entry.evidence is not None else str(entry.error_reason)
    return _suite_element(name, (AssertionResult(str(entry.error_reason), "error", evidence),))


def suite_testsuites(suite: SuiteResult) -> Element:
    """A suite as ``<testsuites>`` holding one ``<testsuite>`` per scenario; a scenario that
    could not be evaluated is one errored testcase named after its ``error_reason``."""
    root = Element("testsuites", {"name": "tracekit check"})
    for entry in suite.scenarios:
        root.append(_entry_element(entry))
    return root


def render_suite(suite: SuiteResult) -> str:
    """A suite as JUnit XML (:func:`suite_testsuites`)."""
    return tostring(suite_testsuites(suite), encoding="unicode") + "\n"
