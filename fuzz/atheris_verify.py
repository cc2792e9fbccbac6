#!/usr/bin/env python3
"""Coverage-guided fuzzing (atheris/libFuzzer) of the loader, decoders and chain walk.

Any exception escaping ``verify_bytes`` is a crash; libFuzzer writes the input to
``-artifact_prefix``. Run through ``make fuzz`` (fuzz/run.py), which saves crashes as regressions.
"""

from __future__ import annotations

import sys
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

with atheris.instrument_imports():
    from tracekit.formats.agentguard.verify import VerifyOptions, verify_bytes


def test_one(data: bytes) -> None:
    report = verify_bytes(data, VerifyOptions(keep_events=False))
    if report.exit_code not in (0, 1, 2):
        raise RuntimeError("exit code outside the documented table")


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one)
    atheris.Fuzz()
