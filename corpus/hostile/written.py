"""Writing a hostile corpus folder from its generator, or checking it for drift: one rule for
every corpus/hostile/<format>/generate.py."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def write_or_check(folder: Path, files: Mapping[str, bytes], expected: Any, argv: list[str]) -> int:
    """Write ``files`` and ``expected.json`` into ``folder``; with ``--check`` in ``argv`` only
    compare, listing each file that differs. Returns the exit status."""
    outputs = dict(files)
    outputs["expected.json"] = (json.dumps(expected, indent=2, sort_keys=True) + "\n").encode()
    stale = [name for name, data in outputs.items() if not (folder / name).exists() or (folder / name).read_bytes() != data]
    if "--check" in argv:
        for name in stale:
            print(f"stale: {name}", file=sys.stderr)
        return 1 if stale else 0
    for name in stale:
        (folder / name).write_bytes(outputs[name])
    return 0


def write_cases(folder: Path, cases: Mapping[str, tuple[str, str | None, bytes]], canary: str, argv: list[str]) -> int:
    """The common shape: ``{file name: (what it is, expected code or None, bytes)}``; the
    expected exit is 2 for a code, 0 for none."""
    expected = {
        "canary": canary,
        "cases": {name: {"about": about, "code": code, "exit": 0 if code is None else 2} for name, (about, code, _) in cases.items()},
    }
    return write_or_check(folder, {name: data for name, (_, _, data) in cases.items()}, expected, argv)
