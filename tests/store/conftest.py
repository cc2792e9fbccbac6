"""Shared fixtures for the campaign store tests: a ~200-trace campaign from the corpus."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("duckdb")

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
