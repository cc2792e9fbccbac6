"""JUnit XML and SARIF 2.1.0 for every command whose result is pass/fail findings per trace
(verify, audit, replay; check has its own harness renderers). One typed input, two renderers.

Messages are our fixed texts and codes; the only other text is the trace's path as the user
named it, escaped for XML. Nothing is taken from trace content.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec

from tracekit.report.sarif import ArtifactLocation, Region, Text, doc_uri, rule_text
from tracekit.report.text import display_path

if TYPE_CHECKING:
    from tracekit.judging.replay.engine import ReplayReport

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {"error": "error", "warning": "warning", "notice": "note"}


class FindingRow(msgspec.Struct, frozen=True):
    """One finding: a stable code, its severity, the line it concerns and fixed text."""

    code: str
    severity: str
    line: int | None
    message: str


class TraceFindings(msgspec.Struct, frozen=True):
    """One trace's verdict as findings: exit 0 passes, 1 fails, 2 is an error."""

    path: str
    exit_code: int
    findings: tuple[FindingRow, ...]


def render_junit(command: str, traces: Sequence[TraceFindings], skipped: Sequence[tuple[str, str]] = ()) -> str:
    """One testcase per trace: a ``failure`` for exit 1, an ``error`` for exit 2, with one line
    per finding that is not informational; one ``skipped`` testcase per walked file left out
    (``skipped``: path and code; docs/cli.md, "Inputs and folders")."""
    from xml.etree.ElementTree import Element, SubElement, tostring

    from tracekit.report.harness_text import xml_safe

    failures = sum(1 for t in traces if t.exit_code == 1)
    errors = sum(1 for t in traces if t.exit_code >= 2)
    root = Element("testsuites", name=f"tracekit {command}")
    suite = SubElement(
        root, "testsuite", name=f"tracekit {command}", tests=str(len(traces)),
        failures=str(failures), errors=str(errors),
    )
    for trace in traces:
        case = SubElement(suite, "testcase", classname=f"tracekit.{command}", name=xml_safe(display_path(trace.path)))
        if trace.exit_code == 0:
            continue
        shown = [f for f in trace.findings if f.severity != "info"]
        tag = "failure" if trace.exit_code == 1 else "error"
        first = shown[0].code if shown else f"exit {trace.exit_code}"
        node = SubElement(case, tag, type=first, message=f"exit {trace.exit_code}")
        node.text = "\n".join(
            f"{f'line {f.line}: ' if f.line else ''}{f.severity}[{f.code}] {f.message}" for f in shown
        )
    for path, code in skipped:
        case = SubElement(suite, "testcase", classname=f"tracekit.{command}", name=xml_safe(display_path(path)))
        SubElement(case, "skipped", type=code, message=f"skipped: {code}")
    if skipped:
        suite.set("skipped", str(len(skipped)))
        suite.set("tests", str(len(traces) + len(skipped)))
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + tostring(root, encoding="unicode") + "\n"


class _Rule(msgspec.Struct, frozen=True):
    id: str
    shortDescription: Text  # noqa: N815 - SARIF's key
    helpUri: str  # noqa: N815 - SARIF's key


class _Physical(msgspec.Struct, frozen=True, omit_defaults=True):
    artifactLocation: ArtifactLocation  # noqa: N815 - SARIF's key
    region: Region | None = None


class _Location(msgspec.Struct, frozen=True):
    physicalLocation: _Physical  # noqa: N815 - SARIF's key


class _Result(msgspec.Struct, frozen=True):
    ruleId: str  # noqa: N815 - SARIF's key
    level: str
    message: Text
    locations: tuple[_Location, ...]


class _Driver(msgspec.Struct, frozen=True):
    name: str
    version: str
    informationUri: str  # noqa: N815 - SARIF's key
    rules: tuple[_Rule, ...]


class _Tool(msgspec.Struct, frozen=True):
    driver: _Driver


class _Properties(msgspec.Struct, frozen=True):
    command: str


class _Run(msgspec.Struct, frozen=True):
    tool: _Tool
    properties: _Properties
    results: tuple[_Result, ...]


class _Log(msgspec.Struct, frozen=True):
    schema: str = msgspec.field(name="$schema")
    version: str
    runs: tuple[_Run, ...]


def render_sarif(command: str, traces: Sequence[TraceFindings], skipped: Sequence[tuple[str, str]] = ()) -> str:
    """One SARIF run; one result per finding of severity notice or above, located at the trace
    file and line; one rule per code, described by its fixed text. A walked file left out
    (``skipped``: path and code) is one ``note`` result under its code."""
    from tracekit import __version__

    rules: dict[str, _Rule] = {}
    results: list[_Result] = []
    for trace in traces:
        for f in trace.findings:
            level = _SARIF_LEVEL.get(f.severity)
            if level is None:
                continue
            if f.code not in rules:
                rules[f.code] = _Rule(f.code, Text(rule_text(f.code)), doc_uri("error-codes.md", f.code.split(".")[0]))
            region = Region(f.line) if f.line else None
            where = _Location(_Physical(ArtifactLocation(display_path(trace.path)), region))
            results.append(_Result(f.code, level, Text(f.message), (where,)))
    for path, code in skipped:
        rules.setdefault(code, _Rule(code, Text(rule_text(code)), doc_uri("error-codes.md", code.split(".")[0])))
        where = _Location(_Physical(ArtifactLocation(display_path(path))))
        results.append(_Result(code, "note", Text(f"Skipped, not read as a trace ({code})."), (where,)))
    driver = _Driver("tracekit", __version__, doc_uri("error-codes.md"), tuple(sorted(rules.values(), key=lambda r: r.id)))
    log = _Log(SARIF_SCHEMA, "2.1.0", (_Run(_Tool(driver), _Properties(command), tuple(results)),))
    return json.dumps(msgspec.to_builtins(log), indent=2, sort_keys=True, ensure_ascii=True) + "\n"


def from_replay(path: str, report: ReplayReport, exit_code: int) -> TraceFindings:
    """A replay report as findings: the reasons it is not replayable, its notices, and one
    finding per difference (``replay.semantic`` or ``replay.divergent``, naming the field and
    check in tracekit's own terms)."""
    from tracekit.kernel.errors import Code, finding

    rows = [FindingRow(r.code.value, r.severity.value, r.line, r.message) for r in report.reasons]
    rows += [FindingRow(n.code.value, n.severity.value, n.line, n.message) for n in report.notices]
    for d in report.differences:
        code = Code.REPLAY_SEMANTIC if d.classification == "semantic" else Code.REPLAY_DIVERGENT
        base = finding(code)
        where = f" {d.scope} field {d.field}" + (f" of check {d.check}" if d.check else "")
        rows.append(FindingRow(base.code.value, base.severity.value, None, base.message + where + "."))
    return TraceFindings(path, exit_code, tuple(rows))
