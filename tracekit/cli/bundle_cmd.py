"""``tracekit seal``, ``redact`` and ``bundle show|extract|prove``, and the bundle
branch of ``tracekit verify`` (docs/bundle-format.md; docs/cli.md for the conventions).

Exit codes as for every command: 0 intact and signed by a trusted key, 1 intact but unsigned,
untrusted or redacted, 2 tampered, malformed, a usage or an output error. Reports show digests,
counts, our codes and names; never bundle content. A command's artifact (the bundle, the key
pair, the extracted bytes) goes to ``-o``; its report to stdout in ``-f`` format; the summary
line to stderr.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer

from tracekit.cli.bundle_io import (
    PREDICATES,
    InputRefused,
    blob_chunks,
    load_all,
    read_scenario_file,
    read_seed,
    report_action,
    trusted_keys,
    verify_path,
)
from tracekit.cli.common import ExitCode, Format, collect_inputs, diag, fail, refuse_folder, say
from tracekit.cli.options import FORCE, FORMAT, OUTPUT, QUIET, Command
from tracekit.cli.sink import check_target, emit, is_stdout, write_atomic
from tracekit.kernel.errors import Code, TracekitError
from tracekit.report.jsonout import set_head

if TYPE_CHECKING:  # the bundle core loads lazily so `tracekit --help` stays fast
    from tracekit.bundle.predicate import FindingResults
    from tracekit.bundle.redact import Selector
    from tracekit.bundle.seal import FindingInput
    from tracekit.bundle.verify import BundleReport
    from tracekit.cli.seal_spools import SealSpools
    from tracekit.report.bundle_render import SealReport

SEAL_SUFFIXES = (".jsonl", ".json", ".eval")
_DIGEST = re.compile(r"[0-9a-f]{64}")

bundle_app = typer.Typer(
    name="bundle",
    help="Inspect sealed evidence bundles: show, extract, prove.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

BUNDLE = typer.Argument(..., metavar="BUNDLE", help="A bundle file (.tkb).")
TRUSTED_KEY = typer.Option(
    None, "--trusted-key", metavar="FILE", help="Trusted Ed25519 public key file (PEM, one or more keys); repeatable."
)



def verify_bundles(
    paths: list[str], key_files: list[str] | None, format: str, output: Path | None, force: bool, quiet: bool
) -> ExitCode:
    """``tracekit verify`` on bundles (docs/bundle-format.md steps 1-10); the worst exit code.
    The caller checked ``output`` before any work."""
    from tracekit.report.bundle_render import VERIFY_RENDERERS, bundle_check, bundle_verify

    trusted = trusted_keys(key_files)
    report = bundle_verify([bundle_check(p, verify_path(p, trusted)) for p in paths])
    emit(VERIFY_RENDERERS[format](report), output, force)
    ok = sum(1 for c in report.bundles if c.exit_code == ExitCode.OK)
    say(quiet, "verify", f"{len(paths)} bundle(s): {ok} sealed and trusted, {len(paths) - ok} not; exit {report.exit_code}")
    return ExitCode(report.exit_code)


def _verified(path: str, trusted: list[bytes]) -> BundleReport:
    """Verify before any other work; a bundle that does not verify exits 2 with its code."""
    refuse_folder(path)
    report = verify_path(path, trusted)
    if report.exit_code == ExitCode.ERROR:
        for found in report.findings:
            diag(found, path)
        raise typer.Exit(ExitCode.ERROR)
    return report



def _digest(text: str, option: str) -> bytes:
    if not _DIGEST.fullmatch(text):
        fail(Code.CLI_BAD_VALUE, option=option, expected="a BLAKE3 digest: 64 lowercase hex characters")
    return bytes.fromhex(text)


# -- seal ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SealOptions:
    """``tracekit seal``'s options, checked."""

    input: str
    output: Path
    key: Path | None
    predicate: tuple[str, ...]
    input_format: str | None
    scenario: Path | None
    force: bool

    @staticmethod
    def parse(
        input: str, output: Path, key: Path | None, predicate: str, input_format: str | None,
        scenario: Path | None, force: bool,
    ) -> SealOptions:
        names = tuple(n for n in predicate.split(",") if n)
        if any(n not in PREDICATES for n in names) or len(set(names)) != len(names):
            fail(Code.CLI_BAD_VALUE, option="--predicate", expected="distinct names among " + ", ".join(PREDICATES))
        if input == "-" and names:
            fail(Code.CLI_OPTION_CONFLICT, option="--predicate", other="standard input (-)")
        if "check" in names and scenario is None:
            fail(Code.CLI_OPTION_NEEDS, option="--predicate check", other="--scenario")
        if input_format is not None:
            from tracekit.formats.registry import FORMAT_NAMES

            if input_format not in FORMAT_NAMES:
                fail(Code.CLI_BAD_VALUE, option="--input-format", expected="one of " + ", ".join(FORMAT_NAMES))
        return SealOptions(input, output, key, names, input_format, scenario, force)


