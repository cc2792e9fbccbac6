"""Every command that reads a trace, on every format, through the installed CLI
(docs/formats.md, "Using it from the command line")."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import CORPUS, FIXTURE, ROOT, run_cli
from tracekit.cli.common import InputFormat
from tracekit.formats.registry import FORMAT_NAMES
from tracekit.kernel.canonical import jcs_bytes

THIRD = CORPUS / "third_party"
HOSTILE = CORPUS / "hostile"
IMPORTED = ("inspect", "otel", "agentdojo", "garak")
CANARY = "CANARY-formats-cli-Zq8-do-not-echo"
SAMPLES = {
    "inspect": THIRD / "inspect" / "tracekit_corpus.eval",
    "otel": THIRD / "otel" / "genai_content.otlp.jsonl",
    "agentdojo": THIRD / "agentdojo" / "runs" / "scripted-model" / "workspace" / "user_task_14"
    / "injecagent" / "injection_task_0.json",
    "garak": THIRD / "garak" / "repeat.report.jsonl",
    "harness": CORPUS / "audit" / "harness" / "complete.json",
}
READERS = (("verify",), ("show",), ("replayability",), ("replay",), ("audit",))


def _json(*args: str, stdin: bytes | None = None) -> tuple[int, dict[str, Any], bytes]:
    result = run_cli(*args, "-f", "json", "-q", stdin=stdin)
    assert b"Traceback" not in result.stderr
    return result.returncode, json.loads(result.stdout), result.stderr


def _traces(path: Path) -> list[Path]:
    return sorted(
        p for p in path.rglob("*")
        if p.suffix in (".jsonl", ".json", ".eval") and not p.name.endswith(".expected.json")
    )


def test_input_format_choices_are_the_registry() -> None:
    assert tuple(f.value for f in InputFormat) == FORMAT_NAMES


def test_verify_detects_every_third_party_file_as_its_own_format() -> None:
    """Nothing is 'tampered' or 'not valid JSON': each file loads through its own importer and
    is reported without integrity data (exit 1)."""
    code, doc, _ = _json("verify", *(str(THIRD / name) for name in IMPORTED))
    assert code == 1
    by_path = {t["path"]: t for t in doc["traces"]}
    for name in IMPORTED:
        files = _traces(THIRD / name)
        assert files
        for path in files:
            trace = by_path[str(path)]
            assert trace["format"] == name, path
            assert trace["status"] == "no_integrity" and trace["exit_code"] == 1
            assert [f["code"] for f in trace["findings"]] == ["verify.no_integrity"]
    assert doc["summary"]["no_integrity"] == len(doc["traces"]) and doc["summary"]["invalid"] == 0


def test_verify_names_the_format_and_stays_intact_for_agentguard() -> None:
    code, doc, _ = _json("verify", str(FIXTURE), str(SAMPLES["harness"]))
    assert code == 1
    agentguard, harness = doc["traces"]
    assert (agentguard["format"], agentguard["status"]) == ("agentguard", "intact")
    assert (harness["format"], harness["status"]) == ("harness", "no_integrity")


def _unknown(tmp_path: Path) -> Path:
    path = tmp_path / f"{CANARY}.json"
    path.write_text(json.dumps({CANARY: [CANARY]}))
    return path


@pytest.mark.parametrize("command", READERS, ids=lambda c: c[0])
def test_a_file_no_format_accepts_is_format_unknown(command: tuple[str, ...], tmp_path: Path) -> None:
    result = run_cli(*command, str(_unknown(tmp_path)), "-q")
    assert result.returncode == 2
    out = result.stdout + result.stderr
    assert b"format.unknown" in out and b"agentdojo, garak" in out
    assert b"Traceback" not in out
    assert out.count(CANARY.encode()) <= out.count(f"{CANARY}.json".encode())  # only the path we gave


@pytest.mark.parametrize("command", READERS, ids=lambda c: c[0])
def test_input_format_overrides_detection(command: tuple[str, ...]) -> None:
    """An AgentGuard trace forced to garak gets garak's own error, from every command."""
    result = run_cli(*command, str(FIXTURE), "--input-format", "garak", "-q")
    assert result.returncode == 2
    if command[0] in ("replay", "replayability"):  # refused before anything is loaded
        assert b"replay.format_not_replayable" in result.stderr
    else:
        assert b"garak." in result.stdout + result.stderr


