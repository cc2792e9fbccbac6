"""``-f ocsf`` for verify, audit, replay and check (docs/formats.md, "OCSF findings"): every event
validates as an OCSF Detection Finding (py-ocsf-models), one per finding, with stable uids."""

from __future__ import annotations

import json

import pytest
from py_ocsf_models.events.findings.detection_finding import DetectionFinding

from tests.helpers import CORPUS, run_cli
from tracekit import __version__

TAMPERED = CORPUS / "invalid" / "chain__deleted_event.jsonl"
HARNESS = CORPUS / "harness" / "s1_every_name_counts"

CASES = {
    "verify": ("verify", str(TAMPERED), str(CORPUS / "valid" / "v2__clean_run.jsonl")),
    "audit": ("audit", str(CORPUS / "audit" / "agentguard" / "forgery__duplicate_check_name.jsonl")),
    "replay": ("replay", str(CORPUS / "replay" / "equivalence__lying_check_passed.jsonl")),
    "check": ("check", "--strict", str(HARNESS / "scenario.yaml"), str(HARNESS / "fail__denied_name_behind_benign_name.json")),
}


def _events(*args: str) -> list[dict]:
    result = run_cli(*args, "-f", "ocsf", "-q")
    assert result.returncode in (0, 1, 2), result.stderr
    assert not result.stderr or b"Traceback" not in result.stderr
    return [json.loads(line) for line in result.stdout.decode().splitlines()]


def _json_findings(*args: str) -> int:
    """How many findings the command's own JSON report holds (the count OCSF must match)."""
    document = json.loads(run_cli(*args, "-f", "json", "-q").stdout)
    if args[0] == "check":
        return sum(1 for a in document["assertions"] if a["result"] != "pass")
    if args[0] == "replay":
        return len(document.get("reasons", [])) + len(document.get("notices", [])) + len(document.get("differences", []))
    return sum(len(t["findings"]) for t in document["traces"])


@pytest.mark.parametrize("command", sorted(CASES))
def test_every_event_is_a_valid_detection_finding(command: str) -> None:
    args = CASES[command]
    events = _events(*args)
    assert events, "the case must produce findings"
    assert len(events) == _json_findings(*args)
    for event in events:
        typed = DetectionFinding.model_validate(event)
        assert typed.class_uid == 2004 and event["type_uid"] == 200401
        assert event["metadata"]["product"] == {"name": "tracekit", "vendor_name": "tracekit", "version": __version__}
        assert event["finding_info"]["uid"] == event["metadata"]["uid"]
        assert event["unmapped"]["tracekit"]["command"] == command
        assert event["evidences"][0]["data"] == event["unmapped"]["tracekit"]
    uids = [e["finding_info"]["uid"] for e in events]
    assert len(set(uids)) == len(uids)


def test_uids_are_stable_and_time_is_reproducible(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    first, second = _events(*CASES["verify"]), _events(*CASES["verify"])
    assert first == second
    assert {e["time"] for e in first} == {1_700_000_000_000}


def test_severity_is_mapped_from_ours() -> None:
    events = _events(*CASES["verify"])
    mapped = {e["unmapped"]["tracekit"]["severity"]: (e["severity_id"], e["severity"]) for e in events}
    assert mapped["error"] == (4, "High")
    assert set(mapped) <= {"error", "warning", "notice", "info"}


def test_check_ocsf_needs_one_harness_trace() -> None:
    result = run_cli("check", str(HARNESS / "scenario.yaml"), str(HARNESS), "-f", "ocsf")
    assert result.returncode == 2 and b"cli.option_needs" in result.stderr


def test_audit_events_carry_where_the_finding_applies() -> None:
    events = _events(*CASES["audit"])
    document = json.loads(run_cli(*CASES["audit"], "-f", "json", "-q").stdout)
    wheres = [f["where"] for t in document["traces"] for f in t["findings"]]
    assert any(wheres)
    assert [e["unmapped"]["tracekit"].get("where") for e in events] == wheres
