"""``tracekit replayability`` and ``tracekit replay`` (docs/replay.md, docs/cli.md).

Exit codes, as upstream's ``trace replayability`` / ``trace replay``:

* replayability: 0 replayable, 1 intact but not replayable (reasons listed), 2 invalid;
* replay: 0 exact (or any equivalence with ``--allow-divergence``; ``--no-require-equivalence``
  is its hidden old spelling),
  1 semantic or divergent while equivalence is required, 2 invalid, not replayable, or an output
  that exists without ``--force``.

Output files are written only after the verdict is computed, atomically, never through a symlink
and never over an existing file without ``--force``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer

from tracekit.cli.common import (
    EXIT_ERROR,
    EXIT_FAIL,
    EXIT_OK,
    FindingsFormat,
    Format,
    InputFormat,
    diag,
    parse_roots,
    refuse_folder,
)
from tracekit.cli.options import (
    FINDINGS_FORMAT,
    FORCE,
    FORMAT,
    INPUT_FORMAT,
    OUTPUT,
    QUIET,
    TRUSTED_ROOT,
    Command,
)
from tracekit.cli.sink import check_folder, check_target, emit, make_folder, write_files
from tracekit.kernel.errors import Code, Finding, Severity, TracekitError, finding
from tracekit.report.jsonout import set_head

if TYPE_CHECKING:
    from tracekit.judging.replay import ReplayReport

OUTPUT_NAMES = ("replay.json", "replay.md")


class _Refused(Exception):
    """The trace cannot be replayed at all: its findings, each with where it applies."""

    def __init__(self, *found: tuple[Finding, str | None]) -> None:
        super().__init__("refused")
        self.found = found


def _replay_report(
    path: str, strict_sources: bool, trusted_root: list[str] | None, input_format: InputFormat | None
) -> ReplayReport:
    """Detect, verify, then replay ``path`` (docs/formats.md, "Using it from the command line").

    Raise :class:`_Refused` with ``format.unknown`` when no format accepts the file, with
    ``replay.format_not_replayable`` for a file of another format (replay recomputes AgentGuard
    policy verdicts only), and with the verify diagnostics when the trace is not intact."""
    from tracekit.cli.trace_input import opened, unknown, verify_opened
    from tracekit.formats.agentguard.verify import VerifyOptions
    from tracekit.judging.replay import replay
    from tracekit.judging.replay.grouping import EventGroups

    refuse_folder(path)
    # Replay folds the events as verify streams them past instead of keeping them all
    # (tracekit/judging/replay/grouping.py; docs/performance.md).
    events = EventGroups()
    options = VerifyOptions(
        observe=events.add, strict_sources=strict_sources, trusted_roots=parse_roots(trusted_root)
    )
    invalid = (finding(Code.REPLAY_TRACE_INVALID), None)
    try:
        with opened(path, None if input_format is None else input_format.value) as source:
            if source.format is None:
                raise _Refused((unknown().finding, path))
            if source.format != "agentguard":
                raise _Refused((finding(Code.REPLAY_FORMAT_NOT_REPLAYABLE, format=source.format), None))
            verified = verify_opened(path, source, options)
    except TracekitError as error:
        raise _Refused((error.finding, path), invalid) from None
    if not verified.intact:
        errors = [(found, path) for found in verified.findings if found.severity is Severity.ERROR]
        raise _Refused(*errors, invalid)
    return replay(verified, strict_sources=strict_sources, events=events)


def _checked_report(
    path: str, strict_sources: bool, trusted_root: list[str] | None, input_format: InputFormat | None,
    document: tuple[str, str, Path | None, bool] | None = None,
) -> ReplayReport:
    """:func:`_replay_report`, or exit 2 after the diagnostics and, for a machine ``document``
    format (command, format, output, force), a document saying the trace was refused
    (docs/cli.md, "Inputs and folders")."""
    from tracekit.cli.input_errors import error_document

    try:
        return _replay_report(path, strict_sources, trusted_root, input_format)
    except _Refused as refused:
        if document is not None:
            command, format, output, force = document
            text = error_document(command, format, path, [found for found, _ in refused.found])
            if text is not None:
                emit(text, output, force)
        for found, where in refused.found:
            diag(found, where)
        raise typer.Exit(EXIT_ERROR) from None


def _findings(format: FindingsFormat, path: str, report: ReplayReport, code: int) -> str:
    from tracekit.report import findings

    rows = [findings.from_replay(path, report, code)]
    from tracekit.report.events import EVENT_FORMATS, render_events

    if format in EVENT_FORMATS:
        return render_events(format, "replay", rows)
    if format is FindingsFormat.junit:
        return findings.render_junit("replay", rows)
    return findings.render_sarif("replay", rows)


STRICT_SOURCES = typer.Option(
    False, "--strict-sources", help="A changed or unavailable source makes the trace not replayable."
)


def replayability(
    path: str = typer.Argument(..., metavar="TRACE", help="A trace file, or - for stdin."),
    format: Format = FORMAT,
    input_format: InputFormat = INPUT_FORMAT,
    strict_sources: bool = STRICT_SOURCES,
    trusted_root: list[str] = TRUSTED_ROOT,
    output: Path = OUTPUT,
    force: bool = FORCE,
    quiet: bool = QUIET,
) -> None:
    """Can the trace be replayed offline? Exit 0 yes, 1 intact but not replayable, 2 invalid."""
    from tracekit.report.replay_render import (
        render_replayability_json,
        render_replayability_markdown,
        render_replayability_table,
        replayability_summary_line,
    )

    if output is not None:
        check_target(output, force)
    report = _checked_report(path, strict_sources, trusted_root, input_format, ("replayability", format.value, output, force))
    renderers = {
        Format.json: render_replayability_json,
        Format.table: render_replayability_table,
        Format.markdown: render_replayability_markdown,
    }
    set_head(exit_code=EXIT_OK if report.replayable else EXIT_FAIL)
    emit(renderers[format](report), output, force)
    if not quiet:
        print(replayability_summary_line(report), file=sys.stderr)
    raise typer.Exit(EXIT_OK if report.replayable else EXIT_FAIL)


def replay(
    path: str = typer.Argument(..., metavar="TRACE", help="A trace file, or - for stdin."),
    format: FindingsFormat = FINDINGS_FORMAT,
    input_format: InputFormat = INPUT_FORMAT,
    output_dir: Path = typer.Option(
        None, "--output-dir", metavar="DIR", help="Also write replay.json and replay.md into this folder."
    ),
    output: Path = OUTPUT,
    force: bool = FORCE,
    strict_sources: bool = STRICT_SOURCES,
    allow_divergence: bool = typer.Option(
        False,
        "--allow-divergence",
        help="Exit 0 even when the replay is semantic or divergent.",
    ),
    no_require_equivalence: bool = typer.Option(
        False, "--no-require-equivalence", hidden=True, help="Old spelling of --allow-divergence."
    ),
    require_equivalence: bool = typer.Option(
        False, "--require-equivalence", hidden=True, help="The default; kept for old scripts."
    ),
    trusted_root: list[str] = TRUSTED_ROOT,
    quiet: bool = QUIET,
) -> None:
    """Recompute the policy verdict from the trace alone and compare it with the recorded one."""
    if output is not None:
        check_target(output, force)
    if output_dir is not None:
        check_folder(output_dir, OUTPUT_NAMES, force)
    report = _checked_report(path, strict_sources, trusted_root, input_format, ("replay", format.value, output, force))
    if not report.replayable:
        _not_replayable(path, report, format, output, force, quiet)
    exact = report.equivalence == "exact"
    code = EXIT_OK if exact or allow_divergence or no_require_equivalence else EXIT_FAIL
    set_head(exit_code=code)
    emit(_rendered(path, report, format, code), output, force)
    if output_dir is not None:
        _write_folder(output_dir, report, force)
    if not quiet:
        from tracekit.report.replay_render import summary_line

        print(summary_line(report, code), file=sys.stderr)
    raise typer.Exit(code)


def _not_replayable(
    path: str, report: ReplayReport, format: FindingsFormat, output: Path | None, force: bool, quiet: bool
) -> NoReturn:
    """A trace that cannot be replayed: the report (JSON and findings formats), its reasons on
    stderr, exit 2."""
    from tracekit.report.replay_render import render_json, summary_line

    set_head(exit_code=EXIT_ERROR)
    if format is FindingsFormat.json:
        emit(render_json(report), output, force)
    elif format in (FindingsFormat.junit, FindingsFormat.sarif, FindingsFormat.ocsf, FindingsFormat.otlp):
        emit(_findings(format, path, report, EXIT_ERROR), output, force)
    for reason in report.reasons:
        diag(reason, path)
    if not quiet:
        print(summary_line(report, EXIT_ERROR), file=sys.stderr)
    raise typer.Exit(EXIT_ERROR)


def _rendered(path: str, report: ReplayReport, format: FindingsFormat, code: int) -> str:
    from tracekit.report.replay_render import render_json, render_markdown, render_table

    if format in (FindingsFormat.junit, FindingsFormat.sarif, FindingsFormat.ocsf, FindingsFormat.otlp):
        return _findings(format, path, report, code)
    renderers = {
        FindingsFormat.json: render_json,
        FindingsFormat.table: render_table,
        FindingsFormat.markdown: render_markdown,
    }
    return renderers[format](report)


def _write_folder(output_dir: Path, report: ReplayReport, force: bool) -> None:
    """``--output-dir``: replay.json and replay.md."""
    from tracekit.report.replay_render import render_json, render_markdown

    make_folder(output_dir)
    write_files(
        [
            (output_dir / "replay.json", render_json(report).encode("utf-8")),
            (output_dir / "replay.md", render_markdown(report).encode("utf-8")),
        ],
        force,
    )


def register(app: typer.Typer) -> None:
    """Add replayability and replay to the app."""
    app.command("replayability", cls=Command)(replayability)
    app.command("replay", cls=Command)(replay)
