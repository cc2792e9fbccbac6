"""Shared test set-up: the corpus generators on sys.path, a fixed hypothesis CI profile, and one
real Dask cluster fixture for the executor tests."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
sys.path.insert(0, str(CORPUS))

settings.register_profile(
    "ci",
    max_examples=60,
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("dev", max_examples=200, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a real dask.distributed LocalCluster reached over TCP on loopback; the test
    is skipped without the dask extra."""
    distributed = pytest.importorskip("distributed", reason="needs the dask extra")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, protocol="tcp",
        host="127.0.0.1", dashboard_address=":0",
    ) as cluster:
        yield str(cluster.scheduler_address)
