"""Renderers for the campaign store's reports (``tracekit db``): JSON (report_version 1),
a plain-text table and Markdown.

Pure ``render(report, fmt) -> str`` over the typed reports of tracekit/store/queries.py and
diff.py. Paths are relative to the campaign root (escaped for the terminal); messages are
tracekit's fixed text; nothing read from a trace is shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from tracekit.report.jsonout import dumps
from tracekit.store.diff import Diff, FindingRef
from tracekit.store.queries import Findings, Summary

REPORT_VERSION = 1
FORMATS = ("table", "json", "markdown")


def _json(kind: str, report: msgspec.Struct) -> str:
    body: dict[str, Any] = msgspec.to_builtins(report)
    return dumps({"report_version": REPORT_VERSION, "report": kind, **body})


def _path(text: str) -> str:
    from tracekit.report.text import display_path

    return display_path(text)


def _grid(rows: Sequence[Sequence[Any]], headers: Sequence[str], fmt: str) -> str:
    from tabulate import tabulate  # type: ignore[import-untyped, unused-ignore]

    if not rows:
        return "(none)"
    return str(tabulate(rows, headers=headers, tablefmt="github" if fmt == "markdown" else "simple"))


def _title(text: str, fmt: str) -> str:
    return f"## {text}" if fmt == "markdown" else f"== {text}"


def render_summary(report: Summary, fmt: str) -> str:
    """``db summary``: the latest run, per format."""
    if fmt == "json":
        return _json("summary", report)
    run = report.run
    lines = [
        _title(f"run {run.run_id} ({run.status}, tracekit {run.tool_version})", fmt),
        f"files {report.files}, episodes {report.episodes}, read {run.files_audited}, "
        f"reused {run.files_reused}, skipped (not traces) {report.skipped_non_trace_files}",
        "",
    ]
    headers = ["format", "files", "episodes", "intact", "not intact", "no integrity",
               "unreadable", "rerunnable", "exit 0/1/2", "failing policies"]
    rows = [
        [name, f.files, f.episodes, f.intact, f.not_intact, f.no_integrity, f.unreadable,
         f.rerunnable, "/".join(str(f.exit_codes[k]) for k in ("0", "1", "2")),
         ", ".join(f"{p} {n}" for p, n in f.failing_policies.items()) or "-"]
        for name, f in report.by_format.items()
    ]
    lines += [_grid(rows, headers, fmt), ""]
    lines.append("findings: " + ", ".join(f"{k} {v}" for k, v in report.findings_by_severity.items()))
    gaps = [[g.format, g.field, g.missing, g.partial, "yes" if g.needed_to_rerun else "no"]
            for g in report.fields_missing_most]
    lines += ["", "fields missing most:",
              _grid(gaps, ["format", "field", "missing", "partial", "needed to rerun"], fmt)]
    return "\n".join(lines) + "\n"


def _ref(ref: FindingRef) -> str:
    line = f" line {ref.line}" if ref.line is not None else ""
    where = f" at {ref.where}" if ref.where else ""
    return f"{ref.severity}[{ref.code}] episode {ref.episode}{where}{line}"


def render_diff(report: Diff, fmt: str) -> str:
    """``db diff``: changed files with their new, fixed and changed findings."""
    if fmt == "json":
        return _json("diff", report)
    lines = [
        _title(f"diff run {report.base_run} -> run {report.head_run}", fmt),
        f"{len(report.files)} files changed, {report.unchanged} unchanged",
    ]
    bullet = "- " if fmt == "markdown" else "  "
    for item in report.files:
        lines += ["", f"{_path(item.path)}: {item.change} (exit {item.exit_before} -> "
                      f"{item.exit_after}); new {len(item.new)}, fixed {len(item.fixed)}, "
                      f"changed {len(item.changed)}"]
        lines += [f"{bullet}new   {_ref(r)}" for r in item.new]
        lines += [f"{bullet}fixed {_ref(r)}" for r in item.fixed]
        lines += [f"{bullet}changed {_ref(c.before)} -> {c.after.severity}"
                  f"{'' if c.after.line is None else f' line {c.after.line}'}"
                  for c in item.changed]
    return "\n".join(lines) + "\n"


def render_findings(report: Findings, fmt: str) -> str:
    """``db findings``: findings of the latest run, most severe first."""
    if fmt == "json":
        return _json("findings", report)
    title = f"findings of run {report.run_id}: {report.total}"
    if len(report.rows) < report.total:
        title += f" (first {len(report.rows)} shown)"
    rows = [[_path(r.path), r.format, r.episode, r.severity, r.code, r.policy,
             r.line if r.line is not None else "", r.where or ""] for r in report.rows]
    headers = ["path", "format", "episode", "severity", "code", "policy", "line", "where"]
    return "\n".join([_title(title, fmt), "", _grid(rows, headers, fmt)]) + "\n"
