"""File access for ``tracekit attest`` (docs/attest.md, "Statements"): hash each input, run
tracekit's own checks on it, and turn each verdict into a Test Result's fields. The statement
builder (tracekit/attest/) stays pure; this is its edge."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

import blake3

from tracekit.cli.common import absolute
from tracekit.kernel.errors import Code, ExitCode, TracekitError, finding

if TYPE_CHECKING:
    from tracekit.attest.statements import Result, Subject, Verdict

CHUNK = 1024 * 1024
RESULTS: dict[int, Result] = {ExitCode.OK: "PASSED", ExitCode.FAIL: "WARNED", ExitCode.ERROR: "FAILED"}


def subject_of(path: str, name: str, limit: int) -> Subject:
    """The file's SHA-256 and BLAKE3, read in chunks, at most ``limit`` bytes (step 1)."""
    from tracekit.attest.statements import Subject

    sha, b3, total = hashlib.sha256(), blake3.blake3(), 0
    try:
        with open(path, "rb") as handle:
            while chunk := handle.read(CHUNK):
                total += len(chunk)
                if total > limit:
                    raise TracekitError(finding(Code.FORMAT_TOO_LARGE, limit=limit))
                sha.update(chunk)
                b3.update(chunk)
    except OSError:
        raise TracekitError(finding(Code.FORMAT_UNREADABLE)) from None
    if total == 0:  # an input error like a missing file, never a verdict (docs/cli.md, "One code per mistake")
        raise TracekitError(finding(Code.FORMAT_EMPTY))
    return Subject(name, sha.hexdigest(), b3.hexdigest())


def _ids(exit_code: int, codes: list[str], passed: str) -> tuple[tuple[str, ...], ...]:
    """``(passed, warned, failed)`` test ids: the check's own id when it passed, else its codes."""
    if exit_code == ExitCode.OK:
        return (passed,), (), ()
    named = tuple(codes) or (passed,)
    return ((), (), named) if exit_code == ExitCode.ERROR else ((), named, ())


def verify_verdict(path: str, subject: Subject, trusted: list[bytes], bundle: bool) -> Verdict:
    """``verify``: a bundle's verification (docs/bundle-format.md section 7), or the trace's
    (docs/cli.md, verify); exit 0 PASSED, 1 WARNED, 2 FAILED, with the codes that explain it."""
    from tracekit.attest.statements import Verdict

    if bundle:
        from tracekit.cli.bundle_io import verify_path

        report = verify_path(path, trusted)
        exit_code, codes = report.exit_code, sorted({f.code.value for f in report.findings})
        subjects = (subject, *_root_subject(report.statement))
    else:
        from tracekit.cli.verify_job import VerifyJob, verify_job

        trace = verify_job(VerifyJob(path, absolute(path), False, False, ()))
        if trace is None:
            raise TracekitError(finding(Code.CLI_NO_INPUT))
        exit_code = trace.exit_code
        codes = sorted({row.code for row in trace.findings if row.severity in ("error", "warning")})
        subjects = (subject,)
    passed, warned, failed = _ids(exit_code, codes, "verify")
    return Verdict("verify", subjects, RESULTS[exit_code], passed, warned, failed)


def _root_subject(statement: object) -> tuple[Subject, ...]:
    """A verified bundle's root subject (both roots), linking tracekit's own predicate by digest."""
    from tracekit.attest.statements import Subject

    if not isinstance(statement, dict):
        return ()
    digest = statement["subject"][0]["digest"]
    if "sha256" not in digest:  # a bundle sealed before the SHA-256 root
        return ()
    return (Subject(statement["subject"][0]["name"], digest["sha256"], digest["blake3"]),)


def check_verdict(path: str, subject: Subject, scenario: bytes, config: Subject, strict: bool) -> Verdict:
    """``check``: the scenario's assertions against the harness trace (docs/harness.md); an
    assertion id is ``assertion[i]:TYPE`` (its position in the scenario, then its type);
    ``strict``: tracekit's strict semantics, as ``check --strict``. A trace of another format
    is not judged here: WARNED, ``check.not_run``."""
    from tracekit.attest.statements import Verdict
    from tracekit.cli import check_io
    from tracekit.cli.findings_io import sniffed_format
    from tracekit.judging.harness import evaluate, parse_scenario, parse_trace

    if sniffed_format(path) not in (None, "harness"):  # could not tell: not a harness trace
        return Verdict("check", (subject,), "WARNED", warned=("check.not_run",), configuration=(config,))
    try:
        result = evaluate(parse_scenario(scenario), parse_trace(check_io.read_trace(path)), strict)
    except TracekitError as error:
        return Verdict("check", (subject,), "FAILED", failed=(error.finding.code.value,), configuration=(config,))
    ids: dict[str, list[str]] = {"passed": [], "warned": [], "failed": []}
    for index, assertion in enumerate(result.assertions):
        bucket = {"pass": "passed", "not_run": "warned"}.get(assertion.result, "failed")
        ids[bucket].append(f"assertion[{index}]:{assertion.id}")
    outcome: Result = {"pass": "PASSED", "not_run": "WARNED"}.get(result.result, "FAILED")  # type: ignore[assignment]
    return Verdict(
        "check",
        (subject,),
        outcome,
        tuple(ids["passed"]),
        tuple(ids["warned"]),
        tuple(ids["failed"]),
        (config,),
    )


def scenario_subject(path: Path) -> tuple[bytes, Subject]:
    """The scenario's bytes and its ResourceDescriptor (name and digests) for ``configuration``."""
    from tracekit.attest.statements import Subject
    from tracekit.cli.check_io import read_scenario
    from tracekit.judging.harness.scenario import parse_scenario

    data = read_scenario(str(path))
    parse_scenario(data)  # an unusable scenario fails the run up front
    return data, Subject(path.name, hashlib.sha256(data).hexdigest(), blake3.blake3(data).hexdigest())
