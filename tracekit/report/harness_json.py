"""Harness result JSON: upstream's ``run`` output shape, byte for byte where it can be.

``{assertions: [{evidence?, id, result}], mode, result, scenario_id}``, sorted keys, two-space
indent, ASCII escapes, as upstream's ``json.dumps(indent=2, sort_keys=True)``. The documents are
derived by msgspec from the typed results (:class:`~tracekit.judging.harness.model.HarnessResult`,
:class:`~tracekit.judging.harness.evaluate.SuiteResult`). The trace is echoed back only when asked
(upstream always echoes it). Strict results carry ``"semantics": "strict"`` so they cannot be
mistaken for upstream's verdicts.
"""

from __future__ import annotations

from typing import Any

import msgspec

from tracekit.formats.harness.trace import Trace
from tracekit.judging.harness.evaluate import SuiteResult
from tracekit.judging.harness.model import HarnessResult
from tracekit.report.jsonout import dumps


class EchoedResult(HarnessResult, frozen=True, omit_defaults=True):
    """A result with its trace echoed back (``--include-trace``), as upstream writes it."""

    trace: Trace | None = None
    """The trace's three lists, as loaded (upstream's ``Trace.to_dict``)."""


def document(report: msgspec.Struct) -> str:
    """Any check report Struct as byte-stable JSON text (report/jsonout.py's rules)."""
    data: dict[str, Any] = msgspec.to_builtins(report)
    return dumps(data)


def render(result: HarnessResult, trace: Trace | None = None) -> str:
    """One result as JSON text with a trailing newline; ``trace`` is included only when given."""
    if trace is None:
        return document(result)
    fields = msgspec.structs.asdict(result)
    return document(EchoedResult(**fields, trace=trace))


def render_suite(suite: SuiteResult) -> str:
    """The suite result as JSON text (upstream's ``suite_result.schema.json``)."""
    return document(suite)