def seal(
    input: str = typer.Argument(
        ..., metavar="TRACE", help="A trace file, a folder of traces (a campaign), or - for stdin."
    ),
    output: Path = typer.Option(..., "--output", "-o", metavar="FILE", help="The bundle to write (.tkb)."),
    key: Path = typer.Option(
        None, "--key", metavar="FILE", help="Ed25519 private key (from keygen); without it the bundle is unsigned."
    ),
    predicate: str = typer.Option(
        "", "--predicate", metavar="NAMES", help="Record these checks' results at sealing time: verify,audit,check."
    ),
    input_format: str = typer.Option(
        None, "--input-format", metavar="NAME", help="Force the input format instead of detecting it."
    ),
    scenario: Path = typer.Option(
        None, "--scenario", metavar="FILE", help="Scenario for the check and audit predicates (any format)."
    ),
    format: Format = FORMAT,
    force: bool = FORCE,
    quiet: bool = QUIET,
) -> None:
    """Seal a trace (or a folder of traces) into a signed evidence bundle."""
    opts = SealOptions.parse(input, output, key, predicate, input_format, scenario, force)
    check_target(opts.output, opts.force)
    seed = read_seed(opts.key) if opts.key is not None else None
    campaign = opts.input != "-" and Path(opts.input).is_dir()
    paths = collect_inputs([opts.input], SEAL_SUFFIXES).files if campaign else [opts.input]
    if not paths:
        fail(Code.CLI_NO_INPUT)
    scenario_bytes = _seal_scenario(opts.scenario)
    from tracekit.cli.seal_spools import seal_spools

    with seal_spools() as spools:  # each input's bytes and episodes, none held (load_finding)
        try:
            items, results, left_out = load_all(
                paths, opts.input_format, campaign, list(opts.predicate), scenario_bytes, spools
            )
        except InputRefused as error:  # the first file that does not import fails the seal, named
            _refused(error, format)
        if not items:
            fail(Code.CLI_NO_INPUT)
        report = _sealed(opts, items, seed, campaign, results, left_out, spools)
    report_action("seal", report, format)
    note = f"; {len(report.skipped)} non-trace file(s) skipped" if report.skipped else ""
    say(quiet, "seal", f"sealed {len(items)} finding(s) as a {report.kind}, {'signed' if report.signed_by else 'unsigned'}{note}")


def _seal_scenario(path: Path | None) -> bytes | None:
    """The scenario's bytes; an unusable scenario fails the seal up front (exit 2)."""
    if path is None:
        return None
    from tracekit.cli.check_io import read_scenario
    from tracekit.judging.harness.scenario import parse_scenario

    try:
        data = read_scenario(str(path))
        parse_scenario(data)
    except TracekitError as error:
        diag(error.finding, str(path))
        raise typer.Exit(ExitCode.ERROR) from None
    return data


def _sealed(
    opts: SealOptions, items: list[FindingInput], seed: bytes | None, campaign: bool,
    results: list[FindingResults] | None, left_out: list[tuple[str, str]], spools: SealSpools,
) -> SealReport:
    """Write the bundle (every frame planned against the verifier's limits before a byte is
    written, the record frames and the blobs spooled between planning and writing); its report."""
    from tracekit.bundle.seal import seal_with_root
    from tracekit.report.bundle_render import SealReport
    from tracekit.report.skipped import SkippedFile

    try:
        root, chunks = seal_with_root(items, seed, campaign, results, spool=spools.records, blob_spool=spools.blobs)
    except TracekitError as error:
        diag(error.finding, None)
        raise typer.Exit(ExitCode.ERROR) from None
    write_atomic(opts.output, chunks, opts.force)
    signer = None
    if seed is not None:
        from tracekit.bundle import keys

        signer = keys.keyid(keys.public_of(seed))
    formats = tuple(sorted({i.evidence.format for i in items}))
    kind = "campaign" if campaign else "finding"
    skipped = tuple(SkippedFile(path, code) for path, code in left_out)
    return SealReport(str(opts.output), kind, len(items), root.hex(), signer, formats, opts.predicate, skipped)


def _refused(error: InputRefused, format: Format) -> NoReturn:
    """A seal input that does not import: its diagnostic, a JSON document saying so (docs/cli.md,
    "Inputs and folders"), exit 2; no bundle is written."""
    from tracekit.cli.input_errors import error_document

    text = error_document("seal", format.value, error.path, [error.finding])
    if text is not None:
        emit(text)
    diag(error.finding, None if error.path == "-" else error.path)
    raise typer.Exit(ExitCode.ERROR)


