"""``tracekit report``: one self-contained, inert HTML forensic report (docs/report.md).

Every input file goes through the pipelines the other commands use, one file at a time: a sealed
bundle through the bundle verifier (``verify``), a trace through the audit (``audit``: integrity,
completeness, findings), its evidence through the format readers and, with ``--scenario``, each
episode through ``check``'s judge (verdicts and provenance). The page keeps only a bounded, folded
view of each (tracekit/report/html/build.py); Jinja2 is imported by the renderer, which only this
command loads.

Exit codes: 0 every file clean; 1 some finding of severity warning or above (as ``audit``), or a
bundle intact but with a warning; 2 a file unreadable, unknown, not intact or a bad bundle, or
the command line, scenario or output unusable. The report is written in every case but the last
three.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from tracekit.cli.common import (
    EXIT_ERROR,
    TRACE_SUFFIXES,
    InputFormat,
    absolute,
    collect_inputs,
    diag,
    fail,
    parse_roots,
    worst,
)
from tracekit.cli.options import FORCE, INPUT_FORMAT, QUIET, TRUSTED_ROOT, Command
from tracekit.cli.sink import check_target, emit
from tracekit.kernel.errors import Code, TracekitError

if TYPE_CHECKING:
    from tracekit.cli.audit_io import AuditOptions
    from tracekit.judging.audit.model import AuditReport
    from tracekit.judging.findings.judge import EpisodeVerdict
    from tracekit.judging.harness.scenario import Scenario
    from tracekit.kernel.evidence import Episode
    from tracekit.report.html.build import Judged, PageBuilder

BUNDLE_SUFFIX = ".tkb"
"""Sealed bundles (docs/bundle-format.md), walked for next to the trace suffixes."""


def _scenario(path: Path | None) -> tuple[bytes | None, Scenario | None]:
    """The scenario's bytes and parsed form, validated once; exit 2 with its finding if not."""
    if path is None:
        return None, None
    from tracekit.cli.check_io import scenario_or_exit

    return scenario_or_exit(path)


def _judged(scenario: Scenario | None, episodes: tuple[Episode, ...], strict: bool) -> Judged:
    """``check``'s verdict (or refusal) for each episode, keyed by the episode's own id."""
    if scenario is None:
        return {}
    from tracekit.cli.findings_io import judge

    out: dict[str, EpisodeVerdict | Code] = {}
    for episode in episodes:
        out.setdefault(episode.id, judge(scenario, episode, strict))
    return out


WHOLE = ("agentguard", "harness")
"""Formats whose evidence is read whole, after their audit (each is one trace of bounded size)."""


def _trace(page: PageBuilder, path: str, named: bool, opts: AuditOptions, scenario: Scenario | None, strict: bool) -> None:
    """One trace file: audited, its evidence read and judged, folded into the page. An imported
    file's episodes are folded as the audit reads them (one read; none kept: docs/report.md)."""
    from functools import partial

    from tracekit.cli.audit_io import AuditJob, audit_each, only_episode

    fold = page.fold(None if scenario is None else partial(_judge, scenario, strict))
    audit = audit_each(AuditJob(path, absolute(path), named, opts), fold.add)
    if audit is None:
        page.skipped(path)
        return
    if audit.format in WHOLE:
        _whole(page, path, audit, opts, scenario, strict)
        return
    if opts.episode is not None and not only_episode(audit, opts.episode, fold.count):
        fail(Code.FINDINGS_NO_EPISODE)
    page.folded(audit, fold if audit.readable else None)


def _judge(scenario: Scenario, strict: bool, episode: Episode) -> EpisodeVerdict | Code:
    from tracekit.cli.findings_io import judge

    return judge(scenario, episode, strict)


