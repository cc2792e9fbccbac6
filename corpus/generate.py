#!/usr/bin/env python3
"""Rebuild the golden corpus deterministically; ``--check`` reports drift instead of writing.

Every module in corpus/gen/ that defines ``cases()`` contributes cases. Each case is a file under
corpus/<folder>/ plus an entry in corpus/<folder>/expected.json giving, per command, the exit
code and finding code it must produce (corpus/README.md describes the layout and provenance).
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from gen.case import Case


def all_cases() -> list[Case]:
    """Every case from every generator module, in a stable order."""
    import gen

    cases: list[Case] = []
    for info in sorted(pkgutil.iter_modules(gen.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"gen.{info.name}")
        if hasattr(module, "cases"):
            cases.extend(module.cases())
    seen: set[tuple[str, str]] = set()
    for case in cases:
        key = (case.folder, case.name)
        if key in seen:
            raise SystemExit(f"duplicate corpus case {case.folder}/{case.name}")
        seen.add(key)
    return cases


def planned_files(cases: list[Case]) -> dict[Path, bytes]:
    """Every file the corpus consists of, including each folder's expected.json."""
    files: dict[Path, bytes] = {}
    manifests: dict[str, dict[str, object]] = defaultdict(dict)
    for case in cases:
        files[HERE / case.folder / case.name] = case.data
        for rel, data in case.extra_files.items():
            files[HERE / case.folder / rel] = data
        manifests[case.folder][case.name] = {"about": case.about, **case.expected}
    for folder, entries in manifests.items():
        text = json.dumps(dict(sorted(entries.items())), indent=2, sort_keys=True) + "\n"
        files[HERE / folder / "expected.json"] = text.encode("utf-8")
    return files


def _previously_generated(files: dict[Path, bytes]) -> set[Path]:
    """Case files the folders' current expected.json lists: the only files drift may remove.

    Hand-written files that share a folder with generated cases are never touched."""
    previous: set[Path] = set()
    for manifest in {p for p in files if p.name == "expected.json"}:
        if manifest.exists():
            previous.update(manifest.parent / name for name in json.loads(manifest.read_text()))
    return previous


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="report drift, write nothing")
    args = parser.parse_args()
    files = planned_files(all_cases())
    drift = [p for p, data in sorted(files.items()) if not p.exists() or p.read_bytes() != data]
    stale = sorted(_previously_generated(files) - set(files))
    if args.check:
        for p in drift:
            print(f"drift: {p.relative_to(HERE)}")
        for p in stale:
            print(f"stale: {p.relative_to(HERE)}")
        print(f"{len(files)} corpus files checked, {len(drift)} drifted, {len(stale)} stale")
        return 1 if drift or stale else 0
    for p in stale:
        p.unlink()
    for p in drift:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(files[p])
    print(f"{len(files)} corpus files, {len(drift)} written, {len(stale)} removed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
