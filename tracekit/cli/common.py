"""What every command shares: inputs, diagnostics on stderr and exit codes (docs/cli.md).

Output files go through the one sink in sink.py.
"""

from __future__ import annotations

import enum
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import msgspec

from tracekit.kernel.errors import Code, ExitCode, Finding, finding, worst
from tracekit.report.text import display_path

if TYPE_CHECKING:
    from tracekit.kernel.executors import Executor

__all__ = ["ExitCode", "display_path", "worst"]  # re-exported: commands import them from here


EXIT_OK, EXIT_FAIL, EXIT_ERROR = ExitCode.OK, ExitCode.FAIL, ExitCode.ERROR
EXIT_INTERRUPTED = ExitCode.INTERRUPTED
WALK_MAX_DEPTH = 64
"""Folders nested deeper than this below an input folder are not searched (cli.walk_too_deep)."""


class Interrupted(BaseException):
    """Raised by tracekit's SIGINT handler; not a KeyboardInterrupt, so nothing swallows it."""


class Format(enum.StrEnum):
    """The output formats every command offers (check adds junit and sarif)."""

    table = "table"
    json = "json"
    markdown = "markdown"


class FindingsFormat(enum.StrEnum):
    """The formats of commands whose result is pass/fail findings per trace (verify, audit,
    replay): every command's, plus JUnit XML and SARIF 2.1.0 for CI."""

    table = "table"
    json = "json"
    markdown = "markdown"
    junit = "junit"
    sarif = "sarif"
    ocsf = "ocsf"
    otlp = "otlp"


def diag(found: Finding, where: str | None = None) -> None:
    """Print one diagnostic line on stderr."""
    line = f" line {found.line}" if found.line else ""
    prefix = f"{display_path(where)}:{line} " if where else ""
    print(f"tracekit: {prefix}{found.severity.value}[{found.code.value}] {found.message}", file=sys.stderr)


def say(quiet: bool, command: str, text: str) -> None:
    """The one summary line on stderr, ``tracekit <command>: text`` (docs/cli.md, convention 2);
    ``--quiet`` silences it."""
    if not quiet:
        print(f"tracekit {command}: {text}", file=sys.stderr)


def fail(code: Code, exit_code: int = EXIT_ERROR, **params: int | str) -> NoReturn:
    """Print a diagnostic for ``code`` and exit."""
    diag(finding(code, **params))
    leave(exit_code)


def leave(code: int) -> NoReturn:
    """End the command with ``code`` (the one way every command exits with a verdict; the app
    maps it to the process's exit status, and neither needs the CLI framework)."""
    raise SystemExit(int(code))


def fail_internal() -> NoReturn:
    """Report an unexpected exception without a traceback (internal.error, exit 2)."""
    diag(finding(Code.INTERNAL_ERROR))
    sys.exit(EXIT_ERROR)


def interrupted() -> NoReturn:
    """Ctrl-C: nothing partial was written (outputs are atomic); exit 130 as shells expect."""
    diag(finding(Code.CLI_INTERRUPTED))
    sys.exit(EXIT_INTERRUPTED)


class Inputs(msgspec.Struct, frozen=True):
    """The files a command will read, and how many folders were too deep to search."""

    files: list[str]
    too_deep: int = 0

    # Read like the list of files it holds, as collect_inputs returned before it counted
    # folders too deep to search.
    def __iter__(self) -> Iterator[str]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    def __getitem__(self, index: int) -> str:
        return self.files[index]

    def __bool__(self) -> bool:
        return bool(self.files)

    def note(self) -> ExitCode:
        """Report folders left unsearched (a warning finding); the exit code it implies."""
        if not self.too_deep:
            return ExitCode.OK
        diag(finding(Code.CLI_WALK_TOO_DEEP, count=self.too_deep, limit=WALK_MAX_DEPTH))
        return ExitCode.FAIL


TRACE_SUFFIXES = (".jsonl", ".json", ".eval")
"""What commands reading any trace format walk folders for (docs/formats.md, "Using it from the
command line"): JSON Lines, JSON documents and Inspect ``.eval`` archives."""
NOT_TRACES = (".expected.json",)
"""Ground-truth files kept next to the traces they describe: never collected from a folder."""


class InputFormat(enum.StrEnum):
    """``--input-format`` choices: tracekit.formats.registry.FORMAT_NAMES (a test keeps the two
    in step; the registry is not imported here so ``--help`` stays fast)."""

    inspect = "inspect"
    otel = "otel"
    agentdojo = "agentdojo"
    garak = "garak"
    agentguard = "agentguard"
    harness = "harness"
    claude_code = "claude_code"
    codex = "codex"
    atif = "atif"


