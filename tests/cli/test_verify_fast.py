"""The fast path of ``tracekit verify`` and ``tracekit audit`` (tracekit/cli/verify_fast.py)
against the typer app.

Every command line is run twice, as whole processes: through the console script's entry
(``app.entry``, which takes the fast path for the plain forms) and through ``app.main`` (always
the typer app). Standard output, standard error and the exit code must be the same bytes, and
the command lines the fast path reads are exactly the ones it claims (docs/cli.md, "Start-up").
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import CORPUS, ROOT
from tracekit.cli import verify_fast
from tracekit.cli.common import FindingsFormat

CLEAN = str(CORPUS / "valid" / "v2__clean_run.jsonl")
SECOND = str(CORPUS / "valid" / "v1__minimal_run.jsonl")
BROKEN = str(CORPUS / "invalid" / "chain__deleted_event.jsonl")
FOLDER = str(CORPUS / "valid")
LAUNCH = "import sys; sys.argv[0] = 'tracekit'; from tracekit.cli.app import {0}; {0}()"
_TIME = re.compile(rb'"time": \d+')


def _run(function: str, args: list[str], cwd: Path, stdin: bytes | None) -> tuple[bytes, bytes, int]:
    env = dict(os.environ, PYTHONIOENCODING="utf-8", COLUMNS="200", PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", LAUNCH.format(function), *args],
        input=stdin, capture_output=True, cwd=cwd, env=env, timeout=120, check=False,
    )
    return _TIME.sub(b'"time": 0', done.stdout), done.stderr, done.returncode


def _same(args: list[str], cwd: Path, stdin: bytes | None = None) -> tuple[bytes, bytes, int]:
    entry = _run("entry", args, cwd, stdin)
    typer_app = _run("main", args, cwd, stdin)
    assert entry == typer_app, args
    return entry


FAST = [
    [CLEAN],
    ["-q", CLEAN],
    ["--quiet", CLEAN],
    [CLEAN, "-q"],
    [CLEAN, "--quiet", "--quiet"],
    *[[option, name, CLEAN] for option in ("-f", "--format") for name in FindingsFormat],
    *[[f"--format={name}", "-q", CLEAN] for name in FindingsFormat],
    *[[f"-f{name}", CLEAN] for name in FindingsFormat],
    ["-f", "json", "-f", "markdown", CLEAN],
    [CLEAN, SECOND, "-f", "json"],
    [CLEAN, CLEAN],
    [CLEAN, BROKEN],
    [BROKEN, "-q"],
    [FOLDER],
    [FOLDER, "-f", "sarif", "-q"],
    ["--", CLEAN],
    ["-q", "--", "-dash.jsonl"],
    ["--", "-q", CLEAN],
    ["--", "--", CLEAN],
    ["--", CLEAN, "-h"],
    ["missing.jsonl"],
    ["-q", "missing.jsonl", CLEAN],
    ["empty"],
    ["notes.json"],
    [""],
    ["-"],
    ["-", "-q", "-f", "json"],
    ["-", "-"],
    ["sub"],
    ["--jobs", "2", CLEAN],
    ["-j", "1", CLEAN],
    ["-j2", FOLDER, "-q"],
    ["--jobs=2", FOLDER, "-f", "json"],
    ["--jobs", "256", "-q", "sub"],
    ["--jobs", "3", "--jobs", "1", CLEAN],
    ["-", "--jobs", "2"],
]
"""Plain command lines: the fast path runs them."""

TYPER = [
    [],
    ["-h"],
    ["--help"],
    [CLEAN, "-h"],
    ["-q"],
    ["-f", "json"],
    ["--"],
    [CLEAN, "-f"],
    [CLEAN, "--format"],
    ["-f", "xml", CLEAN],
    ["-f", "JSON", CLEAN],
    ["--format=", CLEAN],
    ["-f=json", CLEAN],
    ["-f", "-q", CLEAN],
    ["-qf", "json", CLEAN],
    ["-fq", CLEAN],
    ["-x", CLEAN],
    ["--quiet=1", CLEAN],
    ["--qu", CLEAN],
    ["--jobs", "0", CLEAN],
    ["--jobs", "257", CLEAN],
    ["--jobs", "02", CLEAN],
    ["--jobs", "+2", CLEAN],
    ["--jobs", "1_0", CLEAN],
    ["--jobs", " 2", CLEAN],
    ["--jobs", "٢", CLEAN],
    ["-j", CLEAN],
    ["--jobs"],
    ["--jobs=", CLEAN],
    ["-j=2", CLEAN],
    ["--jo", "2", CLEAN],
    ["--jobsx", "2", CLEAN],
    ["-jq", CLEAN],
    ["--canonical", CLEAN],
    ["--strict-sources", CLEAN],
    ["--input-format", "agentguard", CLEAN],
    ["-o", "out.txt", "--force", CLEAN],
    ["--output", "-", CLEAN],
    ["--force", CLEAN],
    ["--trusted-root", "RUN_ROOT=.", CLEAN],
    ["--executor", "local", CLEAN],
    ["--debug", "debug.txt", CLEAN],
    ["--", CLEAN, "--debug=debug.txt"],
    ["--version", CLEAN],
]
"""Command lines the fast path leaves to the typer app, unread."""


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A working folder with the odd inputs the cases name."""
    here = tmp_path_factory.mktemp("fast")
    (here / "-dash.jsonl").write_bytes(Path(CLEAN).read_bytes())
    (here / "empty").mkdir()
    (here / "notes.json").write_text('{"not": "a trace"}\n', encoding="utf-8")
    (here / "sub").mkdir()
    (here / "sub" / "a.jsonl").write_bytes(Path(BROKEN).read_bytes())
    (here / "sub" / "b.jsonl").write_bytes(Path(SECOND).read_bytes())
    return here


