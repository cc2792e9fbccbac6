"""Harness result JSON: upstream's ``run`` output shape, byte for byte where it can be.

``{assertions: [{evidence?, id, result}], mode, result, scenario_id}``, sorted keys, two-space
indent, ASCII escapes, as upstream's ``json.dumps(indent=2, sort_keys=True)``. The trace is
echoed back only when asked (upstream always echoes it). Strict results add
``"semantics": "strict"`` so they cannot be mistaken for upstream's verdicts.
"""

from __future__ import annotations

from typing import Any

from tracekit.harness.evaluate import SuiteResult
from tracekit.harness.model import HarnessResult
from tracekit.harness.trace import Trace
from tracekit.report.jsonout import dumps


def result_dict(result: HarnessResult, trace: Trace | None = None) -> dict[str, Any]:
    """The JSON form of one result; ``trace`` is included only when given."""
    data: dict[str, Any] = {
        "scenario_id": result.scenario_id,
        "mode": result.mode,
        "result": result.result,
        "assertions": [a.as_dict() for a in result.assertions],
    }
    if trace is not None:
        data["trace"] = trace.as_dict()
    if result.strict:
        data["semantics"] = "strict"
    return data


def render(result: HarnessResult, trace: Trace | None = None) -> str:
    """One result as JSON text with a trailing newline."""
    return dumps(result_dict(result, trace))


def render_suite(suite: SuiteResult) -> str:
    """The suite result as JSON text (upstream's ``suite_result.schema.json``)."""
    return dumps(suite.as_dict())
