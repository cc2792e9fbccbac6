"""Renderers for the campaign store's reports (``tracekit db`` and ``tracekit audit --db``):
JSON (``report_version``), a plain-text table and Markdown; JUnit and SARIF for an audit run.

Pure renderers over the typed reports of tracekit/store/queries.py, diff.py and export.py,
registered per format. Paths are relative to the campaign root (escaped for the terminal, and
for Markdown through ``md_escape``); messages are tracekit's fixed text; nothing read from a
trace is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from tracekit import REPORT_VERSION
from tracekit.report.findings import FindingRow, TraceFindings, render_junit, render_sarif
from tracekit.report.jsonout import dumps_struct
from tracekit.report.text import display_path, md_escape, md_table, table
from tracekit.store.diff import Diff, FindingRef
from tracekit.store.export import ExportReport
from tracekit.store.queries import FileFindings, Findings, Runs, Summary

FORMATS = ("table", "json", "markdown")


def _json(kind: str, report: msgspec.Struct) -> str:
    return dumps_struct(report, report_version=REPORT_VERSION, report=kind)


def _grid(rows: Sequence[Sequence[Any]], headers: Sequence[str], fmt: str) -> list[str]:
    if not rows:
        return ["(none)"]
    if fmt == "markdown":
        return md_table(headers, rows)
    return [table(rows, headers)]


def _title(text: str, fmt: str) -> str:
    return f"## {md_escape(text)}" if fmt == "markdown" else f"== {text}"


def _text(text: str, fmt: str) -> str:
    return md_escape(text) if fmt == "markdown" else text


def _summary(report: Summary, fmt: str) -> str:
    run = report.run
    lines = [
        _title(f"run {run.run_id} ({run.status}, tracekit {run.tool_version})", fmt),
        "",
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
    lines += [*_grid(rows, headers, fmt), ""]
    lines.append("findings: " + ", ".join(f"{k} {v}" for k, v in report.findings_by_severity.items()))
    gaps = [[g.format, g.field, g.missing, g.partial, "yes" if g.needed_to_rerun else "no"]
            for g in report.fields_missing_most]
    lines += ["", "fields missing most:", "",
              *_grid(gaps, ["format", "field", "missing", "partial", "needed to rerun"], fmt)]
    return "\n".join(lines) + "\n"


def _ref(ref: FindingRef) -> str:
    line = f" line {ref.line}" if ref.line is not None else ""
    where = f" at {ref.where}" if ref.where else ""
    named = f" ({ref.episode_id})" if ref.episode_id else ""
    return f"{ref.severity}[{ref.code}] episode {ref.episode}{named}{where}{line}"


_STATE = {"absent": "absent", "not_a_trace": "not a trace"}


def _exit(code: int | None, state: str) -> str:
    """An exit code, or what the run held instead (never a bare None)."""
    return f"exit {code}" if code is not None else _STATE.get(state, "no verdict")


def _diff(report: Diff, fmt: str) -> str:
    lines = [
        _title(f"diff run {report.base_run} -> run {report.head_run}", fmt),
        "",
        f"{len(report.files)} files changed, {report.unchanged} unchanged",
    ]
    if not report.same_root:
        lines.append(_text("note: the two runs audited different campaign folders (--new-root); "
                           "files are matched by their path relative to each folder", fmt))
    bullet = "- " if fmt == "markdown" else "  "
    for item in report.files:
        head = (
            f"{display_path(item.path)}: {item.change} ({_exit(item.exit_before, item.state_before)}"
            f" -> {_exit(item.exit_after, item.state_after)}); new {len(item.new)}, fixed "
            f"{len(item.fixed)}, changed {len(item.changed)}, not re-evaluated "
            f"{len(item.not_reevaluated)}, gone {len(item.gone)}"
        )
        lines += ["", _text(head, fmt)]
        for word, refs in (("new", item.new), ("fixed", item.fixed),
                           ("not re-evaluated", item.not_reevaluated), ("gone", item.gone)):
            lines += [f"{bullet}{_text(word + ' ' + _ref(r), fmt)}" for r in refs]
        for c in item.changed:
            after = f"{c.after.severity}{'' if c.after.line is None else f' line {c.after.line}'}"
            lines.append(f"{bullet}{_text(f'changed {_ref(c.before)} -> {after}', fmt)}")
    return "\n".join(lines) + "\n"


def _findings(report: Findings, fmt: str) -> str:
    title = f"findings of run {report.run_id}: {report.total}"
    if len(report.rows) < report.total:
        title += f" (first {len(report.rows)} shown)"
    rows = [[display_path(r.path), r.format, r.episode, r.episode_id or "-", r.severity, r.code,
             r.policy, r.line if r.line is not None else "", r.where or ""] for r in report.rows]
    headers = ["path", "format", "episode", "episode id", "severity", "code", "policy", "line", "where"]
    return "\n".join([_title(title, fmt), "", *_grid(rows, headers, fmt)]) + "\n"


def _export(report: ExportReport, fmt: str) -> str:
    rows = [[t.table, t.file, t.rows] for t in report.tables]
    title = f"exported {len(report.tables)} tables as {report.kind} to {display_path(report.folder)}"
    return "\n".join([_title(title, fmt), "", *_grid(rows, ["table", "file", "rows"], fmt)]) + "\n"


def _options(options: dict[str, Any]) -> str:
    """A run's options in a few words: what was given, never a digest or a folder."""
    said = []
    if options.get("scenario"):
        said.append("scenario")
    if options.get("strict"):
        said.append("strict")
    if options.get("strict_sources"):
        said.append("strict sources")
    if options.get("roots"):
        said.append(f"{len(options['roots'])} trusted root(s)")
    return ", ".join(said) or "-"