def collect_inputs(paths: Iterable[str], suffixes: tuple[str, ...] = (".jsonl",)) -> Inputs:
    """Expand folders into the files below them whose names end in ``suffixes``, sorted, leaving
    out ground-truth files (:data:`NOT_TRACES`).

    Files named on the command line are kept whatever their suffix; ``-`` is standard input
    (at most once). Symlinked folders are not followed, so a campaign folder cannot loop.
    """
    found: list[str] = []
    too_deep = 0
    for raw in paths:
        path = Path(raw)
        if raw != "-" and path.is_dir():
            deep = [0]
            found.extend(str(p) for p in _walk(path, suffixes, deep))
            too_deep += deep[0]
        else:
            found.append(raw)
    if found.count("-") > 1:
        fail(Code.CLI_STDIN_TWICE)
    return Inputs(_once(found), too_deep)


def _once(found: list[str]) -> list[str]:
    """Each file once, at its first mention: overlapping inputs (``A A/sub``, a file named
    twice, a symlink to a file already listed) name the same real path (docs/cli.md, "Inputs
    and folders")."""
    seen: set[str] = set()
    kept: list[str] = []
    for path in found:
        real = real_key(path)
        if real not in seen:
            seen.add(real)
            kept.append(path)
    return kept


def real_key(path: str) -> str:
    """What makes two input names the same file: the real path (``-`` stays itself)."""
    return path if path == "-" else os.path.realpath(path)


def _walk(folder: Path, suffixes: tuple[str, ...], too_deep: list[int]) -> Iterator[Path]:
    """Depth-first, sorted, iterative (no recursion limit to hit): folders deeper than
    WALK_MAX_DEPTH are counted in ``too_deep[0]`` and not entered."""
    stack: list[tuple[Path, int]] = [(folder, 0)]
    while stack:
        current, depth = stack.pop()
        try:
            with os.scandir(current) as entries:
                listed = sorted(entries, key=lambda e: e.name)
        except OSError:
            continue
        subfolders: list[Path] = []
        for entry in listed:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                subfolders.append(Path(entry.path))
            elif (
                entry.name.endswith(suffixes)
                and not entry.name.endswith(NOT_TRACES)
                and is_regular_file(entry.path)
            ):
                yield Path(entry.path)
        if depth >= WALK_MAX_DEPTH:
            too_deep[0] += len(subfolders)
            continue
        stack.extend((sub, depth + 1) for sub in reversed(subfolders))


def absolute(path: str) -> str:
    """``path`` made absolute for a worker that may run elsewhere; ``-`` stays standard input."""
    return path if path == "-" else os.path.abspath(path)


def refuse_folder(path: str) -> None:
    """A one-trace command given a folder: a usage error, not a failed trace."""
    if path != "-" and os.path.isdir(path):
        fail(Code.CLI_NOT_A_FILE)


def is_regular_file(path: str | Path) -> bool:
    """True for a regular file (through symlinks). Files found by walking a folder, or derived
    from one, must be regular: opening a FIFO planted in a campaign folder would block forever,
    and a device could be endless. A FIFO the user names on the command line is read as given."""
    import stat

    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def parse_roots(values: list[str] | None) -> dict[str, Path]:
    """``NAME=DIR`` pairs for ``--trusted-root``; NAME is one of the ``${NAME}`` roles."""
    from tracekit.formats.agentguard.sources import ROOT_NAMES

    roots: dict[str, Path] = {}
    for value in values or []:
        name, sep, folder = value.partition("=")
        if not sep or not folder:
            fail(Code.CLI_TRUSTED_ROOT_SYNTAX)
        if name not in ROOT_NAMES:
            fail(Code.CLI_TRUSTED_ROOT_NAME, names=", ".join(sorted(ROOT_NAMES)))
        if not Path(folder).is_dir():
            fail(Code.CLI_TRUSTED_ROOT_MISSING, name=name)
        roots[name] = Path(folder)
    return roots


class ExecutorName(enum.StrEnum):
    """Where a campaign command's per-trace work runs (docs/cli.md, "Executors")."""

    local = "local"
    dask = "dask"


class ExecutorOptions(msgspec.Struct, frozen=True):
    """The executor flags every campaign command shares."""

    name: ExecutorName = ExecutorName.local
    jobs: int = 1
    scheduler: str | None = None
    connect_timeout: float = 20.0

    def __post_init__(self) -> None:
        if self.scheduler is not None and self.name is not ExecutorName.dask:
            fail(Code.CLI_OPTION_NEEDS, option="--scheduler", other="--executor dask")

    def make(self, tasks: int, stdin: bool = False, preload: tuple[str, ...] = ()) -> Executor:
        """The executor for ``tasks`` tasks; in-process when standard input is one of them."""
        from tracekit.kernel.executors import make_executor
        from tracekit.kernel.executors.local import LocalExecutor

        if self.name is ExecutorName.dask:
            if stdin:
                fail(Code.CLI_OPTION_CONFLICT, option="--executor dask", other="standard input (-)")
            return make_executor("dask", self.jobs, self.scheduler, self.connect_timeout)
        jobs = 1 if stdin else max(1, min(self.jobs, tasks))
        return LocalExecutor(jobs, preload=preload)