def test_input_format_rejects_an_unknown_name() -> None:
    result = run_cli("verify", str(FIXTURE), "--input-format", "csv")
    assert result.returncode == 2 and b"Traceback" not in result.stderr


@pytest.mark.parametrize("command", ["replay", "replayability"])
def test_replay_says_it_cannot_replay_another_format(command: str) -> None:
    result = run_cli(command, str(SAMPLES["garak"]))
    assert result.returncode == 2
    assert b"replay.format_not_replayable" in result.stderr and b"garak" in result.stderr
    assert b"tampered" not in result.stderr and b"not valid JSON" not in result.stderr


@pytest.mark.parametrize("fmt", IMPORTED)
def test_hostile_files_get_their_own_format_code(fmt: str) -> None:
    """corpus/hostile/<format>/expected.json: every case through verify, by detection; the
    canary never reaches the output."""
    expected = json.loads((HOSTILE / fmt / "expected.json").read_text())
    cases = expected["cases"]
    code, doc, stderr = _json("verify", *(str(HOSTILE / fmt / name) for name in sorted(cases)))
    assert code == 2
    for trace in doc["traces"]:
        case = cases[Path(trace["path"]).name]
        if case["code"] is None:
            assert trace["format"] == fmt and trace["status"] == "no_integrity"
        else:
            assert trace["exit_code"] == 2 and trace["findings"][0]["code"] == case["code"], trace["path"]
    canary = expected["canary"].encode()
    stdout = json.dumps([t["findings"] for t in doc["traces"]]).encode()
    assert canary not in stdout and canary not in stderr


def test_stdin_is_detected_too() -> None:
    code, doc, _ = _json("verify", "-", stdin=SAMPLES["inspect"].read_bytes())
    assert code == 1 and doc["traces"][0]["format"] == "inspect"
    code, doc, _ = _json("verify", "-", stdin=FIXTURE.read_bytes())
    assert code in (0, 1) and doc["traces"][0]["format"] == "agentguard"
    code, doc, _ = _json("audit", "-", stdin=SAMPLES["garak"].read_bytes())
    assert doc["traces"][0]["format"] == "garak" and doc["traces"][0]["episodes"]


def test_walking_a_folder_skips_ground_truth_and_unknown_json(tmp_path: Path) -> None:
    campaign = tmp_path / "campaign"
    campaign.mkdir()
    (campaign / "trace.jsonl").write_bytes(FIXTURE.read_bytes())
    (campaign / "trace.jsonl.expected.json").write_text('{"not": "a trace"}')
    (campaign / "run.eval").write_bytes(SAMPLES["inspect"].read_bytes())
    (campaign / "results.json").write_text('{"score": 1}')
    code, doc, _ = _json("verify", str(campaign))
    assert sorted(Path(t["path"]).name for t in doc["traces"]) == ["run.eval", "trace.jsonl"]
    assert code == 1
    code, doc, _ = _json("audit", str(campaign))
    assert doc["summary"]["total"] == 2 and doc["summary"]["skipped_non_trace_files"] == 1
    (campaign / "broken.jsonl").write_text("")  # a damaged trace never vanishes
    code, doc, _ = _json("verify", str(campaign))
    broken = next(t for t in doc["traces"] if t["path"].endswith("broken.jsonl"))
    assert code == 2 and broken["findings"][0]["code"] == "format.empty"  # docs/cli.md, "One code per mistake"


@pytest.mark.parametrize("fmt", [*IMPORTED, "harness"])
def test_show_prints_what_a_file_holds(fmt: str) -> None:
    code, doc, stderr = _json("show", str(SAMPLES[fmt]))
    assert code == 0, stderr
    assert doc["format"] == fmt and doc["episode_count"] == len(doc["episodes"]) >= 1
    for episode in doc["episodes"]:
        assert set(episode["messages"]) == {"system", "developer", "user", "assistant", "tool", "other"}
        assert episode["tool_calls"] >= len(episode["tool_names"])
    for form in ("table", "markdown"):
        shown = run_cli("show", str(SAMPLES[fmt]), "-f", form, "-q")
        assert shown.returncode == 0 and shown.stdout