def _whole(page: PageBuilder, path: str, audit: AuditReport, opts: AuditOptions, scenario: Scenario | None, strict: bool) -> None:
    """An AgentGuard or harness trace: its evidence read whole after its audit."""
    import msgspec

    from tracekit.cli.audit_io import only_episode
    from tracekit.cli.findings_io import load
    from tracekit.judging.audit import with_episodes
    from tracekit.kernel.episode_id import names

    audit = with_episodes(audit)
    if opts.episode is not None and not only_episode(audit, opts.episode):
        fail(Code.FINDINGS_NO_EPISODE)
    evidence = None
    if audit.readable and audit.intact is not False:
        try:
            evidence = load(absolute(path), opts.input_format)
        except TracekitError as error:  # audit read it; a second read failing is still reported
            audit = msgspec.structs.replace(audit, readable=False, exit_code=EXIT_ERROR)
            diag(error.finding, "trace")
    if evidence is not None and opts.episode is not None:  # docs/cli.md, "Episode ids"
        chosen = tuple(e for e in evidence.episodes if names(opts.episode, e.id))
        evidence = msgspec.structs.replace(evidence, episodes=chosen)
    page.trace(audit, evidence, _judged(scenario, evidence.episodes if evidence else (), strict))


def _bundle(page: PageBuilder, path: str, trusted: list[bytes]) -> None:
    from tracekit.cli.bundle_io import verify_path
    from tracekit.report.bundle_render import bundle_check

    page.bundle(bundle_check(path, verify_path(path, trusted)))


def report(
    paths: list[str] = typer.Argument(
        ..., metavar="INPUT...", help="Traces of any format, folders (campaigns) or sealed bundles (.tkb)."
    ),
    output: Path = typer.Option(..., "--output", "-o", metavar="FILE", help="The HTML file to write."),
    scenario: Path = typer.Option(
        None, "--scenario", metavar="FILE", help="Scenario YAML: judge every episode (verdicts, provenance chains)."
    ),
    strict: bool = typer.Option(False, "--strict", help="tracekit's stricter semantics (docs/harness.md)."),
    trusted_key: list[str] = typer.Option(
        None, "--trusted-key", metavar="FILE", help="Bundles: a trusted Ed25519 public key file (PEM); repeatable."
    ),
    input_format: InputFormat = INPUT_FORMAT,
    trusted_root: list[str] = TRUSTED_ROOT,
    force: bool = FORCE,
    quiet: bool = QUIET,
    episode: str = typer.Option(None, "--episode", metavar="ID", help="Report only this episode of TRACE (ids: tracekit show TRACE)."),
) -> None:
    """Write one self-contained HTML report: exit 0 clean, 1 findings, 2 an input unusable."""
    from tracekit.cli.audit_io import AuditOptions
    from tracekit.cli.bundle_io import is_bundle, trusted_keys
    from tracekit.report.html.build import PageBuilder
    from tracekit.report.html.render import render

    check_target(output, force)
    if "-" in paths:
        fail(Code.CLI_OPTION_CONFLICT, option="Standard input (-)", other="tracekit report")
    data, parsed = _scenario(scenario)
    trusted = trusted_keys(trusted_key)
    roots = tuple((k, str(v.resolve())) for k, v in parse_roots(trusted_root).items())
    forced = None if input_format is None else input_format.value
    if episode is not None and (len(paths) != 1 or Path(paths[0]).is_dir() or paths[0].endswith(BUNDLE_SUFFIX)):
        fail(Code.CLI_OPTION_NEEDS, option="--episode", other="exactly one TRACE file")
    opts = AuditOptions(False, roots, data, forced, episode=episode)
    inputs = collect_inputs(paths, (*TRACE_SUFFIXES, BUNDLE_SUFFIX))
    if not inputs.files:
        inputs.note()
        fail(Code.CLI_NO_INPUT)
    named = set(paths)
    page = PageBuilder(None if parsed is None else parsed.id, strict)
    for path in inputs.files:
        if is_bundle(path):
            _bundle(page, path, trusted)
        else:
            _trace(page, path, path in named, opts, parsed, strict)
    built = page.page()
    emit(render(built), output, force)
    if not quiet:
        print(
            f"tracekit report: {len(built.files) + built.files_folded} file(s), "
            f"{len(built.episodes) + built.episodes_folded} episode(s); exit {built.exit_code}",
            file=sys.stderr,
        )
    raise typer.Exit(worst(built.exit_code, inputs.note()))


def register(app: typer.Typer) -> None:
    """Add ``report`` to the app."""
    app.command("report", cls=Command)(report)
