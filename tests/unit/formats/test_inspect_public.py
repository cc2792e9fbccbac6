"""Public Inspect AI logs (test fixtures of the inspect_ai repository) read with the counts of
Inspect's own reader, ``inspect_ai.log.read_eval_log`` (corpus/third_party/inspect/public/
counts.expected.json), and their run status as evidence (docs/formats.md, "Run status")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tracekit.formats import registry
from tracekit.formats.reading import load_file
from tracekit.judging.audit.imported import audit_evidence
from tracekit.kernel.errors import Code

PUBLIC = Path(__file__).resolve().parents[3] / "corpus" / "third_party" / "inspect" / "public"
EXPECTED: dict[str, Any] = {k: v for k, v in json.loads((PUBLIC / "counts.expected.json").read_text()).items() if not k.startswith("_")}


def test_every_public_log_is_listed_in_sources_and_expected() -> None:
    files = sorted(p.name for p in PUBLIC.iterdir() if p.suffix in (".eval", ".json") and not p.name.endswith(".expected.json"))
    sources = (PUBLIC / "SOURCES").read_text()
    assert files == sorted(EXPECTED) and len(files) >= 6
    assert all(f"\n{name} | UKGovernmentBEIS/inspect_ai | " in sources for name in files)
    assert "MIT License" in (PUBLIC / "NOTICE").read_text()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_public_log_is_inspect_and_nothing_else(name: str) -> None:
    path = PUBLIC / name
    assert registry.accepting(path.read_bytes()[:65536], path.suffix) == ("inspect",)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_public_log_matches_inspects_own_reader(name: str) -> None:
    want = EXPECTED[name]
    evidence = load_file(PUBLIC / name)
    assert len(evidence.episodes) == want["samples"]
    assert sorted(len(e.messages) for e in evidence.episodes) == want["messages"]
    assert sorted(e.id.replace("_epoch_", "/") for e in evidence.episodes) == want["sample_ids"]
    kinds = [p.kind for p in evidence.run_problems]
    assert ("not_finished" in kinds) is (want["status"] != "success")
    assert ("samples_missing" in kinds) is (want["total_samples"] > want["samples"])


def test_a_cancelled_run_without_samples_audits_as_a_failed_run_with_no_episode() -> None:
    path = PUBLIC / "2025-05-12T20-28-13-04-00_no-samples.json"
    report = audit_evidence(str(path), load_file(path))
    codes = {f.code for f in report.findings}
    assert {Code.AUDIT_RUN_NOT_FINISHED, Code.AUDIT_RUN_SAMPLES_MISSING} <= codes
    assert report.episodes == () and not report.rerunnable and report.exit_code == 1
    assert any("cancelled" in f.message for f in report.findings)
