"""The CLI contract of docs/cli.md, rule by rule, across every command that writes a report.

Each table row is one command line as a user would type it; each test applies one rule to every
row, so a command added without the rule fails here.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers import CORPUS, FIXTURE, run_cli

INSPECT = CORPUS / "third_party" / "inspect" / "tracekit_corpus.eval"
SCENARIO = CORPUS / "findings" / "exfil-email.yaml"

#: Commands that write one report with ``-o``: (name, arguments before ``-o``). ``{trace}`` is a
#: copy of a valid trace in the test's folder.
REPORTS: list[tuple[str, list[str]]] = [
    ("verify", ["verify", "{trace}"]),
    ("show", ["show", "{trace}"]),
    ("audit", ["audit", "{trace}"]),
    ("replay", ["replay", "{trace}"]),
    ("replayability", ["replayability", "{trace}"]),
    ("check", ["check", str(SCENARIO), "{trace}"]),
]


def _args(words: list[str], trace: Path) -> list[str]:
    return [w.replace("{trace}", str(trace)) for w in words]


@pytest.fixture
def trace(tmp_path: Path) -> Path:
    copy = tmp_path / "t.jsonl"
    shutil.copyfile(FIXTURE, copy)
    return copy


@pytest.mark.parametrize(("name", "words"), REPORTS, ids=[r[0] for r in REPORTS])
def test_dash_is_stdout(name: str, words: list[str], trace: Path, tmp_path: Path) -> None:
    """Rule 5: ``-o -`` writes to stdout and creates no file named ``-``."""
    done = run_cli(*_args(words, trace), "-o", "-", "-f", "json", cwd=tmp_path)
    assert done.returncode in (0, 1, 2), done.stderr
    assert json.loads(done.stdout)["report_version"] >= 1
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize(("name", "words"), REPORTS, ids=[r[0] for r in REPORTS])
def test_an_input_is_never_an_output(name: str, words: list[str], trace: Path) -> None:
    """Rule 6: naming an input as the output is refused, even with --force, and the input is
    unchanged."""
    before = trace.read_bytes()
    done = run_cli(*_args(words, trace), "-o", str(trace), "--force")
    assert done.returncode == 2
    assert b"cli.output_is_input" in done.stderr
    assert trace.read_bytes() == before


def test_a_file_inside_an_input_folder_is_never_an_output(tmp_path: Path) -> None:
    folder = tmp_path / "campaign"
    folder.mkdir()
    shutil.copyfile(FIXTURE, folder / "a.jsonl")
    target = folder / "a.jsonl"
    before = target.read_bytes()
    done = run_cli("audit", str(folder), "-o", str(target), "--force", "-f", "json")
    assert done.returncode == 2 and b"cli.output_is_input" in done.stderr
    assert target.read_bytes() == before


def test_a_report_beside_the_inputs_is_still_allowed(tmp_path: Path) -> None:
    """A file the walk would not read (a Markdown report) may live in the input folder."""
    folder = tmp_path / "campaign"
    folder.mkdir()
    shutil.copyfile(FIXTURE, folder / "a.jsonl")
    (folder / "report.md").write_text("old", encoding="utf-8")
    done = run_cli("verify", str(folder), "-o", str(folder / "report.md"), "--force", "-f", "markdown")
    assert done.returncode == 0, done.stderr
    assert (folder / "report.md").read_text(encoding="utf-8") != "old"


def test_keygen_takes_a_name_with_or_without_its_suffix(tmp_path: Path) -> None:
    for given in ("a", "b.key", "c.pub"):
        assert run_cli("keygen", "-o", given, "-q", cwd=tmp_path).returncode == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["a.key", "a.pub", "b.key", "b.pub", "c.key", "c.pub"]


def test_bundle_extract_pipes_the_exact_bytes(tmp_path: Path) -> None:
    assert run_cli("keygen", "-o", "k", "-q", cwd=tmp_path).returncode == 0
    sealed = run_cli("seal", str(FIXTURE), "--key", "k.key", "-o", "b.tkb", "-q", cwd=tmp_path)
    assert sealed.returncode == 0, sealed.stderr
    done = run_cli("bundle", "extract", "b.tkb", "-o", "-", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == FIXTURE.read_bytes()
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize(
    "words",
    [["replay", str(FIXTURE)], ["check", "--suite", str(CORPUS / "findings"), "--trace-dir", str(CORPUS / "findings")]],
    ids=["replay", "check-suite"],
)
def test_output_folder_is_checked_before_any_work(words: list[str], tmp_path: Path) -> None:
    """Rule 1: an ``--output-dir`` that cannot be made is refused before the job runs, so no
    report reaches stdout, with the right code."""
    for target, code in ((Path("/proc/tracekit-nope"), b"cli.output_unwritable"), (tmp_path / "a" / "b", b"cli.output_parent_missing")):
        done = run_cli(*words, "--output-dir", str(target), "-f", "json")
        assert done.returncode == 2
        assert code in done.stderr, done.stderr
        assert done.stdout == b""
        assert not target.exists()


@pytest.mark.parametrize(
    ("words", "hint"),
    [
        (["verify", "x", "-o"], b"tracekit verify -h"),
        (["check", "-f"], b"tracekit check -h"),
        (["db", "summary", "--output"], b"tracekit db summary -h"),
    ],
)
def test_a_missing_option_value_points_to_the_command_help(words: list[str], hint: bytes) -> None:
    done = run_cli(*words)
    assert done.returncode == 2 and b"cli.usage" in done.stderr
    assert hint in done.stderr
