"""How an input that cannot be read reaches a command's output (docs/cli.md, "Inputs and
folders"): besides the diagnostic on stderr, every machine format gets a document that says so,
so a CI job publishing the file finds a red entry, never no file.

The document is the command's findings shape (the one verify writes for an unreadable trace):
JUnit XML with one ``<error>`` testcase, SARIF with error results, or JSON whose head says
``command``, ``report_version`` and ``exit_code`` 2 and lists the findings. Messages are the
findings' fixed text; the path is the one the user gave.
"""

from __future__ import annotations

from collections.abc import Sequence

from tracekit.kernel.errors import ExitCode, Finding

MACHINE_FORMATS = ("json", "junit", "sarif")
"""The output formats that always get a document, even on bad input."""


def error_document(command: str, format: str, path: str, found: Sequence[Finding]) -> str | None:
    """The document of ``command`` for an input ``path`` refused with ``found``, or None for a
    human format (table, markdown: the diagnostics on stderr say it)."""
    from tracekit import REPORT_VERSION
    from tracekit.report import findings, jsonout

    rows = tuple(findings.FindingRow(f.code.value, f.severity.value, f.line, f.message) for f in found)
    traces = [findings.TraceFindings(path, int(ExitCode.ERROR), rows)]
    if format == "junit":
        return findings.render_junit(command, traces)
    if format == "sarif":
        return findings.render_sarif(command, traces)
    if format == "json":
        return jsonout.dumps_struct(
            {"inputs": traces, "result": "error"},
            command=command, report_version=REPORT_VERSION, exit_code=int(ExitCode.ERROR),
        )
    return None
