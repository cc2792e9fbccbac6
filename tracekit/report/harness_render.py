"""The renderer registry for ``tracekit check --format``: one pure module per format."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tracekit.formats.harness.trace import Trace
from tracekit.judging.harness.evaluate import SuiteResult
from tracekit.judging.harness.model import HarnessResult


@dataclass(frozen=True, slots=True)
class Renderer:
    """Renders one result (optionally with its trace) and a whole suite. Both are None for
    JUnit and SARIF: a harness result and a suite take check's findings shape, as every other
    format's file does (tracekit/report/harness_findings.py; docs/harness.md, "Results and
    output formats")."""

    one: Callable[[HarnessResult, Trace | None], str] | None
    suite: Callable[[SuiteResult], str] | None


def _registry() -> dict[str, Renderer]:
    from tracekit.report import (
        harness_json,
        harness_markdown,
        harness_table,
    )

    return {
        "json": Renderer(harness_json.render, harness_json.render_suite),
        "table": Renderer(lambda r, _t: harness_table.render(r), harness_table.render_suite),
        "markdown": Renderer(lambda r, _t: harness_markdown.render(r), harness_markdown.render_suite),
        "junit": Renderer(None, None),
        "sarif": Renderer(None, None),
    }


RENDERERS: dict[str, Renderer] = _registry()
