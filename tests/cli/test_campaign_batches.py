"""A campaign on the local pool (docs/cli.md, "Executors"): files travel in batches and audit's
workers send back spool lines and tallies, yet every output is byte for byte the in-process one,
with walked files that are not traces, failing traces and a batch boundary anywhere."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers import CORPUS, run_cli


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("batches") / "camp"
    root.mkdir()
    valid = sorted((CORPUS / "valid").glob("*.jsonl"))
    invalid = sorted((CORPUS / "invalid").glob("*.jsonl"))[:6]
    for n in range(90):
        source = invalid[n % len(invalid)] if n % 11 == 3 else valid[n % len(valid)]
        shutil.copy(source, root / f"t{n:03d}.jsonl")
        if n % 17 == 5:  # a walked .json that no format reads: skipped, listed after the traces
            (root / f"t{n:03d}x.json").write_text('{"not": "a trace"}\n', encoding="utf-8")
    return root


@pytest.mark.parametrize(
    "command",
    [("verify",), ("verify", "-f", "json"), ("audit",), ("audit", "-f", "json"), ("audit", "-f", "markdown"),
     ("audit", "-f", "sarif")],
)
def test_pool_output_is_the_in_process_output(command: tuple[str, ...], campaign: Path) -> None:
    one = run_cli(*command, campaign.name, cwd=campaign.parent)
    two = run_cli(*command, campaign.name, "--jobs", "2", cwd=campaign.parent)
    assert one.returncode == two.returncode == 2, two.stderr.decode()
    assert one.stdout == two.stdout
    assert one.stderr == two.stderr
    assert b"skipped" in one.stdout or b"skipped" in one.stderr


@pytest.mark.parametrize("command", ["verify", "audit"])
def test_each_file_keeps_its_own_result(command: str, campaign: Path) -> None:
    import json

    result = run_cli(command, campaign.name, "-f", "json", "--jobs", "2", cwd=campaign.parent)
    document = json.loads(result.stdout)
    junk = sorted(f"{campaign.name}/{p.name}" for p in campaign.glob("*.json"))
    assert [s["trace"] for s in document["skipped"]] == junk
    traces = sorted(p.name for p in campaign.glob("*.jsonl"))
    assert [Path(t["path"]).name for t in document["traces"]] == traces
    failing = {p.name for p in campaign.glob("*.jsonl") if int(p.stem[1:]) % 11 == 3}
    assert {Path(t["path"]).name for t in document["traces"] if t["exit_code"] == 2} == failing


def test_walked_bundles_are_left_out_by_the_workers(tmp_path: Path) -> None:
    """Walked files are sniffed for the bundle magic by the worker that reads them (not by the
    parent): the same files left out, in the same order, on the pool as in one process; a folder
    of bundles alone is still verified as bundles; a named bundle with traces is still refused."""
    valid = sorted((CORPUS / "valid").glob("*.jsonl"))
    bundles, mixed = tmp_path / "bundles", tmp_path / "mixed"
    bundles.mkdir()
    mixed.mkdir()
    for name in ("a.tkb", "m.jsonl"):
        sealed = run_cli("seal", str(valid[0]), "-o", str(bundles / name), "-q")
        assert sealed.returncode == 0, sealed.stderr.decode()
    for n in range(12):
        shutil.copy(valid[n % len(valid)], mixed / f"t{n:02d}.jsonl")
    shutil.copy(bundles / "a.tkb", mixed / "t05b.tkb")
    shutil.copy(bundles / "m.jsonl", mixed / "t09b.jsonl")  # a bundle by its bytes, not its name
    one = run_cli("verify", mixed.name, "-f", "json", cwd=tmp_path)
    two = run_cli("verify", mixed.name, "-f", "json", "--jobs", "2", cwd=tmp_path)
    assert one.stdout == two.stdout and one.stderr == two.stderr and one.returncode == two.returncode
    skipped = [(Path(s["trace"]).name, s["code"]) for s in json.loads(two.stdout)["skipped"]]
    assert skipped == [("t05b.tkb", "cli.bundle_input"), ("t09b.jsonl", "cli.bundle_input")]
    for jobs in ("1", "2"):
        alone = run_cli("verify", str(bundles), "-q", "--jobs", jobs)
        assert alone.returncode in (0, 1) and b"a.tkb" in alone.stdout, alone.stderr.decode()
    refused = run_cli("verify", str(bundles / "a.tkb"), str(mixed), "-q", "--jobs", "2")
    assert refused.returncode == 2 and b"cli.option_conflict" in refused.stderr
