"""Replay every input the fuzzers ever saved (corpus/regressions/): none may escape as a crash."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fuzz.targets import TARGETS  # noqa: E402

REGRESSIONS = ROOT / "corpus" / "regressions"
ENTRIES = sorted(json.loads((REGRESSIONS / "expected.json").read_text()).items())


def test_there_are_saved_regressions() -> None:
    assert ENTRIES


@pytest.mark.parametrize(("name", "entry"), ENTRIES, ids=[name for name, _ in ENTRIES])
def test_regression_input_is_handled(name: str, entry: dict[str, str]) -> None:
    data = (REGRESSIONS / name).read_bytes()
    outcome = TARGETS[entry["target"]](data)
    assert isinstance(outcome, str)
    if "outcome" in entry:
        assert outcome == entry["outcome"]
