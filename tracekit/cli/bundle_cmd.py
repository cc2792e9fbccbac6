"""``tracekit keygen``, ``seal``, ``redact`` and ``bundle show|extract|prove``, and the bundle
branch of ``tracekit verify`` (docs/bundle-format.md).

Exit codes as for every command: 0 intact and signed by a trusted key, 1 intact but unsigned,
untrusted or redacted, 2 tampered, malformed or a usage error. Reports show digests, counts,
our codes and names; never bundle content.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer

from tracekit.cli.common import (
    EXIT_ERROR,
    EXIT_OK,
    Format,
    check_output_file,
    collect_inputs,
    diag,
    display_path,
    emit,
    fail,
    write_atomic,
)
from tracekit.errors import Code, TracekitError

SEAL_SUFFIXES = (".jsonl", ".json", ".eval")
REPORT_VERSION = 1

bundle_app = typer.Typer(
    name="bundle",
    help="Inspect sealed evidence bundles: show, extract, prove.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def is_bundle(path: str) -> bool:
    """True when ``path`` is a regular file that starts with the bundle magic."""
    from tracekit.bundle.container import MAGIC
    from tracekit.cli.common import is_regular_file

    if path == "-" or not is_regular_file(path):
        return False
    try:
        with open(path, "rb") as handle:
            return handle.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def _trusted(paths: list[str] | None) -> list[bytes]:
    from tracekit.bundle import keys
    from tracekit.bundle.limits import DEFAULT_BUNDLE_LIMITS
    from tracekit.cli.bundle_io import read_key_file

    found: list[bytes] = []
    for path in paths or []:
        try:
            data = read_key_file(path)
        except TracekitError:
            fail(Code.BUNDLE_TRUSTED_KEY_INVALID)
        parsed = keys.parse_public_keys(data, DEFAULT_BUNDLE_LIMITS.trusted_keys)
        if parsed is None:
            fail(Code.BUNDLE_TRUSTED_KEY_INVALID)
        found.extend(parsed)
    if len(found) > DEFAULT_BUNDLE_LIMITS.trusted_keys:
        fail(Code.BUNDLE_TRUSTED_KEY_INVALID)
    return found


def _verify_path(path: str, trusted: list[bytes]) -> Any:
    from tracekit.bundle.verify import BundleReport, verify_bundle
    from tracekit.cli.common import is_regular_file
    from tracekit.errors import finding

    try:
        if not is_regular_file(path):  # a FIFO or device could block or never end
            raise OSError
        with open(path, "rb") as handle:
            return verify_bundle(handle, trusted)
    except OSError:
        return BundleReport(EXIT_ERROR, (finding(Code.BUNDLE_INPUT_UNREADABLE, rule="unreadable"),))


def _report_dict(path: str, report: Any) -> dict[str, Any]:
    return {
        "path": display_path(path),
        "exit_code": report.exit_code,
        "kind": report.kind,
        "root": report.root,
        "findings": [f.as_dict() for f in report.findings],
        "formats": list(report.formats),
        "originals": [{"blake3": b3, "length": n, "sha256": sha} for b3, n, sha in report.originals],
        "blobs": report.blobs,
        "records": report.records,
        "withheld": [{"digest": w.digest, "length": w.length, "reason": w.reason} for w in report.withheld],
        "signers": list(report.signers),
        "trusted_signers": list(report.trusted_signers),
    }


def _table(rows: list[dict[str, Any]]) -> str:
    lines: list[str] = []
    for row in rows:
        verdict = {0: "sealed", 1: "intact, needs action", 2: "INVALID"}[row["exit_code"]]
        lines.append(f"{row['path']}: {verdict}")
        if row["root"]:
            lines.append(f"  kind {row['kind']}, root {row['root']}")
            lines.append(f"  {row['records']} record(s), {row['blobs']} blob(s)")
            for signer in row["signers"]:
                trust = "trusted" if signer in row["trusted_signers"] else "not trusted"
                lines.append(f"  signed by key {signer} ({trust})")
        for item in row["withheld"]:
            lines.append(f"  withheld {item['digest']} ({item['length']} bytes, {item['reason']})")
        for found in row["findings"]:
            lines.append(f"  {found['severity']}[{found['code']}] {found['message']}")
    return "\n".join(lines)


def verify_bundles(
    paths: list[str],
    trusted_keys: list[str] | None,
    format: str,
    output: Path | None,
    force: bool,
    quiet: bool,
) -> int:
    """``tracekit verify`` on bundles (steps 1-10); returns the worst exit code."""
    trusted = _trusted(trusted_keys)
    rows = [_report_dict(p, _verify_path(p, trusted)) for p in paths]
    if format == "json":
        text = json.dumps({"report_version": REPORT_VERSION, "bundles": rows}, indent=2, sort_keys=True)
    else:
        text = _table(rows)
    emit(text, output, force)
    worst = max(row["exit_code"] for row in rows)
    if not quiet:
        ok = sum(1 for row in rows if row["exit_code"] == 0)
        print(f"tracekit: {len(rows)} bundle(s): {ok} sealed and trusted, {len(rows) - ok} not", file=sys.stderr)
    return int(worst)


def _verified(path: str, trusted: list[bytes]) -> Any:
    """Verify before any other work; a bundle that does not verify exits 2 with its code."""
    report = _verify_path(path, trusted)
    if report.exit_code == EXIT_ERROR:
        for found in report.findings:
            diag(found, path)
        raise typer.Exit(EXIT_ERROR)
    return report


def keygen(
    output: str = typer.Option(..., "--output", "-o", help="Key name: writes NAME.key (mode 0600) and NAME.pub."),
    force: bool = typer.Option(False, "--force", help="Replace existing key files."),
) -> None:
    """Make an Ed25519 key pair for sealing bundles."""
    from tracekit.bundle import keys

    private_path, public_path = Path(output + ".key"), Path(output + ".pub")
    if not private_path.parent.is_dir():
        fail(Code.CLI_OUTPUT_UNSAFE)
    check_output_file(private_path, force)
    check_output_file(public_path, force)
    seed, public = keys.generate()
    _write_private(private_path, keys.private_pem(seed), force)
    write_atomic(public_path, keys.public_pem(public), force)
    print(f"tracekit: key {keys.keyid(public)}", file=sys.stderr)
    raise typer.Exit(EXIT_OK)


def _write_private(path: Path, data: bytes, force: bool) -> None:
    """A private key: created mode 0600 from the start (mkstemp), then linked or renamed."""
    folder = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=".tracekit-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if force:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)
            except FileExistsError:
                fail(Code.CLI_OUTPUT_EXISTS)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _read_seed(key: Path) -> bytes:
    from tracekit.bundle import keys
    from tracekit.cli.bundle_io import read_key_file

    try:
        seed = keys.parse_private_key(read_key_file(key))
    except TracekitError:
        seed = None
    if seed is None:
        fail(Code.BUNDLE_KEY_INVALID)
    return seed


def seal(
    input: str = typer.Argument(..., help="A trace file, or a folder of traces (a campaign)."),
    output: Path = typer.Option(..., "--output", "-o", help="The bundle to write (.tkb)."),
    key: Path = typer.Option(None, "--key", help="Ed25519 private key (from keygen); without it the bundle is unsigned."),
    predicate: str = typer.Option("", "--predicate", help="Record these checks' results at sealing time: verify,audit,check."),
    input_format: str = typer.Option(None, "--input-format", help="Force the input format instead of detecting it."),
    scenario: Path = typer.Option(None, "--scenario", help="Scenario for the check and audit predicates of harness traces."),
    force: bool = typer.Option(False, "--force", help="Replace an existing output."),
) -> None:
    """Seal a trace (or a folder of traces) into a signed evidence bundle."""
    from tracekit.bundle.seal import seal as build
    from tracekit.cli.bundle_io import PREDICATES, load_finding, predicate_results, read_regular

    check_output_file(output, force)
    names = [n for n in predicate.split(",") if n]
    if any(n not in PREDICATES for n in names) or len(set(names)) != len(names):
        fail(Code.CLI_USAGE)
    seed = _read_seed(key) if key is not None else None
    campaign = Path(input).is_dir()
    paths = collect_inputs([input], SEAL_SUFFIXES) if campaign else [input]
    if not paths:
        fail(Code.CLI_NO_INPUT)
    scenario_bytes = None
    try:
        if scenario is not None:
            scenario_bytes = read_regular(scenario, 1 << 20, Code.BUNDLE_INPUT_UNREADABLE)
        items = [load_finding(p, input_format) for p in paths]
        results = (
            [predicate_results(p, i.evidence.format, names, scenario_bytes) for p, i in zip(paths, items, strict=True)]
            if names
            else None
        )
    except TracekitError as error:
        diag(error.finding)
        raise typer.Exit(EXIT_ERROR) from None
    write_atomic(output, build(items, seed, campaign, results), force)
    print(f"tracekit: sealed {len(items)} finding(s)", file=sys.stderr)
    raise typer.Exit(EXIT_OK)


def redact(
    bundle: str = typer.Argument(..., help="The bundle to redact."),
    output: Path = typer.Option(..., "--output", "-o", help="The redacted bundle to write."),
    secrets: bool = typer.Option(False, "--secrets", help="Withhold blobs holding credentials (plain or encoded)."),
    match: str = typer.Option(None, "--match", help="Withhold blobs whose text matches this regular expression."),
    blob: list[str] = typer.Option(None, "--blob", help="Withhold this blob (BLAKE3 hex digest); repeatable."),
    force: bool = typer.Option(False, "--force", help="Replace an existing output."),
) -> None:
    """Withhold blobs, keeping their digests: the root and the signature still verify."""
    from tracekit.bundle import redact as core
    from tracekit.bundle.limits import DEFAULT_BUNDLE_LIMITS as LIMITS

    check_output_file(output, force)
    chosen_modes = sum([secrets, match is not None, bool(blob)])
    if chosen_modes != 1:
        fail(Code.CLI_USAGE)
    if secrets:
        select = core.secrets_selector()
    elif match is not None:
        try:
            select = core.match_selector(re.compile(match))
        except re.error:
            fail(Code.CLI_USAGE)
    else:
        if any(not re.fullmatch(r"[0-9a-f]{64}", d) for d in blob):
            fail(Code.CLI_USAGE)
        select = core.digest_selector([bytes.fromhex(d) for d in blob])
    report = _verified(bundle, [])
    originals = [bytes.fromhex(o[0]) for o in report.originals]
    with open(bundle, "rb") as handle:
        chosen = core.plan(handle, LIMITS, select, originals)
        if blob and not set(bytes.fromhex(d) for d in blob) <= chosen.keys():
            fail(Code.BUNDLE_NO_SUCH_BLOB)
        handle.seek(0)
        write_atomic(output, core.rewrite(handle, LIMITS, chosen), force)
    if not chosen:
        diag(_notice(Code.BUNDLE_NOTHING_TO_REDACT))
    print(f"tracekit: {len(chosen)} blob(s) withheld", file=sys.stderr)
    raise typer.Exit(EXIT_OK)


def _notice(code: Code) -> Any:
    from tracekit.errors import finding

    return finding(code)


@bundle_app.command("show")
def show(
    bundle: str = typer.Argument(..., help="The bundle."),
    format: Format = typer.Option(Format.table, "--format", "-f", help="Output format."),
    trusted_key: list[str] = typer.Option(None, "--trusted-key", help="Trusted public key file (PEM); repeatable."),
) -> None:
    """Print a verified bundle's manifest, statement and DSSE envelope (never its content)."""
    report = _verified(bundle, _trusted(trusted_key))
    row = _report_dict(bundle, report)
    if format is Format.json:
        row["statement"] = report.statement
        row["envelope"] = report.envelope
        emit(json.dumps({"report_version": REPORT_VERSION, "bundle": row}, indent=2, sort_keys=True))
    else:
        emit(_table([row]))
    raise typer.Exit(report.exit_code)


