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


#: Every command that prints a JSON report, on valid and on bad input: (id, arguments). Run in a
#: folder holding ``t.jsonl`` (a valid trace), ``bad.jsonl`` (a truncated copy), ``k.key``/``k.pub``
#: and ``b.tkb`` (a bundle sealed from t.jsonl) and ``s.duckdb`` (a store).
JSON_REPORTS: list[tuple[str, list[str]]] = [
    ("verify", ["verify", "t.jsonl"]),
    ("verify-bad", ["verify", "bad.jsonl"]),
    ("verify-bundle", ["verify", "b.tkb", "--trusted-key", "k.pub"]),
    ("show", ["show", "t.jsonl"]),
    ("audit", ["audit", "t.jsonl"]),
    ("audit-bad", ["audit", "bad.jsonl"]),
    ("replay", ["replay", "t.jsonl"]),
    ("replay-bad", ["replay", "bad.jsonl"]),
    ("show-bad", ["show", "bad.jsonl"]),
    ("replayability", ["replayability", "t.jsonl"]),
    ("check", ["check", str(SCENARIO), str(INSPECT), "--strict"]),
    ("check-campaign", ["check", str(SCENARIO), str(INSPECT.parent)]),
    ("metamorphic", ["metamorphic", "t.jsonl", "--trials", "1"]),
    ("seal", ["seal", "t.jsonl", "--key", "k.key", "-o", "c.tkb"]),
    ("bundle-show", ["bundle", "show", "b.tkb", "--trusted-key", "k.pub"]),
    ("db-summary", ["db", "summary", "s.duckdb"]),
    ("db-findings", ["db", "findings", "s.duckdb"]),
    ("explain", ["explain", "chain.event_hash_mismatch"]),
]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("contract")
    shutil.copyfile(FIXTURE, folder / "t.jsonl")
    (folder / "bad.jsonl").write_bytes(FIXTURE.read_bytes()[:200])
    assert run_cli("keygen", "-o", "k", "-q", cwd=folder).returncode == 0
    assert run_cli("seal", "t.jsonl", "--key", "k.key", "-o", "b.tkb", "-q", cwd=folder).returncode == 0
    (folder / "campaign").mkdir()
    shutil.copyfile(FIXTURE, folder / "campaign" / "a.jsonl")
    assert run_cli("audit", "campaign", "--db", "s.duckdb", "-q", cwd=folder).returncode in (0, 1)
    return folder


@pytest.mark.parametrize(("name", "words"), JSON_REPORTS, ids=[r[0] for r in JSON_REPORTS])
def test_every_json_report_starts_with_its_head(name: str, words: list[str], workdir: Path) -> None:
    """docs/cli.md, "JSON reports": ``command``, ``report_version`` and ``exit_code`` come
    first, and ``exit_code`` is the process's exit code."""
    (workdir / "c.tkb").unlink(missing_ok=True)
    done = run_cli(*words, "-f", "json", cwd=workdir)
    document = json.loads(done.stdout)
    assert list(document)[:3] == ["command", "report_version", "exit_code"], list(document)[:5]
    assert document["command"] == " ".join(words[:2]) if words[0] in ("db", "bundle") else words[0]
    assert document["exit_code"] == done.returncode, done.stderr


def test_explain_knows_every_code_and_refuses_others() -> None:
    from tracekit.kernel.code_help import FAMILY_HELP
    from tracekit.kernel.errors import Code

    assert {c.value.split(".")[0] for c in Code} <= set(FAMILY_HELP), "every family says why and what to do"
    done = run_cli("explain", "chain.event_hash_mismatch")
    assert done.returncode == 0 and b"tampered" in done.stdout
    unknown = run_cli("explain", "canary.\x1b[31mred")
    assert unknown.returncode == 2 and b"cli.unknown_code" in unknown.stderr
    assert b"canary" not in unknown.stderr and unknown.stdout == b""
    listed = run_cli("explain", "--list", "-f", "json")
    assert len(json.loads(listed.stdout)["codes"]) == len(Code)


def _commands() -> list[str]:
    import typer.main

    from tracekit.cli.app import app

    group = typer.main.get_command(app)
    names: list[str] = []
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        sub = getattr(command, "commands", None)
        names += [f"{name} {s}" for s in sub] if sub else [name]
    return names