# -- redact -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RedactOptions:
    """``tracekit redact``'s options, checked: exactly one way to choose blobs."""

    output: Path
    pattern: re.Pattern[str] | None
    """``--match``."""
    digests: tuple[bytes, ...]
    """``--blob``; none of these: ``--secrets``."""
    force: bool
    scenario: Path | None = None
    """``--scenario``: withhold the scenario's markers."""

    @staticmethod
    def parse(output: Path, secrets: bool, match: str | None, blob: list[str] | None, force: bool, scenario: Path | None = None) -> RedactOptions:  # noqa: E501
        chosen = (("--secrets", secrets), ("--match", match is not None), ("--blob", bool(blob)), ("--scenario", scenario is not None))
        modes = [name for name, on in chosen if on]
        if not modes:
            fail(Code.CLI_MISSING_ARGUMENT, what="one of --secrets, --match REGEX, --blob DIGEST or --scenario FILE")
        if len(modes) > 1:
            fail(Code.CLI_OPTION_CONFLICT, option=modes[0], other=modes[1])
        pattern = None
        if match is not None:
            try:
                pattern = re.compile(match)
            except (re.error, RecursionError, OverflowError):
                fail(Code.CLI_BAD_VALUE, option="--match", expected="a valid regular expression")
        digests = tuple(_digest(d, "--blob") for d in blob or [])
        return RedactOptions(output, pattern, digests, force, scenario)


def redact(
    bundle: str = BUNDLE,
    output: Path = typer.Option(..., "--output", "-o", metavar="FILE", help="The redacted bundle to write."),
    secrets: bool = typer.Option(False, "--secrets", help="Withhold blobs holding credentials (plain or encoded)."),
    match: str = typer.Option(
        None, "--match", metavar="REGEX", help="Withhold blobs whose text matches this regular expression."
    ),
    blob: list[str] = typer.Option(
        None, "--blob", metavar="DIGEST", help="Withhold this blob (BLAKE3 hex digest); repeatable."
    ),
    scenario: Path = typer.Option(
        None, "--scenario", metavar="FILE", help="Withhold blobs holding this scenario's markers."
    ),
    work_budget: int = typer.Option(
        None, "--work-budget", metavar="UNITS", min=1, max=2**62,
        help="Work to spend scanning, in all (default 41943040: a unit is about a byte of text for "
        "--match; --secrets about 75 a byte of a typical trace); past it nothing is written.",
    ),
    format: Format = FORMAT,
    force: bool = FORCE,
    quiet: bool = QUIET,
) -> None:
    """Withhold blobs, keeping their digests: the root and the signature still verify."""
    from tracekit.bundle import redact as core
    from tracekit.bundle.limits import DEFAULT_BUNDLE_LIMITS as LIMITS
    from tracekit.kernel.errors import finding
    from tracekit.kernel.limits import DEFAULT_BUDGET
    from tracekit.report.bundle_render import RedactReport, WithheldBlob

    opts = RedactOptions.parse(output, secrets, match, blob, force, scenario)
    check_target(output, force)
    select = _selector(opts)
    wanted = opts.digests
    report = _verified(bundle, [])
    originals = [bytes.fromhex(o[0]) for o in report.originals]
    sizes: dict[bytes, int] = {}
    try:
        with open(bundle, "rb") as handle:
            chosen = core.plan(handle, LIMITS, select, originals, sizes, work_budget or DEFAULT_BUDGET.redact_work)
            if wanted and not set(wanted) <= chosen.keys():
                fail(Code.BUNDLE_NO_SUCH_BLOB)
            handle.seek(0)
            write_atomic(output, core.rewrite(handle, LIMITS, chosen, originals), force)
    except OSError:
        fail(Code.FORMAT_UNREADABLE)
    except TracekitError as error:  # a container original that does not decode (section 8)
        diag(error.finding, bundle)
        raise typer.Exit(ExitCode.ERROR) from None
    withheld = tuple(WithheldBlob(d.hex(), sizes[d], r) for d, r in sorted(chosen.items()))
    report_action("redact", RedactReport(str(output), report.root, withheld), format)
    if not chosen:
        diag(finding(Code.BUNDLE_NOTHING_TO_REDACT))
    exposed = sum(1 for digest in originals if digest in chosen)
    if exposed and report.version < 3:  # their plain digests are signed (bundle format section 8)
        diag(finding(Code.BUNDLE_ORIGINAL_DIGESTS_PUBLISHED, version=report.version, count=exposed))
    say(quiet, "redact", f"{len(chosen)} blob(s) withheld")


def _selector(opts: RedactOptions) -> Selector:
    """The one way ``opts`` chooses blobs (tracekit/bundle/redact.py)."""
    from tracekit.bundle import redact as core

    if opts.scenario is not None:
        return core.marker_selector(core.scenario_markers(read_scenario_file(opts.scenario)))
    if opts.pattern is not None:
        return core.match_selector(opts.pattern)
    if opts.digests:
        return core.digest_selector(list(opts.digests))
    return core.secrets_selector()