def _blob_chunks(path: str, digest: bytes) -> Iterator[bytes]:
    """The held blob ``digest``, streamed and hashed again as it is read (the file could have
    changed since it verified); a mismatch aborts before the output is linked into place."""
    import blake3

    from tracekit.bundle.container import BLOB, DIGEST_BYTES, FrameHead, FrameReader
    from tracekit.bundle.limits import DEFAULT_BUNDLE_LIMITS
    from tracekit.errors import finding

    with open(path, "rb") as handle:
        reader = FrameReader(handle, DEFAULT_BUNDLE_LIMITS)
        while (head := reader.next_head()) is not None:
            if head.kind != BLOB:
                reader.payload(head)
                continue
            declared = reader.payload(FrameHead(head.number, head.kind, DIGEST_BYTES))
            hasher = blake3.blake3()
            for chunk in reader.chunks(head.length - DIGEST_BYTES):
                if declared == digest:
                    hasher.update(chunk)
                    yield chunk
            if declared == digest:
                if hasher.digest() != digest:
                    raise TracekitError(finding(Code.BUNDLE_BLOB_DIGEST_MISMATCH, frame=head.number))
                return
    raise TracekitError(finding(Code.BUNDLE_NO_SUCH_BLOB))


@bundle_app.command("extract")
def extract(
    bundle: str = typer.Argument(..., help="The bundle."),
    output: Path = typer.Option(..., "--output", "-o", help="Where to write the bytes."),
    finding_index: int = typer.Option(0, "--finding", min=0, help="Which finding's original (campaigns)."),
    blob: str = typer.Option(None, "--blob", help="Extract this blob (BLAKE3 hex digest) instead."),
    force: bool = typer.Option(False, "--force", help="Replace an existing output."),
) -> None:
    """Write the original file's exact bytes (or one blob) from a verified bundle."""
    check_output_file(output, force)
    report = _verified(bundle, [])
    if blob is not None:
        if not re.fullmatch(r"[0-9a-f]{64}", blob):
            fail(Code.CLI_USAGE)
        digest = bytes.fromhex(blob)
    else:
        if finding_index >= len(report.originals):
            fail(Code.BUNDLE_NO_SUCH_FINDING)
        digest = bytes.fromhex(report.originals[finding_index][0])
    if digest.hex() in {w.digest for w in report.withheld}:
        fail(Code.BUNDLE_NO_SUCH_BLOB, exit_code=1)
    try:
        write_atomic(output, _blob_chunks(bundle, digest), force)
    except TracekitError as error:
        diag(error.finding, bundle)
        raise typer.Exit(EXIT_ERROR) from None
    raise typer.Exit(EXIT_OK)


