"""``-f otlp`` wherever ``-f ocsf`` is offered (docs/formats.md, "OTLP findings"): every document
parses, strictly, as the OpenTelemetry protocol's own ``ExportLogsServiceRequest``; one
``gen_ai.security.finding`` log record per finding, the same findings and uids as the OCSF
output, and the same bytes on every run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord

from tests.helpers import CORPUS, run_cli
from tracekit import __version__

TAMPERED = CORPUS / "invalid" / "chain__deleted_event.jsonl"
GOOD = CORPUS / "valid" / "v2__clean_run.jsonl"
HARNESS = CORPUS / "harness" / "s1_every_name_counts"
INSPECT = CORPUS / "third_party" / "inspect" / "tracekit_corpus.eval"
SCENARIO = CORPUS / "findings" / "exfil-email.yaml"

FAILING = {
    "verify": ("verify", str(TAMPERED), str(GOOD)),
    "audit": ("audit", str(CORPUS / "audit" / "agentguard" / "forgery__duplicate_check_name.jsonl")),
    "replay": ("replay", str(CORPUS / "replay" / "equivalence__lying_check_passed.jsonl")),
    "check": ("check", "--strict", str(HARNESS / "scenario.yaml"), str(HARNESS / "fail__denied_name_behind_benign_name.json")),
    "check-inspect": ("check", str(SCENARIO), str(INSPECT), "--strict"),
    "check-campaign": ("check", str(SCENARIO), str(CORPUS / "third_party")),
}
PASSING = {
    "verify": ("verify", str(GOOD)),
    "replay": ("replay", str(CORPUS / "replay" / "equivalence__failed_checks_reordered.jsonl")),
}
DRAFT_REQUIRED = ("gen_ai.security.policy.id", "gen_ai.security.risk.finding", "gen_ai.security.target.type")


def _run(*args: str) -> tuple[int, bytes]:
    result = run_cli(*args, "-f", "otlp", "-q")
    assert result.returncode in (0, 1, 2), result.stderr
    assert b"Traceback" not in result.stderr
    return result.returncode, result.stdout


def _parsed(stdout: bytes) -> ExportLogsServiceRequest:
    """The real protocol's message, strictly: an unknown field or a wrong type is refused."""
    request = ExportLogsServiceRequest()
    json_format.Parse(stdout.decode("ascii"), request, ignore_unknown_fields=False)
    return request


def _records(request: ExportLogsServiceRequest) -> list[LogRecord]:
    (resource,) = request.resource_logs
    assert {a.key: a.value.string_value for a in resource.resource.attributes} == {
        "service.name": "tracekit", "service.version": __version__,
    }
    (scope,) = resource.scope_logs
    assert (scope.scope.name, scope.scope.version) == ("tracekit", __version__)
    return list(scope.log_records)


def _attributes(record: LogRecord) -> dict[str, object]:
    out: dict[str, object] = {}
    for attribute in record.attributes:
        value = attribute.value
        kind = value.WhichOneof("value")
        out[attribute.key] = [v.string_value for v in value.array_value.values] if kind == "array_value" else getattr(value, kind)
    return out


def _ocsf(*args: str) -> list[dict]:
    result = run_cli(*args, "-f", "ocsf", "-q")
    return [json.loads(line) for line in result.stdout.decode().splitlines() if line]


@pytest.mark.parametrize("case", sorted(FAILING))
def test_every_finding_is_one_draft_event_as_in_ocsf(case: str) -> None:
    args = FAILING[case]
    code, stdout = _run(*args)
    assert code in (1, 2) or args[0] == "check"
    records = _records(_parsed(stdout))
    events = _ocsf(*args)
    assert records and len(records) == len(events)
    for record, event in zip(records, events, strict=True):
        attributes = _attributes(record)
        facts = event["unmapped"]["tracekit"]
        assert record.event_name == "gen_ai.security.finding"
        assert record.time_unix_nano == record.observed_time_unix_nano == 0
        assert all(isinstance(attributes[key], str) and attributes[key] for key in DRAFT_REQUIRED)
        assert attributes["gen_ai.security.external_finding_id"] == event["finding_info"]["uid"]
        assert attributes["gen_ai.security.verdict.code"] == attributes["gen_ai.security.policy.rule.id"] == facts["code"]
        assert record.body.string_value == attributes["gen_ai.security.verdict.reason"] == event["message"]
        assert attributes["tracekit.command"] == facts["command"] == args[0]
        assert attributes["gen_ai.security.target.id"] == facts["path"]
        assert attributes["tracekit.exit_code"] == facts["exit_code"]
        assert record.severity_text == facts["severity"]
        assert attributes.get("tracekit.line") == facts["line"]
        assert attributes.get("tracekit.where") == facts.get("where")
        assert attributes["gen_ai.security.verdict.type"] != "allow"