# -- bundle show, extract, prove ----------------------------------------------------------------


@bundle_app.command("show", cls=Command)
def show(
    bundle: str = BUNDLE,
    format: Format = FORMAT,
    trusted_key: list[str] = TRUSTED_KEY,
    output: Path = OUTPUT,
    force: bool = FORCE,
    quiet: bool = QUIET,
) -> None:
    """Print a verified bundle's manifest, statement and DSSE envelope (never its content)."""
    from tracekit.report.bundle_render import SHOW_RENDERERS, bundle_show

    if output is not None:
        check_target(output, force)
    report = _verified(bundle, trusted_keys(trusted_key))
    set_head(exit_code=0)
    emit(SHOW_RENDERERS[format.value](bundle_show(bundle, report)), output, force)
    say(quiet, "bundle show", f"{report.kind}, {report.records} record(s), {report.blobs} blob(s); exit {report.exit_code}")
    raise typer.Exit(report.exit_code)


@bundle_app.command("extract", cls=Command)
def extract(
    bundle: str = BUNDLE,
    output: Path = typer.Option(..., "--output", "-o", metavar="FILE", help="Where to write the bytes."),
    finding_index: int = typer.Option(0, "--finding", metavar="N", min=0, help="Which finding's original (campaigns)."),
    blob: str = typer.Option(None, "--blob", metavar="DIGEST", help="Extract this blob (BLAKE3 hex digest) instead."),
    format: Format = FORMAT,
    force: bool = FORCE,
    quiet: bool = QUIET,
) -> None:
    """Write the original file's exact bytes (or one blob) from a verified bundle."""
    from tracekit.bundle.container import BundleError
    from tracekit.report.bundle_render import ExtractReport

    wanted = _digest(blob, "--blob") if blob is not None else None
    check_target(output, force)
    report = _verified(bundle, [])
    if wanted is None:
        if finding_index >= len(report.originals):
            fail(Code.BUNDLE_NO_SUCH_FINDING)
        wanted = bytes.fromhex(report.originals[finding_index][0])
    if wanted.hex() in {w.digest for w in report.withheld}:
        fail(Code.BUNDLE_BLOBS_WITHHELD, exit_code=ExitCode.FAIL, count=1)  # nothing is written
    written = [0]

    def counted() -> Iterator[bytes]:
        for chunk in blob_chunks(bundle, wanted):
            written[0] += len(chunk)
            yield chunk

    try:
        write_atomic(output, counted(), force)
    except (TracekitError, BundleError) as error:
        diag(error.finding, bundle)
        raise typer.Exit(ExitCode.ERROR) from None
    if not is_stdout(output):  # with `-o -` stdout carries the bytes alone
        report_action("bundle extract", ExtractReport(str(output), wanted.hex(), written[0]), format)
    say(quiet, "bundle extract", f"{written[0]} byte(s) written")


@bundle_app.command("prove", cls=Command)
def prove(
    bundle: str = typer.Argument(..., metavar="BUNDLE", help="A campaign bundle."),
    finding_index: int = typer.Option(..., "--finding", metavar="N", min=0, help="The finding to prove (its index)."),
    output: Path = typer.Option(..., "--output", "-o", metavar="FILE", help="The proof bundle to write."),
    format: Format = FORMAT,
    force: bool = FORCE,
    quiet: bool = QUIET,
) -> None:
    """Write one finding with its inclusion proof in the campaign: it verifies alone."""
    from tracekit.bundle.campaign import prove as build
    from tracekit.bundle.limits import DEFAULT_BUNDLE_LIMITS
    from tracekit.report.bundle_render import ProveReport

    check_target(output, force)
    report = _verified(bundle, [])
    if report.kind != "campaign":
        fail(Code.BUNDLE_NOT_A_CAMPAIGN)
    if finding_index >= len(report.finding_roots):
        fail(Code.BUNDLE_NO_SUCH_FINDING)
    import tempfile

    try:
        with open(bundle, "rb") as handle, tempfile.TemporaryFile() as records:  # the finding's records
            write_atomic(output, build(handle, DEFAULT_BUNDLE_LIMITS, finding_index, report.finding_roots, records), force)
    except OSError:
        fail(Code.FORMAT_UNREADABLE)
    size = len(report.finding_roots)
    report_action("bundle prove", ProveReport(str(output), finding_index, size, report.root), format)
    say(quiet, "bundle prove", f"finding {finding_index} of {size} with its inclusion proof")


def register(app: typer.Typer) -> None:
    """Add keygen, seal, redact and the bundle group to the app."""
    app.command("seal", cls=Command)(seal)
    app.command("redact", cls=Command)(redact)
    app.add_typer(bundle_app, name="bundle")
