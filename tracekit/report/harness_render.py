"""The renderer registry for ``tracekit check --format``: one pure module per format."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tracekit.formats.harness.trace import Trace
from tracekit.judging.harness.evaluate import SuiteResult
from tracekit.judging.harness.model import HarnessResult


@dataclass(frozen=True, slots=True)
class Renderer:
    """Renders one result (optionally with its trace) and a whole suite. ``one`` is None for
    JUnit and SARIF: one result takes check's findings shape, as every other format's file does
    (tracekit/report/harness_findings.py; docs/harness.md, "Results and output formats")."""

    one: Callable[[HarnessResult, Trace | None], str] | None
    suite: Callable[[SuiteResult], str]


def _registry() -> dict[str, Renderer]:
    from tracekit.report import (
        harness_json,
        harness_junit,
        harness_markdown,
        harness_sarif,
        harness_table,
    )

    return {
        "json": Renderer(harness_json.render, harness_json.render_suite),
        "table": Renderer(lambda r, _t: harness_table.render(r), harness_table.render_suite),
        "markdown": Renderer(lambda r, _t: harness_markdown.render(r), harness_markdown.render_suite),
        "junit": Renderer(None, harness_junit.render_suite),
        "sarif": Renderer(None, harness_sarif.render_suite),
    }


RENDERERS: dict[str, Renderer] = _registry()
