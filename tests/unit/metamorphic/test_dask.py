"""The Dask executor against a real local cluster started here, compared with --jobs 2.

The cluster runs its scheduler and worker in this process but listens on TCP, so the installed
CLI (a separate process) connects to it exactly as it would to a remote campaign cluster.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers import CORPUS, run_cli
from tracekit.judging.metamorphic import NAMES, StudyConfig, run_study
from tracekit.kernel.executors import make_executor
from tracekit.kernel.executors.dask_exec import DaskExecutor
from tracekit.kernel.executors.local import LocalExecutor

pytest.importorskip("distributed", reason="needs the dask extra")
pytestmark = [pytest.mark.slow, pytest.mark.integration]




@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fixed campaign folder: replayable, unreplayable and invalid traces."""
    root = tmp_path_factory.mktemp("campaign")
    shutil.copytree(CORPUS / "valid", root / "valid")
    shutil.copytree(CORPUS / "noncanonical", root / "noncanonical")
    (root / "replay").mkdir()
    for path in sorted((CORPUS / "replay").glob("*.jsonl"))[:12]:
        shutil.copy(path, root / "replay" / path.name)
    (root / "invalid").mkdir()
    for name in ("chain__tampered_payload.jsonl", "load__bom.jsonl", "json__malformed.jsonl"):
        shutil.copy(CORPUS / "invalid" / name, root / "invalid" / name)
    return root


def test_cli_dask_report_is_byte_identical_to_jobs_2(scheduler: str, runs: Path, tmp_path: Path) -> None:
    common = ["metamorphic", "runs", "--format", "json", "--trials", "2", "-q"]
    shutil.copytree(runs, tmp_path / "runs")
    local = run_cli(*common, "--jobs", "2", "--output-dir", "local", cwd=tmp_path)
    dask = run_cli(*common, "--executor", "dask", "--scheduler", scheduler,
                   "--output-dir", "dask", cwd=tmp_path)
    assert local.returncode == dask.returncode == 0, dask.stderr.decode()
    assert b'"passed": false' not in dask.stdout
    assert dask.stdout == local.stdout
    for name in ("metamorphic.json", "metamorphic.md"):
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
    local_traces = sorted((tmp_path / "local" / "transformed").iterdir())
    dask_traces = sorted((tmp_path / "dask" / "transformed").iterdir())
    assert [p.name for p in dask_traces] == [p.name for p in local_traces]
    assert all(a.read_bytes() == b.read_bytes() for a, b in zip(dask_traces, local_traces, strict=True))


def test_library_results_are_identical_across_executors(scheduler: str, runs: Path, tmp_path: Path) -> None:
    paths = sorted(str(p) for p in runs.rglob("*.jsonl"))
    (tmp_path / "here").mkdir()
    (tmp_path / "there").mkdir()
    config = StudyConfig(transforms=NAMES, trials=1, seed=3, transformed_dir=str(tmp_path / "here"))
    here = list(run_study(paths, config, LocalExecutor(1)))
    there_config = StudyConfig(transforms=NAMES, trials=1, seed=3, transformed_dir=str(tmp_path / "there"))
    there = list(run_study(paths, there_config, DaskExecutor(scheduler)))
    assert there == here
    written = sorted(p.name for p in (tmp_path / "here").iterdir())
    assert written == sorted(name for r in here for name in r.transformed) != []
    assert all((tmp_path / "here" / n).read_bytes() == (tmp_path / "there" / n).read_bytes() for n in written)
    assert sum(len(r.cases) for r in here) > 100
    assert any(r.skipped is not None for r in here)


def test_make_executor_knows_both_executors() -> None:
    assert make_executor("local", 2).name == "local"
    assert make_executor("dask", 1, "tcp://127.0.0.1:1").name == "dask"
    with pytest.raises(KeyError):
        make_executor("spark")


def test_without_a_scheduler_a_local_cluster_is_started_for_the_study(tmp_path: Path) -> None:
    clean = CORPUS / "valid" / "v2__clean_run.jsonl"
    args = ["metamorphic", str(clean), "--format", "json", "-q", "-t", "add_test_file"]
    dask = run_cli(*args, "--executor", "dask", "--jobs", "1")
    local = run_cli(*args)
    assert dask.returncode == local.returncode == 0, dask.stderr.decode()
    assert dask.stdout == local.stdout


def test_a_missing_dask_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from tracekit.kernel.errors import Code, TracekitError

    monkeypatch.setitem(sys.modules, "distributed", None)
    results = run_study([str(CORPUS / "valid" / "v2__clean_run.jsonl")],
                        StudyConfig(transforms=("add_test_file",)), DaskExecutor("tcp://127.0.0.1:1"))
    with pytest.raises(TracekitError) as raised:
        next(iter(results))
    assert raised.value.finding.code is Code.METAMORPHIC_DASK_UNAVAILABLE


def test_the_executor_s_own_cluster_runs_with_the_campaign_settings() -> None:
    """Without a scheduler the executor starts a local cluster of worker processes with the
    campaign settings (no profiler, no work stealing, slower timers), and leaves the caller's
    settings as they were."""
    import dask

    from tracekit.kernel.executors.batches import one
    from tracekit.kernel.executors.dask_exec import CAMPAIGN_CONFIG

    keys = list(CAMPAIGN_CONFIG)
    before = [dask.config.get(key) for key in keys]
    seen = list(DaskExecutor(None, jobs=1).map_batches(lambda _: [dask.config.get(k) for k in keys], [0], one))
    assert seen == [list(CAMPAIGN_CONFIG.values())]
    assert [dask.config.get(key) for key in keys] == before != seen[0]


def test_the_documented_environment_gives_the_campaign_settings() -> None:
    """docs/cli.md's environment variables for a user's own cluster are CAMPAIGN_CONFIG."""
    import dask

    from tests.helpers import ROOT
    from tracekit.kernel.executors.dask_exec import CAMPAIGN_CONFIG

    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    env = dict(line.strip().split("=", 1) for line in text.splitlines() if line.startswith("    DASK_"))
    merged = dask.config.merge(dask.config.config, dask.config.collect_env(env))
    assert len(env) == len(CAMPAIGN_CONFIG)
    assert {key: dask.config.get(key, config=merged) for key in CAMPAIGN_CONFIG} == CAMPAIGN_CONFIG
