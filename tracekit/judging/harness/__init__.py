"""OWASP Agent Security Regression Harness traces: load, validate and judge them offline.

``tracekit check`` (docs/harness.md) re-evaluates upstream's scenario assertions against
recorded ``{messages, tool_calls, events}`` traces, reproducing upstream's verdicts and evidence
in compatible mode and closing documented gaps in strict mode. Everything here is pure: bytes in,
results out; only ``tracekit.cli.check_cmd`` touches files.
"""

from __future__ import annotations

from tracekit.formats.harness.trace import Trace, parse_trace
from tracekit.judging.harness.evaluate import SuiteEntry, SuiteResult, dry_run, evaluate, run_suite
from tracekit.judging.harness.model import AssertionResult, HarnessResult, Outcome, aggregate, gates
from tracekit.judging.harness.scenario import Scenario, parse_scenario, validate_scenario

__all__ = [
    "AssertionResult",
    "HarnessResult",
    "Outcome",
    "Scenario",
    "SuiteEntry",
    "SuiteResult",
    "Trace",
    "aggregate",
    "dry_run",
    "evaluate",
    "gates",
    "parse_scenario",
    "parse_trace",
    "run_suite",
    "validate_scenario",
]
