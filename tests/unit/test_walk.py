"""The folder walk of every campaign command (tracekit/cli/common.py, collect_inputs): sorted,
each real file once, one string held per file (docs/cli.md, "Inputs and folders")."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tracekit.cli.common import collect_inputs


def _tree(root: Path) -> None:
    (root / "b").mkdir(parents=True)
    (root / "a").mkdir()
    for name in ("z.jsonl", "m.jsonl", "a/y.jsonl", "b/x.jsonl", "notes.txt", "t.expected.json"):
        (root / name).write_text("{}\n")


def test_a_folder_lists_its_files_then_its_subfolders_in_name_order(tmp_path: Path) -> None:
    _tree(tmp_path)
    found = collect_inputs([str(tmp_path)], (".jsonl", ".json"))
    assert found.files == [str(tmp_path / n) for n in ("m.jsonl", "z.jsonl", "a/y.jsonl", "b/x.jsonl")]


def test_a_symlink_to_a_file_of_the_same_folder_is_listed_once(tmp_path: Path) -> None:
    _tree(tmp_path)
    (tmp_path / "a" / "link.jsonl").symlink_to(tmp_path / "z.jsonl")  # walked before nothing, after z
    (tmp_path / "0first.jsonl").symlink_to(tmp_path / "b" / "x.jsonl")  # walked before its target
    found = collect_inputs([str(tmp_path)], (".jsonl",)).files
    assert found == [str(tmp_path / n) for n in ("0first.jsonl", "m.jsonl", "z.jsonl", "a/y.jsonl")]
    assert len({os.path.realpath(p) for p in found}) == len(found)


def test_a_symlinked_folder_is_not_entered_and_a_dangling_link_is_left_out(tmp_path: Path) -> None:
    _tree(tmp_path)
    (tmp_path / "loop").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "gone.jsonl").symlink_to(tmp_path / "missing.jsonl")
    found = collect_inputs([str(tmp_path)], (".jsonl",)).files
    assert found == [str(tmp_path / n) for n in ("m.jsonl", "z.jsonl", "a/y.jsonl", "b/x.jsonl")]


@pytest.mark.parametrize("second", ["a", "a/y.jsonl", "."])
def test_overlapping_inputs_keep_each_file_at_its_first_mention(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, second: str
) -> None:
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    found = collect_inputs([".", second], (".jsonl",)).files
    assert found == ["m.jsonl", "z.jsonl", "a/y.jsonl", "b/x.jsonl"]  # "." walks as bare names
    found = collect_inputs([second, "."], (".jsonl",)).files
    assert sorted(found) == sorted(set(found)) and len(found) == 4