def test_show_never_prints_content(tmp_path: Path) -> None:
    """Message text, arguments and results stay out; a hostile tool name is withheld."""
    trace = {
        "messages": [
            {"role": "system", "content": CANARY},
            {"role": "user", "content": CANARY},
        ],
        "tool_calls": [
            {"name": "\x1b[31m" + CANARY, "arguments": {"to": CANARY}, "result": CANARY},
            {"name": "send_email", "arguments": {CANARY: 1}, "result": {"ok": CANARY}},
        ],
        "events": [],
    }
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(trace))
    for form in ("json", "table", "markdown"):
        result = run_cli("show", str(path), "-f", form, "-q")
        assert result.returncode == 0, result.stderr
        assert CANARY.encode() not in result.stdout + result.stderr
        assert b"\x1b" not in result.stdout
        assert b"send_email" in result.stdout
    audit = run_cli("audit", str(path), "-f", "json", "-q")
    assert CANARY.encode() not in audit.stdout + audit.stderr


def test_audit_json_adds_format_and_episodes() -> None:
    code, doc, _ = _json("audit", *(str(SAMPLES[name]) for name in (*IMPORTED, "harness")), str(FIXTURE))
    for trace in doc["traces"]:
        assert trace["format"] in FORMAT_NAMES and trace["episodes"]
        for episode in trace["episodes"]:
            assert set(episode) == {"id", "completeness", "findings"}
            assert len(episode["id"]) <= 64
    by_format = doc["summary"]["by_format"]
    assert set(by_format) == {*IMPORTED, "harness", "agentguard"}
    assert by_format["agentguard"]["intact"] == 1 and by_format["garak"]["intact"] == 0


def test_audit_reports_evidence_consistency_per_episode(tmp_path: Path) -> None:
    """A tool message answering a call no assistant made: evidence.dangling_call_id on the
    episode and on the file (so the exit code carries it)."""
    doc = json.loads((SAMPLES["agentdojo"]).read_text())
    for message in doc["messages"]:
        if message.get("role") == "tool" and message.get("tool_call_id") is not None:
            message["tool_call_id"] = "no-such-call"
            break
    else:
        pytest.skip("the sample has no tool message with a call id")
    path = tmp_path / "dangling.json"
    path.write_text(json.dumps(doc))
    code, report, _ = _json("audit", str(path))
    trace = report["traces"][0]
    assert trace["format"] == "agentdojo"
    assert "evidence.dangling_call_id" in {f["code"] for f in trace["episodes"][0]["findings"]}
    located = [f for f in trace["findings"] if f["code"] == "evidence.dangling_call_id"]
    assert located and located[0]["where"] == "episodes[0]" and code == 1
    assert trace["rerunnable"] is False