COMMANDS = pytest.mark.parametrize("command", verify_fast.COMMANDS)


@COMMANDS
@pytest.mark.parametrize("args", FAST, ids=lambda a: " ".join(a) or "none")
def test_the_fast_path_reads_and_does_what_typer_does(command: str, args: list[str], folder: Path) -> None:
    plain = verify_fast.parse([command, *args])
    assert plain is not None and plain.command == command
    stdin = Path(CLEAN).read_bytes() if "-" in args else None
    _same([command, *args], folder, stdin)


@COMMANDS
@pytest.mark.parametrize("args", TYPER, ids=lambda a: " ".join(a) or "none")
def test_every_other_command_line_goes_to_typer_unchanged(command: str, args: list[str], folder: Path) -> None:
    assert verify_fast.parse([command, *args]) is None
    _same([command, *args], folder)


@pytest.mark.parametrize(
    "argv", [[], ["--version"], ["show", CLEAN], ["verifyx", CLEAN], ["auditx", CLEAN], ["check", CLEAN]]
)
def test_other_commands_are_never_read(argv: list[str], folder: Path) -> None:
    assert verify_fast.parse(argv) is None
    _same(argv, folder)


def test_outputs_and_folder_walks_agree(folder: Path) -> None:
    out, err, code = _same(["verify", "sub", "-f", "json", "-q"], folder)
    assert code == 2 and b'"command": "verify"' in out and err == b""
    out, err, code = _same(["verify", CLEAN], folder)
    assert code == 0 and b"intact" in out and b"1 intact" in err
    out, err, code = _same(["audit", "sub", "-f", "json", "-q"], folder)
    assert code == 2 and b'"command": "audit"' in out and err == b""


def test_a_completion_call_goes_to_typer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_TRACEKIT_COMPLETE", "complete_bash")
    assert verify_fast.parse(["verify", CLEAN]) is None


def test_the_format_choices_are_the_commands() -> None:
    assert tuple(f.value for f in FindingsFormat) == verify_fast.FORMATS


def test_the_jobs_bound_is_the_commands() -> None:
    from tracekit.cli.options import JOBS

    assert (JOBS.min, JOBS.max) == (1, verify_fast.MAX_JOBS)


@pytest.mark.parametrize(("command", "forbidden"), [
    ("verify", ("typer", "click", "inspect", "dataclasses", "tempfile")),
    ("audit", ("typer", "click")),  # audit's own modules use dataclasses
])
def test_the_fast_path_imports_neither_typer_nor_typing_extensions(command: str, forbidden: tuple[str, ...]) -> None:
    code = LAUNCH.format("entry")
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code, command, "-q", CLEAN],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )
    assert done.returncode == 0
    imported = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "tracekit.formats.agentguard.verify" in imported
    assert not {m for m in imported if m.split(".")[0] in forbidden}


def test_msgspec_without_typing_extensions_reads_the_same_types() -> None:
    """The type hints msgspec reads through typing (the fast path) are the ones it reads through
    typing_extensions (everywhere else), for every type of the schema; typing_extensions can be
    imported again afterwards."""
    code = (
        "import sys, typing\n"
        "from tracekit.cli.verify_fast import import_msgspec\n"
        "import_msgspec()\n"
        "import msgspec\n"
        "import msgspec._utils as u\n"
        "assert u._get_type_hints is typing.get_type_hints, u._get_type_hints\n"
        "import typing_extensions as te\n"
        "from tracekit.formats.agentguard.schema import agentguard as ag\n"
        "from tracekit.report import verify_render\n"
        "kinds = [v for m in (ag, verify_render) for v in vars(m).values()\n"
        "         if isinstance(v, type) and issubclass(v, msgspec.Struct)]\n"
        "assert len(kinds) > 20\n"
        "for kind in kinds:\n"
        "    assert te.get_type_hints(kind, include_extras=True) == u.get_type_hints(kind), kind\n"
        "print('ok', len(kinds))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok")


def test_the_console_script_and_python_m_take_the_entry() -> None:
    script = Path(sys.executable).parent / "tracekit"
    text = script.read_text(encoding="utf-8") if script.exists() else "from tracekit.cli.app import entry"
    assert "from tracekit.cli.app import entry" in text
    assert "entry()" in (ROOT / "tracekit" / "__main__.py").read_text(encoding="utf-8")


def test_the_process_ends_at_once_only_when_nothing_is_left_to_run(monkeypatch: pytest.MonkeyPatch) -> None:
    import atexit
    import threading

    from tracekit.cli import app

    ended: list[int] = []
    handlers = [0]
    mine: list[threading.Thread] = []  # threads an earlier test left (a Dask cluster's) are not this test's
    monkeypatch.setattr(os, "_exit", ended.append)
    monkeypatch.setattr(atexit, "_ncallbacks", lambda: handlers[0])
    monkeypatch.setattr(threading, "active_count", lambda: 1 + sum(t.is_alive() for t in mine))
    app._exit_now(2)
    assert ended == [2]
    app._exit_now(None)
    app._exit_now("text")
    assert ended == [2]  # not an exit status: the usual exit
    handlers[0] = 1
    app._exit_now(0)
    assert ended == [2]  # an exit handler waits (a process pool, logging): the usual exit runs it
    handlers[0] = 0
    waiting = threading.Event()
    other = threading.Thread(target=waiting.wait)
    mine.append(other)
    other.start()
    try:
        app._exit_now(0)
        assert ended == [2]  # another thread still runs
    finally:
        waiting.set()
        other.join()
    app._exit_now(1)
    assert ended == [2, 1]
