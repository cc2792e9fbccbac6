"""Typed reports and pure renderers of the bundle commands: ``verify`` on bundles, ``bundle
show``, and the reports of ``keygen``, ``seal``, ``redact``, ``bundle extract`` and ``bundle prove``
(docs/bundle-format.md, docs/cli.md).

Reports hold digests, counts, lengths, our codes and names, and paths the user named; never
bundle content. The statement and the envelope of ``bundle show`` are decoded into closed
Structs (the predicate's schema is closed, docs/bundle-format.md section 6), so a bundle sealed
by someone else can put nothing of its own into the report but digests and base64 of the
payload it signed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from tracekit import REPORT_VERSION
from tracekit.bundle.predicate import Predicate
from tracekit.bundle.verify import BundleReport
from tracekit.kernel.errors import worst
from tracekit.report.events import render_events
from tracekit.report.findings import FindingRow, TraceFindings, render_junit, render_sarif
from tracekit.report.jsonout import dumps_struct
from tracekit.report.skipped import SkippedFile
from tracekit.report.text import display_path, md_escape, md_table, table

FORMATS = ("table", "json", "markdown")
FINDINGS_FORMATS = (*FORMATS, "junit", "sarif", "ocsf", "otlp")


class Original(msgspec.Struct, frozen=True):
    """One finding's original file: its blob digest, length and SHA-256; the SHA-256 is null
    when a version 3 bundle withholds it with the original (docs/bundle-format.md section 8)."""

    blake3: str
    length: int
    sha256: str | None


class WithheldBlob(msgspec.Struct, frozen=True):
    """A blob replaced by its digest (docs/bundle-format.md section 8)."""

    digest: str
    length: int
    reason: str


class BundleCheck(msgspec.Struct, frozen=True):
    """One bundle's verification (docs/bundle-format.md step 10)."""

    path: str
    exit_code: int
    kind: str | None
    root: str | None
    records: int
    blobs: int
    formats: tuple[str, ...]
    originals: tuple[Original, ...]
    withheld: tuple[WithheldBlob, ...]
    signers: tuple[str, ...]
    trusted_signers: tuple[str, ...]
    findings: tuple[FindingRow, ...]


class BundleVerify(msgspec.Struct, frozen=True):
    """``tracekit verify`` over bundles: the worst exit code and one check per bundle."""

    exit_code: int
    bundles: tuple[BundleCheck, ...]


