"""One executor layer (docs/cli.md, "Executors"): verify and audit give byte-identical output
in-process, with --jobs 2 and on a real dask.distributed LocalCluster reached over TCP by the
installed CLI. (metamorphic: tests/unit/metamorphic/test_dask.py.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers import CORPUS, run_cli

pytest.importorskip("distributed", reason="needs the dask extra")
pytestmark = [pytest.mark.slow, pytest.mark.integration]




@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("campaign")
    shutil.copytree(CORPUS / "valid", root / "valid")
    shutil.copytree(CORPUS / "audit", root / "audit")
    (root / "invalid").mkdir()
    for name in ("chain__tampered_payload.jsonl", "load__bom.jsonl", "json__malformed.jsonl"):
        shutil.copy(CORPUS / "invalid" / name, root / "invalid" / name)
    return root


@pytest.mark.parametrize(
    "command", [("verify", "-f", "json"), ("audit", "-f", "json"), ("audit", "-f", "markdown")]
)
def test_same_output_on_every_executor(command: tuple[str, ...], scheduler: str, campaign: Path) -> None:
    args = (*command, "-q", campaign.name)
    cwd = campaign.parent
    one = run_cli(*args, cwd=cwd)
    pool = run_cli(*args, "--jobs", "2", cwd=cwd)
    dask = run_cli(*args, "--executor", "dask", "--scheduler", scheduler, cwd=cwd)
    assert one.returncode == pool.returncode == dask.returncode == 2, dask.stderr.decode()
    assert one.stdout == pool.stdout, "pool"
    assert one.stdout == dask.stdout, "dask"
    assert b"Traceback" not in dask.stderr


def test_scheduler_needs_the_dask_executor() -> None:
    result = run_cli("verify", str(CORPUS / "valid"), "--scheduler", "tcp://127.0.0.1:9")
    assert result.returncode == 2 and b"error[cli.option_needs]" in result.stderr
    assert b"--executor dask" in result.stderr
