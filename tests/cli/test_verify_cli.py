"""verify and show through the installed entry point, as a user runs them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from tests.helpers import CORPUS, FIXTURE, run_cli

VALID = CORPUS / "valid"
TAMPERED = CORPUS / "invalid" / "chain__tampered_payload.jsonl"


def test_fixture_verifies_with_exit_0() -> None:
    result = run_cli("verify", str(FIXTURE))
    assert result.returncode == 0
    assert b"intact" in result.stdout
    assert b"1 intact" in result.stderr


def test_python_dash_m_entry_point() -> None:
    import sys

    result = subprocess.run([sys.executable, "-m", "tracekit", "verify", str(FIXTURE), "-q"], capture_output=True, check=False)
    assert result.returncode == 0


def test_json_report_shape() -> None:
    result = run_cli("verify", str(FIXTURE), str(TAMPERED), "--format", "json", "-q")
    assert result.returncode == 2
    doc = json.loads(result.stdout)
    assert doc["report_version"] == 1
    first, second = doc["traces"]
    assert set(first) == {"path", "format", "exit_code", "status", "trace_id", "schema_version", "event_count", "findings", "sources"}
    assert first["exit_code"] == 0 and first["status"] == "intact" and first["schema_version"] == 2
    assert first["event_count"] == 6
    assert second["status"] == "invalid"
    assert second["findings"][0] == {
        "code": "chain.event_hash_mismatch",
        "severity": "error",
        "line": 3,
        "message": "Trace event 2 hash is invalid.",
    }
    assert doc["summary"] == {"total": 2, "intact": 1, "source_changed": 0, "source_missing": 0, "no_integrity": 0, "invalid": 1}


def test_folder_recursion_and_worst_exit_code() -> None:
    result = run_cli("verify", str(CORPUS / "sources"), "--format", "json", "-q")
    doc = json.loads(result.stdout)
    assert len(doc["traces"]) == 4
    assert result.returncode == 1


def test_jobs_gives_the_same_report() -> None:
    one = run_cli("verify", str(VALID), str(CORPUS / "invalid"), "--format", "json", "-q")
    two = run_cli("verify", str(VALID), str(CORPUS / "invalid"), "--format", "json", "-q", "--jobs", "2")
    assert one.returncode == two.returncode == 2
    assert one.stdout == two.stdout


def test_stdin_and_pipe_give_the_same_verdict() -> None:
    data = TAMPERED.read_bytes()
    from_stdin = run_cli("verify", "-", "--format", "json", "-q", stdin=data)
    from_file = run_cli("verify", str(TAMPERED), "--format", "json", "-q")
    assert from_stdin.returncode == from_file.returncode == 2
    assert json.loads(from_stdin.stdout)["traces"][0]["findings"] == json.loads(from_file.stdout)["traces"][0]["findings"]
    with subprocess.Popen(["cat", str(FIXTURE)], stdout=subprocess.PIPE) as cat:
        assert cat.stdout is not None
        piped = subprocess.run([*_cli(), "verify", "-", "-q"], stdin=cat.stdout, capture_output=True, check=False)
        cat.stdout.close()
    assert piped.returncode == 0


def _cli() -> list[str]:
    import sys

    return [str(Path(sys.executable).parent / "tracekit")]


def test_output_is_atomic_and_never_overwrites_without_force(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    assert run_cli("verify", str(FIXTURE), "-f", "json", "-o", str(out), "-q").returncode == 0
    first = out.read_bytes()
    again = run_cli("verify", str(FIXTURE), "-f", "json", "-o", str(out), "-q")
    assert again.returncode == 2 and b"cli.output_exists" in again.stderr
    assert out.read_bytes() == first
    assert run_cli("verify", str(FIXTURE), "-f", "json", "-o", str(out), "--force", "-q").returncode == 0
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_output_refuses_a_symlink(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    link = tmp_path / "out.json"
    os.symlink(victim, link)
    result = run_cli("verify", str(FIXTURE), "-o", str(link), "--force", "-q")
    assert result.returncode == 2 and b"cli.output_unsafe" in result.stderr
    assert victim.read_text() == "keep me"


def test_show_summarises_and_refuses_invalid_traces() -> None:
    ok = run_cli("show", str(FIXTURE))
    assert ok.returncode == 0
    for label in (b"trace id", b"root digest", b"truncated payloads", b"redaction markers", b"PASS"):
        assert label in ok.stdout
    bad = run_cli("show", str(TAMPERED))
    assert bad.returncode == 2 and bad.stdout == b""
    assert b"chain.event_hash_mismatch" in bad.stderr
    as_json = json.loads(run_cli("show", str(FIXTURE), "-f", "json").stdout)
    assert as_json["counts"]["check_result"] == 1


def test_missing_file_directory_and_usage_errors(tmp_path: Path) -> None:
    missing = run_cli("verify", str(tmp_path / "nope.jsonl"), "-q")
    assert missing.returncode == 2 and b"format.unreadable" in missing.stdout + missing.stderr
    empty = run_cli("verify", str(tmp_path), "-q")
    assert empty.returncode == 2 and b"cli.no_input" in empty.stderr
    usage = run_cli("verify", "--format", "yaml", str(FIXTURE))
    assert usage.returncode == 2
    assert b"Traceback" not in usage.stderr


def test_trusted_root_resolves_sources_after_relocation(tmp_path: Path) -> None:
    case = CORPUS / "sources" / "match"
    moved = tmp_path / "moved.jsonl"
    shutil.copy(case / "trace.jsonl", moved)
    lost = run_cli("verify", str(moved), "-q")
    assert lost.returncode == 1  # the required report is not beside the moved trace
    found = run_cli("verify", str(moved), "--trusted-root", f"RUN_ROOT={case}", "-q")
    assert found.returncode == 0
    bad_root = run_cli("verify", str(moved), "--trusted-root", "NOT_A_ROOT=/tmp", "-q")
    assert bad_root.returncode == 2


def test_symlink_escaping_the_run_folder_is_malformed(tmp_path: Path) -> None:
    case = CORPUS / "sources" / "match"
    run = tmp_path / "run"
    shutil.copytree(case, run)
    outside = tmp_path / "outside.json"
    outside.write_bytes((case / "reports" / "report.json").read_bytes())
    (run / "reports" / "report.json").unlink()
    os.symlink(outside, run / "reports" / "report.json")
    result = run_cli("verify", str(run / "trace.jsonl"), "--format", "json", "-q")
    assert result.returncode == 2
    codes = [f["code"] for f in json.loads(result.stdout)["traces"][0]["findings"]]
    assert "source.escapes_root" in codes
    assert str(tmp_path).encode() not in result.stderr


def test_unexpected_exception_maps_to_internal_error(tmp_path: Path) -> None:
    script = (
        "import tracekit.cli.verify_run as v\n"
        "def boom(*a, **k):\n    raise RuntimeError('secret detail')\n"
        "v.verify_batch = boom\n"
        "import sys; sys.argv = ['tracekit', 'verify', sys.argv[1]]\n"
        "from tracekit.cli.app import main; main()\n"
    )
    import sys

    result = subprocess.run([sys.executable, "-c", script, str(FIXTURE)], capture_output=True, check=False)
    assert result.returncode == 2
    assert b"internal.error" in result.stderr
    assert b"Traceback" not in result.stderr and b"secret detail" not in result.stderr
