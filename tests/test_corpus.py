"""Every golden corpus case gives its documented exit code and finding code."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import CORPUS, FIXTURE, run_cli
from tracekit.formats.agentguard.verify import VerifyOptions, verify_file


def _verify_cases() -> list[tuple[Path, str, dict[str, Any]]]:
    cases = []
    for manifest in sorted(CORPUS.glob("**/expected.json")):
        for name, expected in json.loads(manifest.read_text()).items():
            if not isinstance(expected, dict):
                continue
            for command, outcome in expected.items():
                if command.startswith("verify") and isinstance(outcome, dict):
                    cases.append((manifest.parent / name, command, outcome))
    return cases


CASES = _verify_cases()


def test_corpus_is_not_empty() -> None:
    assert len(CASES) > 80


@pytest.mark.parametrize(("path", "command", "outcome"), CASES, ids=[f"{p.parent.name}/{p.name}:{c}" for p, c, _ in CASES])
def test_corpus_case(path: Path, command: str, outcome: dict[str, Any]) -> None:
    options = VerifyOptions(
        canonical="--canonical" in command, strict_sources="--strict-sources" in command
    )
    report = verify_file(path, options)
    assert report.exit_code == outcome["exit"]
    serious = [f.code.value for f in report.findings if f.severity.value != "info"]
    if outcome["code"] is None:
        assert serious == []
    elif report.exit_code == 0:
        assert outcome["code"] in [f.code.value for f in report.findings]
    else:
        assert serious[0] == outcome["code"]


def test_generator_check_mode_detects_no_drift() -> None:
    result = subprocess.run(
        [sys.executable, str(CORPUS / "generate.py"), "--check"], capture_output=True, check=False
    )
    assert result.returncode == 0, result.stdout.decode()


def test_generator_check_mode_detects_drift(tmp_path: Path) -> None:
    # On a copy: the checked-in corpus is never modified, even by a test killed half-way.
    copy = tmp_path / "corpus"
    shutil.copytree(CORPUS, copy, ignore=shutil.ignore_patterns("third_party", "__pycache__"))
    victim = copy / "valid" / "v2__clean_run.jsonl"
    victim.write_bytes(victim.read_bytes() + b"\n")
    result = subprocess.run([sys.executable, str(copy / "generate.py"), "--check"], capture_output=True, check=False)
    assert result.returncode == 1
    assert b"drift: valid/v2__clean_run.jsonl" in result.stdout


def test_installed_cli_agrees_on_every_invalid_case() -> None:
    folder = CORPUS / "invalid"
    result = run_cli("verify", str(folder), "--format", "json", "-q")
    assert result.returncode == 2
    document = json.loads(result.stdout)
    expected = json.loads((folder / "expected.json").read_text())
    by_name = {Path(t["path"]).name: t for t in document["traces"]}
    assert set(by_name) == set(expected)
    from tracekit.formats import registry

    for name, outcome in expected.items():
        trace = by_name[name]
        assert trace["exit_code"] == outcome["verify"]["exit"], name
        errors = [f["code"] for f in trace["findings"] if f["severity"] == "error"]
        # The CLI detects the format first (docs/formats.md, "Using it from the command line"):
        # a file no format accepts is format.unknown, and an empty one format.empty (docs/cli.md,
        # "One code per mistake"), not an AgentGuard finding.
        data = (folder / name).read_bytes()
        code = outcome["verify"]["code"] if registry.detect(data, ".jsonl") else "format.unknown"
        code = code if data else "format.empty"
        assert errors[:1] == [code], name


def test_third_party_fixture_is_intact() -> None:
    report = verify_file(FIXTURE)
    assert report.exit_code == 0
    assert report.trace_id == "9fa22c7022dfa8b1c80e4c1d70acc903306ea04736062c3796aa418ce3eef544"
    assert [f.code.value for f in report.findings] == ["source.none_recorded"]