def _runs(report: Runs, fmt: str) -> str:
    rows = [
        [r.run_id, r.status, r.tool_version, r.started_at[:19], (r.ended_at or "")[:19],
         r.files_seen, r.files_audited, r.files_reused,
         "-" if r.exit_code is None else r.exit_code, _options(r.options)]
        for r in report.runs
    ]
    headers = ["run", "status", "tracekit", "started", "ended", "files", "read", "reused",
               "exit", "options"]
    title = f"{len(report.runs)} run(s)"
    return "\n".join([_title(title, fmt), "", *_grid(rows, headers, fmt)]) + "\n"


def _registry(kind: str, text: Callable[[Any, str], str]) -> dict[str, Callable[[Any], str]]:
    return {
        "table": lambda r: text(r, "table"),
        "json": lambda r: _json(kind, r),
        "markdown": lambda r: text(r, "markdown"),
    }


SUMMARY_RENDERERS: dict[str, Callable[[Summary], str]] = _registry("summary", _summary)
DIFF_RENDERERS: dict[str, Callable[[Diff], str]] = _registry("diff", _diff)
FINDINGS_RENDERERS: dict[str, Callable[[Findings], str]] = _registry("findings", _findings)
EXPORT_RENDERERS: dict[str, Callable[[ExportReport], str]] = _registry("export", _export)
RUNS_RENDERERS: dict[str, Callable[[Runs], str]] = _registry("runs", _runs)


def render_summary(report: Summary, fmt: str) -> str:
    """``db summary`` (and the report of ``audit --db``): the run, per format."""
    return SUMMARY_RENDERERS[fmt](report)


def _as_findings(files: Sequence[FileFindings]) -> list[TraceFindings]:
    return [
        TraceFindings(f.path, f.exit_code, tuple(FindingRow(x.code, x.severity, x.line, x.message) for x in f.findings))
        for f in files
    ]


def render_run(report: Summary, files: Sequence[FileFindings], fmt: str) -> str:
    """``audit --db``: the run's summary in table, JSON or Markdown; JUnit XML or SARIF over
    the run's files (one testcase, or results located at one file, per file)."""
    if fmt == "junit":
        return render_junit("audit", _as_findings(files))
    if fmt == "sarif":
        return render_sarif("audit", _as_findings(files))
    return render_summary(report, fmt)
