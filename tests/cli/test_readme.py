"""The README's tour runs as written on the bundled corpus and gives the exit codes it claims."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from tests.helpers import CORPUS, ROOT, run_cli


def _tour() -> list[tuple[list[str], int]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("<!-- tour:start -->", 1)[1].split("<!-- tour:end -->", 1)[0]
    lines: list[tuple[list[str], int]] = []
    for line in block.splitlines():
        if not line.startswith("tracekit "):
            continue
        command, claim = line.split("#", 1)
        found = re.match(r"\s*exit (\d+):", claim)
        assert found is not None, line
        lines.append((shlex.split(command)[1:], int(found.group(1))))
    return lines


def test_the_readme_tour_gives_the_answers_it_claims(tmp_path: Path) -> None:
    tour = _tour()
    assert len(tour) >= 10
    (tmp_path / "corpus").symlink_to(CORPUS)
    for words, claimed in tour:  # in order: later lines use what earlier ones wrote
        done = run_cli(*words, cwd=tmp_path)
        assert done.returncode == claimed, (words, done.stderr)
    assert (tmp_path / "original.eval").read_bytes() == (CORPUS / "third_party" / "inspect" / "tracekit_corpus.eval").read_bytes()