def test_one_trace_on_several_cores_gives_the_same_report(tmp_path: Path) -> None:
    """verify with one file and --jobs 2 runs tracekit.formats.agentguard.verify_parallel; the output is the
    serial one, byte for byte (docs/performance.md)."""
    path = tmp_path / "big.jsonl"
    # Built in a child process: the test process stays small (tests/cli/test_resources.py
    # measures children whose peak memory counts the parent's at fork).
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); import tracegen; "
        "open(sys.argv[2], 'wb').write(tracegen.build(events=600, target_bytes=3_000_000, seed=5, name='cli'))"
    )
    subprocess.run([sys.executable, "-c", script, str(ROOT / "bench"), str(path)], check=True, timeout=120)
    serial = run_cli("verify", str(path), "-f", "json")
    parallel = run_cli("verify", str(path), "-f", "json", "--jobs", "2")
    assert serial.returncode == parallel.returncode == 0
    assert serial.stdout == parallel.stdout and serial.stderr == parallel.stderr
    tampered = bytearray(path.read_bytes())
    middle = tampered.index(b'"agent_command"', len(tampered) // 2)
    tampered[middle + 1 : middle + 6] = b"AGENT"
    path.write_bytes(bytes(tampered))
    serial = run_cli("verify", str(path), "-f", "json")
    parallel = run_cli("verify", str(path), "-f", "json", "--jobs", "2")
    assert serial.returncode == parallel.returncode == 2
    assert serial.stdout == parallel.stdout


@pytest.mark.parametrize("name", ["tracekit_corpus.eval", "tracekit_corpus.json"])
def test_audit_and_show_match_the_real_inspect_log_field_by_field(name: str) -> None:
    """The ground truth written when the log was made (<name>.expected.json) against what
    audit and show report through the installed CLI: each episode's calls by name, the injection
    sample's send_email call with its arguments verbatim (their digest equals the digest of the
    arguments the tool was given; typed, not stringified), every recorded result byte for byte
    (size and digest), the tool output Inspect cut with the bytes lost, the tool error, and the
    crash."""
    path = THIRD / "inspect" / name
    truth = json.loads(path.with_name(name + ".expected.json").read_text())["episodes"]
    code, audit, _ = _json("audit", str(path))
    assert code == 1
    trace = audit["traces"][0]
    assert trace["format"] == "inspect" and trace["intact"] is None
    episodes = {e["id"]: e for e in trace["episodes"]}
    _, show, _ = _json("show", str(path))
    shown = {e["id"]: e for e in show["episodes"]}
    assert len(episodes) == len(shown) == len(truth)
    for want in truth:
        label = f"{want['id']}_epoch_{want['epoch']}"
        rows = {r["field"]: r for r in episodes[label]["completeness"]}
        held = shown[label]
        calls = want["tool_calls"]
        assert held["tool_calls"] == len(calls), label
        assert list(held["tool_names"]) == list(dict.fromkeys(c["name"] for c in calls))
        if calls and all(isinstance(c["arguments"], dict) for c in calls):
            assert rows["tool_name"]["status"] == "present"
            assert rows["tool_arguments"]["status"] == "present"
            assert rows["arguments_typed"]["status"] == "present"
        lost = sum(t["raw_bytes"] - t["kept_bytes"] for t in want["truncations"])
        assert held["bytes_lost"] == lost and held["truncations"] == len(want["truncations"])
        if want["truncations"]:
            assert rows["results_untruncated"]["status"] == "partial"
            assert "result_cut_16k" in rows["results_untruncated"]["where"]
            assert "result_cut_16k" in held["losses"]
        else:
            assert rows["results_untruncated"]["status"] == "present"
        errors = sum(1 for c in calls if c["outcome"] == "error")
        assert held["tool_errors"] == errors
        crashed = sum(1 for c in calls if c["outcome"] == "crash")
        assert held["calls_without_result"] == crashed
        if crashed:
            assert rows["tool_result"]["status"] != "present"
        assert bool(held["errors"]) == (want["error"] is not None or errors > 0), label
        if want["error"] is not None:
            assert rows["outcome"]["status"] == "missing"  # the crash left no score
        scores = {s["scorer"]: s["value"] for s in held["scores"]}
        assert scores == (want["scores"] or {}), label
        for call, truth_call in zip(held["calls"], calls, strict=True):
            assert call["name"] == truth_call["name"]
            assert call["arguments_shape"] == "object"
            assert call["arguments_sha256"] == hashlib.sha256(jcs_bytes(truth_call["arguments"])).hexdigest()
            cut = {t["call_id"] for t in want["truncations"]}
            if truth_call["call_id"] in cut:  # the log holds what Inspect kept, not the output
                assert call["result_bytes"] < truth_call["result_bytes"]
            elif "result_sha256" in truth_call:  # verbatim result, byte for byte
                assert (call["result_bytes"], call["result_sha256"]) == (
                    truth_call["result_bytes"],
                    truth_call["result_sha256"],
                ), label
    injection = [w for w in truth if w["external_recipients"]]
    assert injection
    for want in injection:
        label = f"{want['id']}_epoch_{want['epoch']}"
        assert "send_email" in shown[label]["tool_names"]
        send = [c for c in want["tool_calls"] if c["name"] == "send_email"]
        assert send and all(want["external_recipients"][0] in json.dumps(c["arguments"]) for c in send)
        assert {r["field"]: r["status"] for r in episodes[label]["completeness"]}["tool_arguments"] == "present"
