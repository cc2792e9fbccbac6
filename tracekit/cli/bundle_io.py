"""File access for the bundle commands: read a trace (and import it through the format layer),
read keys, open and verify a bundle, stream a blob out of it, and run tracekit's own checks for a predicate. The bundle core
(tracekit/bundle/) stays pure; this is its edge."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from tracekit.cli.common import fail, is_regular_file
from tracekit.errors import Code, ExitCode, TracekitError, finding

if TYPE_CHECKING:  # the bundle core loads lazily: `tracekit --help` imports this module
    from tracekit.bundle.predicate import FindingResults
    from tracekit.bundle.seal import FindingInput
    from tracekit.bundle.verify import BundleReport
    from tracekit.harness.scenario import Scenario

MAX_KEY_FILE = 1024 * 1024
PREDICATES = ("verify", "audit", "check")


def read_key_file(path: str | Path) -> bytes:
    """A key file's bytes (``bundle.key_invalid`` when unreadable or too big)."""
    from tracekit.cli.check_io import read_bounded

    try:
        return read_bounded(str(path), MAX_KEY_FILE, Code.BUNDLE_INPUT_UNREADABLE, Code.BUNDLE_INPUT_UNREADABLE)
    except TracekitError:
        raise TracekitError(finding(Code.BUNDLE_KEY_INVALID)) from None


def load_finding(path: str, input_format: str | None) -> FindingInput:
    """The exact bytes of ``path`` (``-``: standard input, spooled within the format limit) and
    the evidence its format importer reads from those same bytes: one open, so the sealed
    original and the sealed evidence cannot come from two different versions of the file."""
    from tracekit.bundle.seal import FindingInput
    from tracekit.formats import registry
    from tracekit.formats.base import DEFAULT_FORMAT_LIMITS, FormatError
    from tracekit.formats.reading import open_source

    try:
        with open_source(path, DEFAULT_FORMAT_LIMITS) as source:
            original = source.handle.read(DEFAULT_FORMAT_LIMITS.total_bytes + 1)
            if len(original) > DEFAULT_FORMAT_LIMITS.total_bytes:
                raise TracekitError(finding(Code.FORMAT_TOO_LARGE, limit=DEFAULT_FORMAT_LIMITS.total_bytes))
            source.handle.seek(0)
            evidence = registry.load(source, input_format, DEFAULT_FORMAT_LIMITS)
    except FormatError as error:
        raise TracekitError(error.finding) from None
    except OSError:
        raise TracekitError(finding(Code.BUNDLE_INPUT_UNREADABLE, rule="unreadable")) from None
    return FindingInput(original, evidence)


def predicate_results(
    path: str, fmt: str, names: list[str], scenario: bytes | None
) -> FindingResults:
    """The result of each named check, run on the original at sealing time (docs/bundle-format.md
    section 6): its exit code (None where it does not apply to the format) and its distinct
    codes, sorted."""
    from tracekit.bundle.predicate import CheckResult, FindingResults

    checks: dict[str, CheckResult] = {}
    for name in names:
        entry = CheckResult(None, ())
        if name == "verify" and fmt == "agentguard":
            from tracekit.verify import VerifyOptions, verify_file

            report = verify_file(path, VerifyOptions())
            entry = CheckResult(report.exit_code, tuple(sorted({f.code.value for f in report.findings})))
        elif name == "audit" and fmt in ("agentguard", "harness"):
            from tracekit.cli.audit_io import AuditJob, AuditOptions, audit_file
            from tracekit.cli.common import absolute

            options = AuditOptions(strict_sources=False, roots=(), scenario=scenario)
            audited = audit_file(AuditJob(path, absolute(path), True, options))
            if audited is not None:
                entry = CheckResult(audited.exit_code, tuple(sorted({f.code.value for f in audited.findings})))
        elif name == "check" and fmt == "harness" and scenario is not None:
            from tracekit.cli import check_io
            from tracekit.harness import evaluate, parse_scenario, parse_trace

            result_check = evaluate(parse_scenario(scenario), parse_trace(check_io.read_trace(path)), False)
            entry = CheckResult(0, (), result_check.result)
        checks[name] = entry
    return FindingResults(**checks)


def is_bundle(path: str) -> bool:
    """True when ``path`` is a regular file that starts with the bundle magic."""
    from tracekit.bundle.container import MAGIC

    if path == "-" or not is_regular_file(path):
        return False
    try:
        with open(path, "rb") as handle:
            return handle.read(len(MAGIC)) == MAGIC
    except OSError:
        return False


def trusted_keys(paths: list[str] | None) -> list[bytes]:
    """The raw keys of every ``--trusted-key`` file; exit 2 on any unusable one."""
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


def verify_path(path: str, trusted: list[bytes]) -> BundleReport:
    from tracekit.bundle.verify import BundleReport, verify_bundle
    from tracekit.errors import finding

    try:
        if not is_regular_file(path):  # a FIFO or device could block or never end
            raise OSError
        with open(path, "rb") as handle:
            return verify_bundle(handle, trusted)
    except OSError:
        return BundleReport(ExitCode.ERROR, (finding(Code.BUNDLE_INPUT_UNREADABLE, rule="unreadable"),))


def blob_chunks(path: str, digest: bytes) -> Iterator[bytes]:
    """The held blob ``digest``, streamed and hashed again as it is read (the file could have
    changed since it verified); a mismatch aborts before the output is linked into place."""
    import blake3

    from tracekit.bundle.blobs import salt_length
    from tracekit.bundle.container import BLOB, DIGEST_BYTES, HEADER_KIND, FrameHead, FrameReader
    from tracekit.bundle.limits import DEFAULT_BUNDLE_LIMITS
    from tracekit.errors import finding

    with open(path, "rb") as handle:
        reader = FrameReader(handle, DEFAULT_BUNDLE_LIMITS)
        salt = 0
        while (head := reader.next_head()) is not None:
            if head.kind != BLOB:
                payload = reader.payload(head)
                salt = salt_length(payload) if head.kind == HEADER_KIND else salt
                continue
            declared = reader.payload(FrameHead(head.number, head.kind, DIGEST_BYTES))
            hasher = blake3.blake3()
            if salt:  # version 2: the salt is hashed, not written (docs/bundle-format.md section 3)
                hasher.update(reader.payload(FrameHead(head.number, head.kind, salt)))
            for chunk in reader.chunks(head.length - DIGEST_BYTES - salt):
                if declared == digest:
                    hasher.update(chunk)
                    yield chunk
            if declared == digest:
                if hasher.digest() != digest:
                    raise TracekitError(finding(Code.BUNDLE_BLOB_DIGEST_MISMATCH, frame=head.number))
                return
    raise TracekitError(finding(Code.BUNDLE_NO_SUCH_BLOB))


def read_scenario_file(path: Path) -> Scenario:
    """``redact --scenario``: the parsed scenario; exit 2 with its code when unusable."""
    import typer

    from tracekit.cli.check_io import read_scenario
    from tracekit.cli.common import diag
    from tracekit.harness.scenario import parse_scenario

    try:
        return parse_scenario(read_scenario(str(path)))
    except TracekitError as error:
        diag(error.finding, str(path))
        raise typer.Exit(ExitCode.ERROR) from None