@pytest.mark.parametrize("command", _commands())
def test_every_help_ends_with_examples_that_use_real_options(command: str) -> None:
    """docs/cli.md, Conventions 3: every --help ends with examples, each a command line whose
    options the command has."""
    import re

    from tracekit.cli.examples import EXAMPLES

    assert EXAMPLES.get(command), "a command without examples"
    help_text = run_cli(*command.split(), "-h").stdout.decode()
    assert "Examples:" in help_text
    for line in EXAMPLES[command]:
        assert line.startswith(f"tracekit {command} ") or line == f"tracekit {command}"
        for option in re.findall(r"(?<=\s)(--?[a-z][a-z-]*)", line.split("|")[0]):
            assert re.search(rf"(^|[\s,]){re.escape(option)}[\s,=]", help_text, re.MULTILINE), (command, option)


def test_completion_scripts_and_answers() -> None:
    script = run_cli("completion", "bash")
    assert script.returncode == 0 and b"_TRACEKIT_COMPLETE" in script.stdout
    import os
    import subprocess
    import sys

    env = dict(os.environ, _TRACEKIT_COMPLETE="complete_bash", COMP_WORDS="tracekit ver", COMP_CWORD="1")
    answer = subprocess.run([str(Path(sys.executable).parent / "tracekit")], env=env, capture_output=True, check=False)
    assert answer.stdout.split() == [b"verify"]


def _stderr_on_a_terminal(*args: str) -> bytes:
    """Run the CLI with stderr on a pseudo-terminal; what it drew there."""
    import fcntl
    import os
    import pty
    import struct
    import subprocess
    import sys
    import termios

    main, side = pty.openpty()
    fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))  # a terminal's size
    command = [str(Path(sys.executable).parent / "tracekit"), *args]
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=side) as process:
        os.close(side)
        drawn = b""
        while True:
            try:
                chunk = os.read(main, 65536)
            except OSError:
                break
            if not chunk:
                break
            drawn += chunk
        process.wait(timeout=120)
    os.close(main)
    return drawn


def test_progress_only_on_a_terminal(tmp_path: Path) -> None:
    """docs/cli.md, "Progress": counts and rate on a terminal; nothing in a pipe or with -q."""
    for n in range(4):
        shutil.copyfile(FIXTURE, tmp_path / f"t{n}.jsonl")
    drawn = _stderr_on_a_terminal("audit", str(tmp_path))
    assert b"tracekit audit:" in drawn and b"/4 [" in drawn and b"file/s" in drawn
    assert b"/4 [" not in _stderr_on_a_terminal("audit", str(tmp_path), "-q")
    piped = run_cli("audit", str(tmp_path))
    assert b"/4 [" not in piped.stderr and b"\r" not in piped.stderr


def _matrix() -> dict[tuple[str, str], set[int]]:
    """docs/cli.md's exit matrix: (command, input kind) -> the exit codes its cell lists."""
    import re

    from tests.helpers import ROOT

    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text.split("### What each exit code means, per command and input kind", 1)[1]
    section = section.split("\n#", 1)[0]  # up to the next heading
    rows = [line for line in section.splitlines() if line.startswith("| ")][2:]
    kinds = ("agentguard", "imported", "harness", "bundle")
    cells: dict[tuple[str, str], set[int]] = {}
    for row in rows:
        command, *values = [cell.strip() for cell in row.strip("|").split("|")]
        for kind, value in zip(kinds, values, strict=True):
            cells[(command, kind)] = {int(code) for code in re.findall(r"(?:^|; )([0-2]) ", value)}
    return cells


MATRIX_INPUTS = {
    "agentguard": str(FIXTURE),
    "imported": str(INSPECT),
    "harness": str(CORPUS / "third_party" / "owasp-harness" / "examples" / "traces" / "denied_tool_call.json"),
    "bundle": "b.tkb",
}


@pytest.mark.parametrize(("command", "kind"), sorted(_matrix()), ids=[f"{c}-{k}" for c, k in sorted(_matrix())])
def test_exit_codes_match_the_documented_matrix(command: str, kind: str, workdir: Path) -> None:
    path = MATRIX_INPUTS[kind]
    words = {"check": ["check", str(SCENARIO), path]}.get(command, [command, path])
    if command == "verify" and kind == "bundle":
        words += ["--trusted-key", "k.pub"]
    if command == "metamorphic":
        words += ["--trials", "1"]
    done = run_cli(*words, "-q", cwd=workdir)
    assert done.returncode in _matrix()[(command, kind)], done.stderr


