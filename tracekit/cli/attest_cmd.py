"""``tracekit attest`` and ``tracekit verify FILE.intoto.jsonl`` (docs/attest.md)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from tracekit.cli.common import TRACE_SUFFIXES, Format, collect_inputs, diag, fail
from tracekit.cli.options import FORCE, FORMAT, QUIET, Command
from tracekit.cli.sink import check_target, emit, write_atomic
from tracekit.kernel.errors import Code, ExitCode, TracekitError, worst

if TYPE_CHECKING:
    from tracekit.attest.statements import Verdict
    from tracekit.report.findings import TraceFindings

SUFFIX = ".intoto.jsonl"
"""The name ``tracekit verify`` recognises an attestation file by (docs/attest.md)."""
ATTEST_SUFFIXES = (*TRACE_SUFFIXES, ".tkb")


def _time() -> str:
    """``timeCreated``: ``SOURCE_DATE_EPOCH`` when set (reproducible builds), else now (UTC)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    seconds = int(epoch) if epoch.isdigit() else int(time.time())
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def _verdicts(paths: list[str], trusted: list[bytes], scenario: Path | None, strict: bool) -> list[Verdict]:
    """Step 1-2 of docs/attest.md "Statements": every input hashed, then its verdicts."""
    from tracekit.cli.attest_io import check_verdict, scenario_subject, subject_of, verify_verdict
    from tracekit.cli.bundle_io import is_bundle
    from tracekit.formats.base import DEFAULT_FORMAT_LIMITS

    config = None
    if scenario is not None:
        config = scenario_subject(scenario)
    verdicts: list[Verdict] = []
    for path in paths:
        bundle = is_bundle(path)
        limit = 2 * 1024**3 if bundle else DEFAULT_FORMAT_LIMITS.total_bytes
        subject = subject_of(path, path, limit)
        verdicts.append(verify_verdict(path, subject, trusted, bundle))
        if config is not None and not bundle:
            verdicts.append(check_verdict(path, subject, config[0], config[1], strict))
    return verdicts


def attest(
    paths: list[str] = typer.Argument(
        ..., metavar="INPUT...", help="Trace files, folders of traces, or bundles (.tkb)."
    ),
    output: Path = typer.Option(..., "--output", "-o", metavar="FILE", help="The attestation file (.intoto.jsonl)."),
    key: Path = typer.Option(
        None, "--key", metavar="FILE", help="Ed25519 private key (from keygen); without it the envelopes are unsigned."
    ),
    scenario: Path = typer.Option(None, "--scenario", metavar="FILE", help="Also check harness traces against this scenario."),
    strict: bool = typer.Option(False, "--strict", help="With --scenario: tracekit's stricter semantics (docs/harness.md)."),
    trusted_key: list[str] = typer.Option(
        None, "--trusted-key", metavar="FILE", help="Bundle inputs: a trusted Ed25519 public key file; repeatable."
    ),
    format: Format = FORMAT,
    force: bool = FORCE,
    quiet: bool = QUIET,
) -> None:
    """Attest tracekit's verdicts as in-toto Test Results and a Simple Verification Result."""
    from tracekit.attest.statements import Subject, envelope_line, result_statement, svr_statement
    from tracekit.cli.bundle_io import read_seed, trusted_keys
    from tracekit.report.attest_render import render

    check_target(output, force)
    seed = read_seed(key) if key is not None else None
    trusted = trusted_keys(trusted_key)
    inputs = collect_inputs(paths, ATTEST_SUFFIXES)
    files = [p for p in inputs.files if p != "-"]
    if not files or len(files) != len(inputs.files):
        fail(Code.CLI_NO_INPUT)
    try:
        verdicts = _verdicts(files, trusted, scenario, strict)
    except TracekitError as error:
        diag(error.finding)
        raise typer.Exit(ExitCode.ERROR) from None
    subjects: list[Subject] = []
    for verdict in verdicts:
        subjects += [s for s in verdict.subjects if s not in subjects]
    lines = [envelope_line(result_statement(v), seed) for v in verdicts]
    lines.append(envelope_line(svr_statement(subjects, verdicts, _time()), seed))
    write_atomic(output, lines, force)
    bad = sum(1 for v in verdicts if v.result != "PASSED")
    exit_code = ExitCode.FAIL if bad else ExitCode.OK
    rows = [
        {"kind": "test_result", "check": v.check, "result": v.result, "failed": list(v.failed), "warned": list(v.warned)}
        for v in verdicts
    ]
    head = {"output": str(output), "exit_code": int(exit_code), "inputs": len(files), "signed": seed is not None}
    emit(render("attest", head, rows, [], format.value))
    if not quiet:
        print(f"tracekit attest: {len(verdicts)} Test Result(s), {bad} not PASSED; exit {exit_code}", file=sys.stderr)
    raise typer.Exit(worst(exit_code, inputs.note()))


