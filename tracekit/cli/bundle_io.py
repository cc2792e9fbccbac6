"""File access for the bundle commands: read a trace (and import it through the format layer),
read keys, open and verify a bundle, stream a blob out of it, and run tracekit's own checks for a predicate. The bundle core
(tracekit/bundle/) stays pure; this is its edge."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from tracekit.cli.common import fail, is_regular_file, refuse_folder
from tracekit.cli.sniff import is_bundle as is_bundle  # the bundle commands' own test
from tracekit.kernel.errors import Code, ExitCode, Finding, TracekitError, finding

if TYPE_CHECKING:  # the bundle core loads lazily: `tracekit --help` imports this module
    from tracekit.bundle.predicate import CheckResult, FindingResults
    from tracekit.bundle.seal import FindingInput
    from tracekit.bundle.spooled import SpooledEvidence, SpooledOriginal
    from tracekit.bundle.verify import BundleReport
    from tracekit.cli.common import Format
    from tracekit.cli.seal_spools import SealSpools
    from tracekit.judging.harness.scenario import Scenario
    from tracekit.kernel.evidence import EvidenceFile
    from tracekit.report.bundle_render import ActionReport

MAX_KEY_FILE = 1024 * 1024
PREDICATES = ("verify", "audit", "check")


def read_key_file(path: str | Path) -> bytes:
    """A key file's bytes (``bundle.key_invalid`` when unreadable or too big)."""
    from tracekit.cli.check_io import read_bounded

    try:
        return read_bounded(str(path), MAX_KEY_FILE, Code.BUNDLE_KEY_INVALID)
    except TracekitError:
        raise TracekitError(finding(Code.BUNDLE_KEY_INVALID)) from None


def load_finding(path: str, input_format: str | None, spool: SealSpools | None = None) -> FindingInput:
    """The exact bytes of ``path`` (``-``: standard input, spooled within the format limit) and
    the evidence its format importer reads from those same bytes: one open, so the sealed
    original and the sealed evidence cannot come from two different versions of the file. With
    ``spool`` (anonymous temporary files the caller keeps open while the item is sealed), the
    bytes are copied to its ``originals`` and the episodes written to its ``episodes`` as they
    are read, and read back as the sealer walks them
    (:mod:`tracekit.bundle.spooled`): neither is held."""
    from tracekit.bundle.seal import FindingInput
    from tracekit.bundle.spooled import SpooledEvidence, SpooledOriginal  # noqa: F811 - at run time
    from tracekit.formats import registry
    from tracekit.formats.base import DEFAULT_FORMAT_LIMITS, FormatError
    from tracekit.formats.reading import open_source

    try:
        most = DEFAULT_FORMAT_LIMITS.total_bytes
        with open_source(path, DEFAULT_FORMAT_LIMITS) as source:
            if spool is None:
                original: bytes | SpooledOriginal = source.handle.read(most + 1)
            else:
                original = SpooledOriginal.copy(source.handle, spool.originals, most)
            if len(original) > most:
                raise TracekitError(finding(Code.FORMAT_TOO_LARGE, limit=most))
            source.handle.seek(0)
            fmt = registry.detected(source, input_format, DEFAULT_FORMAT_LIMITS)
            if spool is None:
                evidence: EvidenceFile | SpooledEvidence = registry.load_as(fmt, source, DEFAULT_FORMAT_LIMITS)
            else:
                evidence = SpooledEvidence(registry.stream_as(fmt, source, DEFAULT_FORMAT_LIMITS), spool.episodes)
    except FormatError as error:
        raise TracekitError(error.finding) from None
    except OSError:
        raise TracekitError(finding(Code.FORMAT_UNREADABLE)) from None
    return FindingInput(original, evidence)


def predicate_results(
    path: str, fmt: str, names: list[str], scenario: bytes | None
) -> FindingResults:
    """The result of each named check, run on the original at sealing time as the command of
    that name runs it (docs/bundle-format.md section 6): its exit code and its distinct codes,
    sorted; for ``check``, the scenario's verdict and the mode it was judged in. Every format
    any of these commands reads gets a result; ``check`` without a scenario is refused on the
    command line (``SealOptions.parse``)."""
    from tracekit.bundle.predicate import FindingResults

    run = {"verify": _verify_result, "audit": _audit_result, "check": _check_result}
    checks: dict[str, CheckResult] = {name: run[name](path, fmt, scenario) for name in names}
    return FindingResults(**checks)


def _verify_result(path: str, fmt: str, scenario: bytes | None) -> CheckResult:
    """``tracekit verify`` on one file: an AgentGuard trace verified, any other format
    ``verify.no_integrity`` (exit 1)."""
    from tracekit.bundle.predicate import CheckResult
    from tracekit.cli.common import absolute
    from tracekit.cli.verify_job import VerifyJob, verify_job

    verified = verify_job(VerifyJob(path, absolute(path), False, False, (), fmt))
    if verified is None:  # a named file is never skipped; kept for the type
        return CheckResult(None, ())
    return CheckResult(verified.exit_code, tuple(sorted({row.code for row in verified.findings})))


def _audit_result(path: str, fmt: str, scenario: bytes | None) -> CheckResult:
    """``tracekit audit [--scenario]`` on one file, in the default modes (docs/cli.md)."""
    from tracekit.bundle.predicate import CheckResult
    from tracekit.cli.audit_io import AuditJob, AuditOptions, audit_file
    from tracekit.cli.common import absolute
    from tracekit.judging.harness.model import mode_name

    options = AuditOptions(strict_sources=False, roots=(), scenario=scenario, input_format=fmt)
    audited = audit_file(AuditJob(path, absolute(path), True, options))
    if audited is None:
        return CheckResult(None, ())
    mode = mode_name(audited.harness.strict) if audited.harness is not None else None
    return CheckResult(audited.exit_code, tuple(sorted({f.code.value for f in audited.findings})), mode=mode)


