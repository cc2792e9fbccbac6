"""``tracekit metamorphic``: the per-source work budget, the typed report and the staging folder
the workers write into (docs/cli.md "tracekit metamorphic", docs/threat-model.md "Work budget").

Work is counted (cases run, bytes charged), never timed.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import time
from pathlib import Path

import msgspec
import pytest
from msgspec import UNSET

from tests.helpers import CORPUS, run_cli
from tracekit.formats.agentguard.verify import VerifyOptions, verify_bytes
from tracekit.judging.metamorphic import BY_NAME, NAMES, StudyConfig, TraceTask
from tracekit.judging.metamorphic.cases import (
    CASE_WEIGHT,
    MATCH_UNITS_PER_BYTE,
    case_cost,
    evaluate_source,
    match_units,
)
from tracekit.judging.metamorphic.relations import not_applicable
from tracekit.kernel.limits import DEFAULT_BUDGET, DEFAULT_LIMITS

CLEAN = CORPUS / "valid" / "v2__clean_run.jsonl"
TRACEKIT = str(Path(__file__).resolve().parents[2] / ".venv" / "bin" / "tracekit")


def _matched(data: bytes) -> int:
    report = verify_bytes(data, VerifyOptions(keep_events=True, check_sources=False))
    assert report.header is not None and report.header.policy_snapshot is not UNSET
    return match_units(report, report.header.policy_snapshot)


def _applicable_cost(data: bytes) -> int:
    """What one trial of every transform the clean trace's policy lets run is charged."""
    report = verify_bytes(data, VerifyOptions(check_sources=False))
    assert report.header is not None and report.header.policy_snapshot is not UNSET
    enabled = report.header.policy_snapshot.enabled_checks
    matched = _matched(data)
    return sum(case_cost(len(data), matched, name) for name in NAMES
               if not_applicable(BY_NAME[name].relation, enabled) is None)