def verify_attestations(
    paths: list[str], key_files: list[str] | None, format: str, output: Path | None, force: bool, quiet: bool
) -> ExitCode:
    """``tracekit verify FILE.intoto.jsonl``: docs/attest.md "Verification"; the worst exit."""
    from tracekit.attest.check import MAX_BYTES, verify_attestations
    from tracekit.cli.bundle_io import trusted_keys
    from tracekit.cli.check_io import read_bounded
    from tracekit.report.attest_render import render
    from tracekit.report.findings import FindingRow, TraceFindings

    trusted = trusted_keys(key_files)
    traces: list[TraceFindings] = []
    texts: list[str] = []
    exits: list[int] = []
    for path in paths:
        try:
            data = read_bounded(path, MAX_BYTES, Code.ATTEST_TOO_LARGE)
        except TracekitError as error:
            diag(error.finding, path)
            exits.append(ExitCode.ERROR)
            continue
        report = verify_attestations(data, trusted)
        rows = [
            {
                "line": a.line,
                "kind": a.kind,
                "result": a.result,
                "failed": list(a.failed),
                "warned": list(a.warned),
                "properties": list(a.properties),
                "subjects_sha256": list(a.subjects),
                "trusted_signers": list(a.trusted),
            }
            for a in report.statements
        ]
        found = [f.as_dict() for f in report.findings]
        head = {"path": path, "exit_code": int(report.exit_code), "envelopes": len(rows)}
        texts.append(render("verify", head, rows, found, format))
        exits.append(report.exit_code)
        traces.append(TraceFindings(path, report.exit_code, tuple(FindingRow(**f) for f in found)))  # type: ignore[arg-type]
    if format in FINDINGS_RENDERERS:
        texts = [FINDINGS_RENDERERS[format](traces)]
    emit("".join(texts), output, force)
    verdict = worst(*exits)
    if not quiet:
        print(f"tracekit verify: {len(paths)} attestation file(s); exit {verdict}", file=sys.stderr)
    return verdict


def _junit(traces: list[TraceFindings]) -> str:
    from tracekit.report.findings import render_junit

    return render_junit("verify", traces)


def _sarif(traces: list[TraceFindings]) -> str:
    from tracekit.report.findings import render_sarif

    return render_sarif("verify", traces)


def _events(fmt: str) -> Callable[[list[TraceFindings]], str]:
    from tracekit.report.events import render_events

    return lambda traces: render_events(fmt, "verify", traces)


FINDINGS_RENDERERS: dict[str, Callable[[list[TraceFindings]], str]] = {
    "ocsf": _events("ocsf"), "junit": _junit, "sarif": _sarif, "otlp": _events("otlp")
}
"""``verify -f junit|sarif|ocsf|otlp`` on attestation files: each file's findings, as for traces."""


def register(app: typer.Typer) -> None:
    app.command("attest", cls=Command)(attest)
