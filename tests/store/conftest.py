"""Shared fixtures for the campaign store tests: a ~200-trace campaign from the corpus."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("duckdb")

# The store key (tracekit/store/seal.py) of every test run lives in a private temporary folder,
# never in the user's configuration folder.
os.environ.setdefault("TRACEKIT_STORE_KEY", os.path.join(tempfile.mkdtemp(prefix="tk-key-"), "store.key"))

CORPUS = Path(__file__).resolve().parent.parent.parent / "corpus"
PARTS = ("valid", "invalid", "audit", "replay", "third_party")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: starts a Dask cluster or several processes")


def make_campaign(root: Path) -> Path:
    """Copy the corpus folders making up the test campaign (about 200 traces, mixed formats,
    tampered and forged ones among them) to ``root``."""
    for part in PARTS:
        shutil.copytree(CORPUS / part, root / part)
    return root


@pytest.fixture()
def campaign(tmp_path: Path) -> Path:
    return make_campaign(tmp_path / "campaign")