@pytest.mark.parametrize("allowed", [0, 1, 3])
def test_the_budget_stops_a_source_after_the_cases_it_paid_for(allowed: int) -> None:
    data = CLEAN.read_bytes()
    unit = case_cost(len(data), _matched(data), "timestamp_variation")
    assert unit > len(data)  # the source's size and its replay's matching work
    config = StudyConfig(transforms=NAMES, trials=2, budget_bytes=allowed * unit + unit // 2)
    result = evaluate_source(TraceTask(1, "t.jsonl", "t.jsonl", config), data, None)
    run = [c for c in result.cases if not c.reason.startswith("not applicable: the policy")]
    assert len(run) == allowed  # every case that builds a trace was charged first
    assert result.charged == allowed * unit <= config.budget_bytes
    assert len(result.cases) + result.not_run == 2 * len(NAMES)
    assert result.not_run > 0


def test_a_heavier_case_is_charged_its_weight() -> None:
    data = CLEAN.read_bytes()
    matched = _matched(data)
    heavy = case_cost(len(data), matched, "canonical_reencoding")
    assert heavy - matched // MATCH_UNITS_PER_BYTE == 4 * len(data)
    config = StudyConfig(transforms=("canonical_reencoding", "timestamp_variation"), trials=2,
                         budget_bytes=2 * heavy - 1)
    result = evaluate_source(TraceTask(1, "t.jsonl", "t.jsonl", config), data, None)
    assert [c.transform for c in result.cases] == ["canonical_reencoding"]
    assert result.charged == heavy and result.not_run == 3


def test_the_default_budget_never_cuts_an_ordinary_study() -> None:
    """Every transform with 8 trials of a small trace, 2 trials of a realistic 1 MiB one (its
    matching about 6% of its size), stay inside the default; the largest trace the loader
    accepts gets two cases (docs/metamorphic.md)."""
    data = CLEAN.read_bytes()
    config = StudyConfig(transforms=NAMES, trials=8)
    result = evaluate_source(TraceTask(1, "t.jsonl", "t.jsonl", config), data, None)
    assert result.not_run == 0 and result.charged == 8 * _applicable_cost(data)
    every = sum(CASE_WEIGHT.get(name, 1) for name in NAMES) + 0.06 * len(NAMES)
    assert 2 * every * 1024 * 1024 <= DEFAULT_BUDGET.metamorphic_bytes
    assert DEFAULT_BUDGET.metamorphic_bytes // DEFAULT_LIMITS.total_bytes == 2


def test_a_cut_study_reports_the_code_counts_and_exits_1() -> None:
    size = CLEAN.stat().st_size
    args = ["metamorphic", str(CLEAN), "--format", "json", "--work-budget", str(2 * size)]
    result = run_cli(*args)
    assert result.returncode == 1, result.stderr.decode()
    assert b"[metamorphic.work_budget_exceeded]" in result.stderr
    assert f"({2 * size} bytes of transformed traces per source)".encode() in result.stderr
    doc = json.loads(result.stdout)
    stop = doc["work_budget_exceeded"]
    assert stop["sources"] == 1 and stop["bytes_per_source"] == 2 * size
    assert stop["cases_not_run"] == len(NAMES) - len(doc["cases"]) > 0
    assert doc["summary"]["changing"]["total"] + doc["summary"]["preserving"]["total"] <= 2
    # --allow-robustness-failures excuses failed relations, never cases that did not run
    allowed = run_cli(*args, "--allow-robustness-failures", "-q")
    assert allowed.returncode == 1
    for fmt in ("table", "markdown"):
        shown = run_cli("metamorphic", str(CLEAN), "-f", fmt, "-q", "--work-budget", str(size))
        assert shown.returncode == 1
        assert b"work budget reached: " in shown.stdout.lower()
    # Raised high enough, the same study runs every case and passes
    full = run_cli("metamorphic", str(CLEAN), "--format", "json", "-q", "--work-budget", str(100 * size))
    assert full.returncode == 0 and "work_budget_exceeded" not in json.loads(full.stdout)


def test_work_budget_is_refused_with_scenario_and_checked_as_a_number() -> None:
    scenario = CORPUS / "findings" / "exfil-email.yaml"
    result = run_cli("metamorphic", "--scenario", str(scenario), str(CLEAN), "--work-budget", "10")
    assert result.returncode == 2 and b"cli.option_conflict" in result.stderr
    bad = run_cli("metamorphic", str(CLEAN), "--work-budget", "0")
    assert bad.returncode == 2 and b"cli.usage" in bad.stderr


def test_the_json_report_is_derived_from_the_typed_head() -> None:
    """Keys come from the Structs: no key with a space, no number as a string, ``class`` named."""
    from tracekit.judging.metamorphic.report import StudyHead

    result = run_cli("metamorphic", str(CORPUS / "valid"), "--format", "json", "-q", "--trials", "2")
    assert result.returncode == 0
    doc = json.loads(result.stdout)
    assert (doc["command"], doc["exit_code"]) == ("metamorphic", 0)  # the head every report has
    head = {k: v for k, v in doc.items() if k not in ("cases", "skipped_sources", "command", "exit_code")}
    typed = msgspec.convert(head, StudyHead)
    assert json.loads(msgspec.json.encode(typed)) == head

    def walk(value: object) -> None:
        if isinstance(value, dict):
            assert all(" " not in key for key in value)
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        else:
            assert not (isinstance(value, str) and value.isdigit())

    walk(doc)


def test_ctrl_c_while_workers_write_leaves_nothing(tmp_path: Path) -> None:
    """The workers write into the staging folder themselves; a Ctrl-C while they do stops them
    before the folder is removed, so --output-dir stays empty."""
    runs = tmp_path / "runs"
    runs.mkdir()
    for i in range(40):
        shutil.copy(CLEAN, runs / f"t{i:02d}.jsonl")
    out = tmp_path / "out"
    out.mkdir()
    process = subprocess.Popen(
        [TRACEKIT, "metamorphic", str(runs), "--jobs", "2", "--trials", "3", "--output-dir", str(out), "-q"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        staged = [p for folder in out.glob(".tracekit-transformed-*") for p in folder.iterdir()]
        if staged:
            break
        time.sleep(0.02)
    assert process.poll() is None, "the study ended before a transformed trace was staged"
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130 and b"cli.interrupted" in stderr
    assert b"Traceback" not in stderr
    assert list(out.iterdir()) == []
