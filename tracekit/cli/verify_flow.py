"""What ``tracekit verify`` does once its command line is read: the one body behind both readers
of that command line, the typer app (tracekit/cli/verify_cmd.py) and the fast path for the plain
forms (tracekit/cli/verify_fast.py; docs/cli.md, "Start-up"). It never imports typer."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from tracekit.cli.common import (
    ExecutorOptions,
    FindingsFormat,
    InputFormat,
    Inputs,
    fail,
    leave,
    parse_roots,
    worst,
)
from tracekit.cli.sink import check_target, emit
from tracekit.kernel.errors import Code

if TYPE_CHECKING:
    from tracekit.report.skipped import SkippedFile


def verify(
    paths: list[str],
    format: FindingsFormat = FindingsFormat.table,
    input_format: InputFormat | None = None,
    strict_sources: bool = False,
    trusted_root: list[str] | None = None,
    canonical: bool = False,
    run: ExecutorOptions | None = None,
    output: Path | None = None,
    force: bool = False,
    quiet: bool = False,
    trusted_key: list[str] | None = None,
) -> NoReturn:
    """Verify ``paths``; exits 0 intact, 1 intact but a source changed, 2 invalid (the worst
    wins). The defaults are the command line's."""
    from tracekit.cli import verify_run

    run = ExecutorOptions() if run is None else run
    if output is not None:
        check_target(output, force)
    roots = tuple((k, str(v.resolve())) for k, v in parse_roots(trusted_root).items())
    forced = None if input_format is None else input_format.value
    opts = verify_run.VerifyOptions(strict_sources, canonical, roots, forced, run, quiet)
    inputs = verify_run.inputs_of(paths)
    keys = trusted_key or []
    _other_inputs(inputs, keys, format, output, force, quiet)
    named = set(paths)
    files, left_out = _split_bundles(inputs.files, named)
    if not files:  # sealed bundles only (docs/bundle-format.md): verified as bundles
        from tracekit.cli import bundle_cmd

        verdict = bundle_cmd.verify_bundles(inputs.files, keys, format.value, output, force, quiet)
        leave(worst(verdict, inputs.note()))
    with verify_run.verified(verify_run.request(files, named, left_out, inputs, opts), opts) as campaign:
        emit(verify_run.render(campaign, format), output, force)
    if not quiet:
        print(verify_run.summary(campaign), file=sys.stderr)
    leave(worst(campaign.tally.exit_code, inputs.note()))


def _other_inputs(
    inputs: Inputs, trusted_key: list[str], format: FindingsFormat, output: Path | None, force: bool, quiet: bool
) -> None:
    """in-toto attestation files (docs/attest.md), never mixed with traces: verified as such,
    and the command exits."""
    attestations = [p for p in inputs.files if p.endswith(".intoto.jsonl")]
    if not attestations:
        return
    from tracekit.cli import attest_cmd

    if len(attestations) != len(inputs.files):
        fail(Code.CLI_OPTION_CONFLICT, option="Attestation files", other="traces in one run")
    verdict = attest_cmd.verify_attestations(inputs.files, trusted_key, format.value, output, force, quiet)
    leave(worst(verdict, inputs.note()))


def _split_bundles(found: list[str], named: set[str]) -> tuple[list[str], list[SkippedFile]]:
    """The traces to verify, and the walked bundles left out beside them (``cli.bundle_input``:
    a folder of bundles alone is verified as bundles). A bundle named with traces is refused."""
    from tracekit.cli.bundle_io import is_bundle
    from tracekit.report.skipped import SkippedFile

    bundles = {p for p in found if is_bundle(p)}
    if bundles and bundles & named and len(bundles) != len(found):
        fail(Code.CLI_OPTION_CONFLICT, option="Bundles", other="traces in one run")
    traces = [p for p in found if p not in bundles]
    if not traces:
        return [], []
    return traces, [SkippedFile(p, Code.CLI_BUNDLE_INPUT.value) for p in found if p in bundles]

