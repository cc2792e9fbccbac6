"""Comments, docstrings and docs cite only pages of this repository (docs/development.md,
"Citing the rules"): no section number of an outside document, no style-guide rule number, no
tracker number.

The patterns are assembled from parts so that this file does not match itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import ROOT

SECTION = "\N{SECTION SIGN}"
STYLE = "STY" + "LE"

FORBIDDEN: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("outside spec section", re.compile("spe" + r"c\s*" + SECTION, re.IGNORECASE)),
    ("outside spec section", re.compile("spe" + r"c\s+section\s+\d", re.IGNORECASE)),
    ("section sign and number", re.compile(SECTION + r"\s*\d")),
    ("style-guide rule", re.compile(r"\b" + STYLE + r"\s+rule\b", re.IGNORECASE)),
    ("style-guide file", re.compile(r"\b" + STYLE + r"\.md\b", re.IGNORECASE)),
    ("tracker number", re.compile(r"\b" + "iss" + r"ues?\s*#?\s*\d", re.IGNORECASE)),
)
"""What a maintainer with only this repository could not follow."""

FOLDERS = ("tracekit", "tests", "docs", "bench", "fuzz", "corpus/gen")
FILES = ("README.md", "Makefile")
SKIPPED_DIRS = frozenset(
    {"__pycache__", ".hypothesis", ".pytest_cache", ".mypy_cache", ".ruff_cache"}
)
GENERATED = ("bench/data/", "fuzz/work/")
"""What the benches and `make fuzz` build (gitignored; hundreds of MB): not the repository's prose."""
BINARY_SUFFIXES = (".png",)
"""Images (docs/img/): bytes, not prose; a chance byte pair would read as a citation."""


def scanned_files() -> Iterator[Path]:
    """Every file the rule covers, in sorted order."""
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            parts = path.relative_to(ROOT).parts
            if path.relative_to(ROOT).as_posix().startswith(GENERATED):
                continue
            if path.is_file() and not SKIPPED_DIRS.intersection(parts) and path.suffix not in BINARY_SUFFIXES:
                yield path
    yield from sorted((ROOT / "corpus").glob("*.py"))
    for name in FILES:
        yield ROOT / name


def offences(text: str) -> list[tuple[int, str]]:
    """(line number, kind) of every outside reference in ``text``; a reference broken across
    two lines is reported at the line where it starts."""
    found: list[tuple[int, str]] = []
    for kind, pattern in FORBIDDEN:
        for match in pattern.finditer(text):
            found.append((text.count("\n", 0, match.start()) + 1, kind))
    return sorted(found)


def test_the_rule_covers_the_places_that_cite() -> None:
    names = {path.relative_to(ROOT).as_posix() for path in scanned_files()}
    for expected in (
        "tracekit/judging/replay/engine.py",
        "tests/test_lint.py",
        "docs/replay.md",
        "docs/adr/0001-hash-what-was-read.md",
        "bench/reference.py",
        "fuzz/README.md",
        "corpus/gen/base.py",
        "corpus/generate.py",
        "README.md",
        "Makefile",
        "tests/test_references.py",
    ):
        assert expected in names


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("rule of spe" + "c " + SECTION + "12", "outside spec section"),
        ("(spe" + "c\n" + SECTION + "17.11)", "outside spec section"),
        ("the AgentGuard loader (Spe" + "c section 8)", "outside spec section"),
        ("see " + SECTION + "13", "section sign and number"),
        (STYLE + " rule 14: typed", "style-guide rule"),
        ("per " + STYLE.lower() + ".md", "style-guide file"),
        ("Iss" + "ue 7 invariants", "tracker number"),
        ("(iss" + "ue #24)", "tracker number"),
        ("every figure of iss" + "ues 16", "tracker number"),
    ],
)
def test_each_pattern_catches_its_reference(text: str, kind: str) -> None:
    assert kind in {found for _, found in offences(text)}


@pytest.mark.parametrize(
    "text",
    [
        "docs/trace-format.md step 5",
        'docs/replay.md, "The seven checks"',
        "docs/bundle-format.md section 7",
        "RFC 9162 section 2.1.3.1",
        "a tiss" + "ue 5 cm wide",
        "STYLES[style]",
        "find_spec(name)",
    ],
)
def test_repository_citations_pass(text: str) -> None:
    assert offences(text) == []


def test_no_outside_references() -> None:
    hits = []
    for path in scanned_files():
        text = path.read_bytes().decode("utf-8", errors="replace")
        hits += [f"{path.relative_to(ROOT)}:{line}: {kind}" for line, kind in offences(text)]
    assert hits == [], "cite a docs/ page instead (docs/development.md):\n" + "\n".join(hits)
