"""Shared helpers for the audit tests: audit a file the way the CLI does, without a subprocess."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.helpers import CORPUS
from tracekit.formats import registry
from tracekit.formats.agentguard.verify import VerifyOptions, verify_bytes, verify_file
from tracekit.formats.agentguard.writer import DraftTrace, write_trace
from tracekit.judging.audit import AuditReport, audit_agentguard, audit_harness
from tracekit.judging.harness.scenario import Scenario, parse_scenario

AUDIT = CORPUS / "audit"
HARNESS_THIRD_PARTY = CORPUS / "third_party" / "owasp-harness"


def audit_file(path: Path, scenario: Scenario | None = None) -> AuditReport:
    """Detect ``path``'s format as the CLI does and audit it with the matching engine."""
    data = path.read_bytes()
    found = registry.detect(data, path.suffix)
    if found is not None and found.name == "agentguard":
        return audit_agentguard(verify_file(path, VerifyOptions(keep_events=True)))
    assert found is not None and found.name == "harness", path
    return audit_harness(str(path), data, scenario)


def audit_draft(draft: DraftTrace) -> AuditReport:
    """Write ``draft`` with every hash recomputed, verify it and audit it."""
    report = verify_bytes(write_trace(draft), VerifyOptions(keep_events=True))
    assert report.exit_code == 0, [f.code for f in report.findings]
    return audit_agentguard(report)


def audit_harness_value(value: dict[str, Any], scenario: Scenario | None = None) -> AuditReport:
    """Audit a harness trace given as a Python value."""
    return audit_harness("trace.json", json.dumps(value).encode("utf-8"), scenario)


def scenario(relative: str) -> Scenario:
    """A scenario from the bundled upstream harness data."""
    return parse_scenario((HARNESS_THIRD_PARTY / "scenarios" / relative).read_bytes())


def expected(folder: str) -> dict[str, dict[str, Any]]:
    """The ``audit`` expectation of every case in ``corpus/audit/<folder>``."""
    manifest = json.loads((AUDIT / folder / "expected.json").read_text())
    return {name: entry["audit"] for name, entry in manifest.items()}


def codes(report: AuditReport, serious: bool = False) -> list[str]:
    """Finding codes (only warning and error with ``serious``)."""
    return [
        f.code.value
        for f in report.findings
        if not serious or f.severity.value in ("warning", "error")
    ]