def _check_result(path: str, fmt: str, scenario: bytes | None) -> CheckResult:
    """``tracekit check SCENARIO FILE`` on one file: exit 0 when it ran (2 when an episode is
    refused as inconsistent), the aggregate verdict, ``audit.outcome_mismatch`` when a tool's own
    verdict disagrees, in the default mode of the format (docs/cli.md, "Verdicts and modes")."""
    from tracekit.bundle.predicate import CheckResult
    from tracekit.cli import check_io, findings_io
    from tracekit.formats.reading import consume_file
    from tracekit.judging.harness import evaluate, parse_scenario, parse_trace
    from tracekit.judging.harness.model import aggregate, judging_strict, mode_name

    if scenario is None:
        return CheckResult(None, ())
    parsed, strict = parse_scenario(scenario), judging_strict(False, fmt)
    if fmt == "harness":
        result = evaluate(parsed, parse_trace(check_io.read_trace(path)), strict).result
        return CheckResult(0, (), result, mode_name(strict))
    judged = consume_file(path, lambda stream: [findings_io.judge(parsed, e, strict) for _, e in stream.pairs], fmt)
    codes = {j.value for j in judged if isinstance(j, Code)}
    verdicts = [j for j in judged if not isinstance(j, Code)]
    if any(v.disagrees for v in verdicts):
        codes.add(Code.AUDIT_OUTCOME_MISMATCH.value)
    refused = any(isinstance(j, Code) for j in judged)
    outcome = aggregate(v.result for v in verdicts)
    return CheckResult(2 if refused else 0, tuple(sorted(codes)), outcome, mode_name(strict))


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
    from tracekit.kernel.errors import finding

    try:
        if not is_regular_file(path):  # a FIFO or device could block or never end
            raise OSError
        with open(path, "rb") as handle:
            if os.fstat(handle.fileno()).st_size == 0:  # docs/cli.md, "One code per mistake"
                return BundleReport(ExitCode.ERROR, (finding(Code.FORMAT_EMPTY),))
            return verify_bundle(handle, trusted)
    except OSError:
        return BundleReport(ExitCode.ERROR, (finding(Code.FORMAT_UNREADABLE),))


def blob_chunks(path: str, digest: bytes) -> Iterator[bytes]:
    """The held blob ``digest``, streamed and hashed again as it is read (the file could have
    changed since it verified); a mismatch aborts before the output is linked into place."""
    import blake3

    from tracekit.bundle.blobs import salt_length
    from tracekit.bundle.container import BLOB, DIGEST_BYTES, HEADER_KIND, FrameHead, FrameReader
    from tracekit.bundle.limits import DEFAULT_BUNDLE_LIMITS
    from tracekit.kernel.errors import finding

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
    from tracekit.cli.check_io import scenario_or_exit

    return scenario_or_exit(path)[1]


class InputRefused(TracekitError):
    """One input of a seal could not be read: its finding, and the path as the user spelled it."""

    def __init__(self, found: Finding, path: str) -> None:
        super().__init__(found)
        self.path = path


def load_all(
    paths: list[str], input_format: str | None, walked: bool, predicate: list[str], scenario: bytes | None,
    spool: SealSpools | None = None,
) -> tuple[list[FindingInput], list[FindingResults] | None, list[tuple[str, str]]]:
    """Every input of a seal, read, with its predicate results, and the walked files skipped
    with their code (docs/cli.md, "Inputs and folders"): a ``.json`` file found in a folder that
    no format accepts is not a trace and is listed as skipped, as every walk does; any other
    file that does not import fails the seal (:class:`InputRefused`), so nothing sealed as a
    campaign silently leaves evidence out. ``spool``: as :func:`load_finding`'s, shared by every
    input."""
    from tracekit.cli.trace_input import skipped

    items: list[FindingInput] = []
    results: list[FindingResults] | None = [] if predicate else None
    left_out: list[tuple[str, str]] = []
    for path in paths:
        try:
            item = load_finding(path, input_format, spool)
            if results is not None:
                results.append(predicate_results(path, item.evidence.format, predicate, scenario))
        except TracekitError as error:
            if walked and error.finding.code is Code.FORMAT_UNKNOWN and skipped(path, named=False):
                left_out.append((path, error.finding.code.value))
                continue
            raise InputRefused(error.finding, path) from None
        items.append(item)
    return items, results, left_out


def report_action(command: str, report: ActionReport, format: Format) -> None:
    """The report of a command that wrote an artifact (keygen, seal, redact, bundle extract and
    prove) on stdout; it exits 0."""
    from tracekit.cli.sink import emit
    from tracekit.report.bundle_render import render_action
    from tracekit.report.jsonout import set_head

    set_head(exit_code=0)
    emit(render_action(command, report, format.value))


def read_seed(key: Path) -> bytes:
    """The Ed25519 seed in the private key file ``key``; exits with ``bundle.key_invalid``."""
    from tracekit.bundle import keys

    refuse_folder(str(key))
    try:
        seed = keys.parse_private_key(read_key_file(key))
    except TracekitError:
        seed = None
    if seed is None:
        fail(Code.BUNDLE_KEY_INVALID)
    return seed