@bundle_app.command("prove")
def prove(
    bundle: str = typer.Argument(..., help="A campaign bundle."),
    finding_index: int = typer.Option(..., "--finding", min=0, help="The finding to prove (its index)."),
    output: Path = typer.Option(..., "--output", "-o", help="The proof bundle to write."),
    force: bool = typer.Option(False, "--force", help="Replace an existing output."),
) -> None:
    """Write one finding with its inclusion proof in the campaign: it verifies alone."""
    from tracekit.bundle.campaign import prove as build
    from tracekit.bundle.limits import DEFAULT_BUNDLE_LIMITS

    check_output_file(output, force)
    report = _verified(bundle, [])
    if report.kind != "campaign":
        fail(Code.CLI_USAGE)
    if finding_index >= len(report.finding_roots):
        fail(Code.BUNDLE_NO_SUCH_FINDING)
    with open(bundle, "rb") as handle:
        write_atomic(output, build(handle, DEFAULT_BUNDLE_LIMITS, finding_index, report.finding_roots), force)
    raise typer.Exit(EXIT_OK)


def register(app: typer.Typer) -> None:
    """Add keygen, seal, redact and the bundle group to the app."""
    app.command("keygen")(keygen)
    app.command("seal")(seal)
    app.command("redact")(redact)
    app.add_typer(bundle_app, name="bundle")