class Subject(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A statement subject: our name and its digests."""

    name: str
    digest: dict[str, str]


class Statement(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The in-toto Statement v1 the envelope signs (docs/bundle-format.md section 6)."""

    type_: str = msgspec.field(name="_type")
    subject: tuple[Subject, ...] = ()
    predicate_type: str = msgspec.field(default="", name="predicateType")
    predicate: Predicate | None = None


class DsseSignature(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One DSSE signature: keyid and base64 signature."""

    keyid: str
    sig: str


class DsseEnvelope(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The standard DSSE envelope, as any DSSE implementation reads it."""

    payload: str
    payload_type: str = msgspec.field(name="payloadType")
    signatures: tuple[DsseSignature, ...] = ()


class BundleShow(msgspec.Struct, frozen=True):
    """``tracekit bundle show``: the verification, the statement and the envelope."""

    bundle: BundleCheck
    statement: Statement | None
    envelope: DsseEnvelope | None
    original_envelopes: tuple[DsseEnvelope | None, ...] = ()
    """Version 3: each original subject statement's envelope, null where withheld (section 6)."""


def bundle_check(path: str, report: BundleReport) -> BundleCheck:
    """The typed check of one bundle from the verifier's report."""
    return BundleCheck(
        path=path,
        exit_code=report.exit_code,
        kind=report.kind,
        root=report.root,
        records=report.records,
        blobs=report.blobs,
        formats=report.formats,
        originals=tuple(Original(b3, n, sha) for b3, n, sha in report.originals),
        withheld=tuple(WithheldBlob(w.digest, w.length, w.reason) for w in report.withheld),
        signers=report.signers,
        trusted_signers=report.trusted_signers,
        findings=tuple(FindingRow(f.code.value, f.severity.value, f.line, f.message) for f in report.findings),
    )


def bundle_verify(checks: Sequence[BundleCheck]) -> BundleVerify:
    """The report of ``verify`` over several bundles: the worst exit wins."""
    return BundleVerify(worst(*(c.exit_code for c in checks)), tuple(checks))


def bundle_show(path: str, report: BundleReport) -> BundleShow:
    """``bundle show``'s report. The statement and envelope were validated by the verifier
    (steps 8 and 9); decoding them again into closed Structs keeps the report typed."""
    statement = envelope = None
    if report.statement is not None:
        statement = msgspec.convert(report.statement, Statement, strict=True)
    if report.envelope is not None:
        envelope = msgspec.convert(report.envelope, DsseEnvelope, strict=True)
    originals = tuple(
        None if e is None else msgspec.convert(e, DsseEnvelope, strict=True) for e in report.original_envelopes
    )
    return BundleShow(bundle_check(path, report), statement, envelope, originals)


# -- the action reports: what a command wrote, as digests and counts ----------------------------


class KeygenReport(msgspec.Struct, frozen=True):
    """``tracekit keygen``: the key pair written."""

    keyid: str
    private_key: str
    public_key: str


class SealReport(msgspec.Struct, frozen=True):
    """``tracekit seal``: the bundle written."""

    output: str
    kind: str
    findings: int
    root: str
    signed_by: str | None
    formats: tuple[str, ...]
    predicate: tuple[str, ...]
    skipped: tuple[SkippedFile, ...] = ()
    """Walked files no format accepts, left out with their code (docs/cli.md, "Inputs and folders")."""


class RedactReport(msgspec.Struct, frozen=True):
    """``tracekit redact``: the redacted bundle written and what it withholds."""

    output: str
    root: str | None
    withheld: tuple[WithheldBlob, ...]


class ExtractReport(msgspec.Struct, frozen=True):
    """``tracekit bundle extract``: the blob written."""

    output: str
    digest: str
    length: int


class ProveReport(msgspec.Struct, frozen=True):
    """``tracekit bundle prove``: the proof bundle written."""

    output: str
    finding: int
    findings: int
    campaign_root: str | None


ActionReport = KeygenReport | SealReport | RedactReport | ExtractReport | ProveReport


# -- renderers ----------------------------------------------------------------------------------


def _json(command: str, report: msgspec.Struct) -> str:
    return dumps_struct(report, report_version=REPORT_VERSION, command=command)


_VERDICT = {0: "sealed and trusted", 1: "intact, needs action", 2: "INVALID"}


def _facts(check: BundleCheck) -> list[tuple[str, str]]:
    facts = [("path", display_path(check.path)), ("verdict", f"{_VERDICT.get(check.exit_code, '?')} (exit {check.exit_code})")]
    if check.root is not None:
        facts += [
            ("kind", str(check.kind)),
            ("root", check.root),
            ("records", str(check.records)),
            ("blobs", str(check.blobs)),
            ("formats", ", ".join(check.formats) or "-"),
        ]
        facts += [(f"original {i}", f"blake3 {o.blake3}, {o.length} bytes") for i, o in enumerate(check.originals)]
        facts += [
            ("signed by", f"{s} ({'trusted' if s in check.trusted_signers else 'not trusted'})") for s in check.signers
        ]
        facts += [("withheld", f"{w.digest} ({w.length} bytes, {w.reason})") for w in check.withheld]
    facts += [("finding", f"{f.severity}[{f.code}] {f.message}") for f in check.findings]
    return facts


def _check_table(check: BundleCheck) -> str:
    return table(_facts(check), tablefmt="plain")


def _check_markdown(check: BundleCheck) -> list[str]:
    return [f"## {md_escape(display_path(check.path))}", "", *md_table(["field", "value"], _facts(check)), ""]


def verify_table(report: BundleVerify) -> str:
    """Each bundle's facts, one block per bundle."""
    return "\n\n".join(_check_table(c) for c in report.bundles) + "\n"


def verify_markdown(report: BundleVerify) -> str:
    """Each bundle as a Markdown section with a field/value table."""
    return "\n".join(["# tracekit verify (bundles)", "", *(line for c in report.bundles for line in _check_markdown(c))])


def _as_findings(report: BundleVerify) -> list[TraceFindings]:
    return [TraceFindings(c.path, c.exit_code, c.findings) for c in report.bundles]


VERIFY_RENDERERS: dict[str, Callable[[BundleVerify], str]] = {
    "table": verify_table,
    "json": lambda r: _json("verify", r),
    "markdown": verify_markdown,
    "junit": lambda r: render_junit("verify", _as_findings(r)),
    "sarif": lambda r: render_sarif("verify", _as_findings(r)),
    "ocsf": lambda r: render_events("ocsf", "verify", _as_findings(r)),
    "otlp": lambda r: render_events("otlp", "verify", _as_findings(r)),
}


def _statement_facts(report: BundleShow) -> list[tuple[str, str]]:
    facts: list[tuple[str, str]] = []
    if report.statement is not None:
        facts += [(f"subject {s.name}", ", ".join(f"{k} {v}" for k, v in sorted(s.digest.items()))) for s in report.statement.subject]
        predicate = report.statement.predicate
        if predicate is not None:
            facts += [
                ("sealed by tracekit", predicate.tracekit_version),
                ("predicate results", ", ".join(_result_names(predicate)) or "-"),
                *_episode_facts(predicate),
            ]
    if report.envelope is not None:
        facts += [("payload type", report.envelope.payload_type)]
        facts += [("signature", s.keyid) for s in report.envelope.signatures]
    return facts


EPISODES_SHOWN = 20
"""The episode ids a table lists before it counts the rest (``-f json`` lists every one)."""


def _episode_facts(predicate: Predicate) -> list[tuple[str, str]]:
    """One row per episode id the statement names (docs/bundle-format.md section 6), each id
    whole on its row; a campaign's rows name their finding."""
    if predicate.episodes is None:
        return [("episodes", "not recorded (sealed before episode ids)")]
    named = [
        (f"finding {f} episode" if predicate.bundle_kind == "campaign" else "episode", ident)
        for f, ids in enumerate(predicate.episodes)
        for ident in ids
    ]
    if len(named) > EPISODES_SHOWN:
        more = len(named) - EPISODES_SHOWN
        named = [*named[:EPISODES_SHOWN], ("episodes", f"{more} more (-f json lists every id)")]
    return named or [("episodes", "none")]


def _result_names(predicate: Predicate) -> list[str]:
    results = predicate.results
    if results is None:
        return []
    names = [n for n in ("verify", "audit", "check") if getattr(results, n) is not None]
    if results.per_finding is not None:
        names.append(f"per finding ({len(results.per_finding)})")
    return names


def show_table(report: BundleShow) -> str:
    """The verification facts, then the statement's subjects and the signatures."""
    return table([*_facts(report.bundle), *_statement_facts(report)], tablefmt="plain") + "\n"


def show_markdown(report: BundleShow) -> str:
    """The same facts as a Markdown field/value table."""
    rows = [*_facts(report.bundle), *_statement_facts(report)]
    return "\n".join([f"# {md_escape(display_path(report.bundle.path))}", "", *md_table(["field", "value"], rows)]) + "\n"


SHOW_RENDERERS: dict[str, Callable[[BundleShow], str]] = {
    "table": show_table,
    "json": lambda r: _json("bundle show", r),
    "markdown": show_markdown,
}


def _action_facts(report: ActionReport) -> list[tuple[str, str]]:
    facts: list[tuple[str, str]] = []
    for name in report.__struct_fields__:
        value = getattr(report, name)
        if name == "skipped":
            facts += [("skipped", f"{display_path(s.trace)} ({s.code})") for s in value]
            continue
        if name == "withheld":
            facts += [("withheld", f"{w.digest} ({w.length} bytes, {w.reason})") for w in value]
            continue
        if isinstance(value, tuple):
            value = ", ".join(value) or "-"
        elif value is None:
            value = "-"
        shown = display_path(value) if name in ("output", "private_key", "public_key") else str(value)
        facts.append((name.replace("_", " "), shown))
    return facts


def action_table(report: ActionReport) -> str:
    """A field/value table of what the command wrote."""
    return table(_action_facts(report), tablefmt="plain") + "\n"


def action_markdown(report: ActionReport) -> str:
    """The same facts as a Markdown table."""
    return "\n".join(md_table(["field", "value"], _action_facts(report))) + "\n"


def render_action(command: str, report: ActionReport, fmt: str) -> str:
    """Render the report of keygen, seal, redact, bundle extract or bundle prove."""
    if fmt == "json":
        return _json(command, report)
    return action_markdown(report) if fmt == "markdown" else action_table(report)