@pytest.mark.parametrize("case", sorted(PASSING))
def test_a_passing_run_has_no_denying_record(case: str) -> None:
    """A pass: only what OCSF also reports (informational notes, or nothing), never ``deny``."""
    code, stdout = _run(*PASSING[case])
    assert code == 0
    records = _records(_parsed(stdout))
    assert len(records) == len(_ocsf(*PASSING[case]))
    assert all(_attributes(r)["gen_ai.security.verdict.type"] == "audit" for r in records)


@pytest.mark.parametrize("case", ["verify", "audit", "check-campaign"])
def test_output_is_byte_deterministic(case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    first, second = _run(*FAILING[case]), _run(*FAILING[case])
    assert first == second
    assert first[1].endswith(b"\n") and first[1].count(b"\n") == 1


def test_severity_and_verdict_follow_ours() -> None:
    records = _records(_parsed(_run(*FAILING["verify"])[1]))
    mapped = {r.severity_text: (r.severity_number, _attributes(r)["gen_ai.security.verdict.type"]) for r in records}
    assert mapped["error"] == (17, "deny")
    assert set(mapped) <= {"error", "warning", "notice", "info"}


def test_audit_evidence_names_line_and_field_path() -> None:
    records = _records(_parsed(_run(*FAILING["audit"])[1]))
    located = [_attributes(r) for r in records if "tracekit.where" in _attributes(r)]
    assert located
    for attributes in located:
        assert f"position:{attributes['tracekit.where']}" in attributes["gen_ai.security.finding.evidence"]


def test_otlp_is_refused_in_suite_mode() -> None:
    result = run_cli("check", "--suite", str(HARNESS), "--trace-dir", str(HARNESS), "-f", "otlp")
    assert result.returncode == 2 and b"cli.option_conflict" in result.stderr


@pytest.fixture(scope="module")
def keypair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("keys")
    assert run_cli("keygen", "-o", str(folder / "k"), "-q").returncode == 0
    return folder / "k.key", folder / "k.pub"


def test_bundles_and_attestations(tmp_path: Path, keypair: tuple[Path, Path]) -> None:
    """Sealed bundles and attestation files: trusted and intact is no record; an untrusted key
    and an unsigned attestation are one finding each, as in OCSF."""
    bundle, attestation = tmp_path / "b.tkb", tmp_path / "u.intoto.jsonl"
    assert run_cli("seal", str(GOOD), "-o", str(bundle), "--key", str(keypair[0]), "-q").returncode == 0
    assert run_cli("attest", str(GOOD), "-o", str(attestation), "-q").returncode == 0
    code, trusted = _run("verify", str(bundle), "--trusted-key", str(keypair[1]))
    assert code == 0 and _records(_parsed(trusted)) == []
    for args, expected in (
        (("verify", str(bundle)), "bundle.untrusted_key"),
        (("verify", str(attestation), "--trusted-key", str(keypair[1])), "attest.unsigned"),
    ):
        code, stdout = _run(*args)
        records = _records(_parsed(stdout))
        assert code == 1 and expected in [_attributes(r)["gen_ai.security.verdict.code"] for r in records]
        assert len(records) == len(_ocsf(*args))


CANARY = "CANARY-7f3a-otlp"


@pytest.mark.parametrize("command", ["verify", "audit"])
def test_no_trace_content_reaches_a_record(command: str, tmp_path: Path) -> None:
    """Hostile input: the canary in a value the writer names, in an unknown key and in a value the
    chain commits to (so the trace fails); no byte of it reaches the request."""
    lines = [json.loads(line) for line in GOOD.read_text().splitlines()]
    lines[0]["agent_name"] = CANARY
    lines[0][CANARY] = CANARY
    lines[-1][CANARY] = {CANARY: [CANARY]}
    trace = tmp_path / "t.jsonl"
    trace.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = run_cli(command, str(trace), "-f", "otlp")
    assert result.returncode in (1, 2) and b"Traceback" not in result.stderr
    assert _records(_parsed(result.stdout))
    assert CANARY.encode() not in result.stdout + result.stderr


def test_identical_findings_keep_distinct_ids_and_order() -> None:
    """Pure renderer: two identical findings in one trace get the OCSF output's two uids."""
    from tracekit.report.findings import FindingRow, TraceFindings
    from tracekit.report.ocsf import event_time_ms, render_ocsf
    from tracekit.report.otlp import render_otlp

    row = FindingRow("chain.event_hash_mismatch", "error", 3, "fixed text")
    traces = [TraceFindings("a.jsonl", 1, (row, row, FindingRow("x.y", "notice", None, "other")))]
    records = _records(_parsed(render_otlp("verify", traces).encode()))
    ids = [_attributes(r)["gen_ai.security.external_finding_id"] for r in records]
    ocsf = [json.loads(line)["finding_info"]["uid"] for line in render_ocsf("verify", traces, event_time_ms()).splitlines()]
    assert ids == ocsf and len(set(ids)) == 3
    assert [r.severity_number for r in records] == [17, 17, 10]
    assert _attributes(records[0])["gen_ai.security.finding.evidence"] == ["line:3"]
    assert "gen_ai.security.finding.evidence" not in _attributes(records[2])
    assert _records(_parsed(render_otlp("verify", []).encode())) == []