#: Every command, and every input it reads, as (id, arguments): ``{input}`` is replaced by a
#: missing file and by an empty file of the suffix that input takes. Run in ``workdir``.
ONE_CODE_INPUTS: list[tuple[str, list[str]]] = [
    ("verify", ["verify", "{input}.jsonl"]),
    ("verify-bundle", ["verify", "{input}.tkb", "--trusted-key", "k.pub"]),
    ("show", ["show", "{input}.jsonl"]),
    ("replay", ["replay", "{input}.jsonl"]),
    ("replayability", ["replayability", "{input}.jsonl"]),
    ("audit", ["audit", "{input}.jsonl"]),
    ("check-trace", ["check", str(SCENARIO), "{input}.jsonl"]),
    ("check-harness-trace", ["check", str(SCENARIO), "{input}.json", "--input-format", "harness"]),
    ("check-scenario", ["check", "{input}.yaml", "t.jsonl"]),
    ("metamorphic", ["metamorphic", "{input}.jsonl", "--trials", "1"]),
    ("seal", ["seal", "{input}.jsonl", "--key", "k.key", "-o", "-"]),
    ("attest", ["attest", "{input}.jsonl", "--key", "k.key", "-o", "-"]),
    ("attest-bundle", ["attest", "{input}.tkb", "--key", "k.key", "-o", "-"]),
    ("report", ["report", "{input}.jsonl", "-o", "-"]),
    ("redact", ["redact", "{input}.tkb", "--secrets", "-o", "-"]),
    ("bundle-show", ["bundle", "show", "{input}.tkb"]),
    ("bundle-extract", ["bundle", "extract", "{input}.tkb", "-o", "-"]),
    ("bundle-prove", ["bundle", "prove", "{input}.tkb", "--finding", "0", "-o", "-"]),
    ("db-summary", ["db", "summary", "{input}.duckdb"]),
    ("db-findings", ["db", "findings", "{input}.duckdb"]),
    ("db-runs", ["db", "runs", "{input}.duckdb"]),
    ("db-diff", ["db", "diff", "{input}.duckdb"]),
    ("db-export", ["db", "export", "{input}.duckdb", "--csv", "exported"]),
]

#: Every code some command gave, before docs/cli.md's "One code per mistake", for a missing,
#: unreadable or empty input: a run may show the one expected code and none of the others.
INPUT_CODES = {
    "format.unreadable", "format.empty", "load.unreadable", "harness.trace_unreadable",
    "harness.scenario_unreadable", "bundle.input_unreadable", "store.not_found", "json.invalid",
    "format.unknown", "load.no_events", "bundle.bad_magic", "store.not_a_store",
}


@pytest.mark.parametrize("mistake", ["missing", "empty"])
@pytest.mark.parametrize(("name", "words"), ONE_CODE_INPUTS, ids=[r[0] for r in ONE_CODE_INPUTS])
def test_one_code_per_input_mistake(name: str, words: list[str], mistake: str, workdir: Path) -> None:
    """docs/cli.md, "One code per mistake": a missing input is ``format.unreadable`` and an
    empty one ``format.empty``, with exit 2, in every command and for every kind of input."""
    import re

    stem = f"{mistake}-{name}"
    args = [w.replace("{input}", stem) for w in words]
    if mistake == "empty":
        for word in args:
            if word.startswith(stem):
                (workdir / word).write_bytes(b"")
    expected = "format.unreadable" if mistake == "missing" else "format.empty"
    done = run_cli(*args, cwd=workdir)
    assert done.returncode == 2, (done.stdout[-400:], done.stderr)
    shown = set(re.findall(rb"[a-z_]+\.[a-z_]+", done.stdout + done.stderr))
    assert {c.decode() for c in shown} & INPUT_CODES == {expected}, done.stderr
    assert not (workdir / "exported").exists()


def test_no_command_emits_a_retired_code() -> None:
    """A code in ``RETIRED`` is documented, never emitted: no module outside the catalogue
    names it (docs/error-codes.md)."""
    from tests.helpers import ROOT
    from tracekit.kernel.errors import RETIRED

    names = {f"Code.{code.name}" for code in RETIRED}
    offenders = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in sorted((ROOT / "tracekit").rglob("*.py"))
        if path.name != "errors.py"
        for name in names
        if name in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
    explained = run_cli("explain", "store.not_found")
    assert explained.returncode == 0 and b"No longer emitted: format.unreadable says it now." in explained.stdout
