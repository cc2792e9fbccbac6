"""What every command shares: inputs, diagnostics on stderr and exit codes (docs/cli.md).

Output files go through the one sink in sink.py.
"""

from __future__ import annotations

import enum
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TypeVar, overload

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
    found: list[tuple[str, str]] = []
    too_deep = 0
    paths = list(paths)
    for raw in paths:
        path = Path(raw)
        if raw != "-" and path.is_dir():
            deep = [0]
            files, links = _walk(path, suffixes, deep)
            too_deep += deep[0]
            if len(paths) == 1 and not links:  # one folder, no symlink: each file is there once
                return Inputs(files, too_deep)
            found += _keyed(path, files, links)
        else:
            found.append((raw, real_key(raw)))
    if sum(1 for p, _ in found if p == "-") > 1:
        fail(Code.CLI_STDIN_TWICE)
    return Inputs(_once(found), too_deep)


def _keyed(folder: Path, files: list[str], links: dict[int, str]) -> list[tuple[str, str]]:
    """Each file :func:`_walk` found below ``folder`` with its real path: a symlink's from
    ``links``, a plain file's the folder's real path joined with the file's path below the
    folder (the walk enters no symlinked folder, so nothing between is a link)."""
    prefix, real = str(folder), os.path.realpath(folder)
    skip = 0 if prefix == "." else len(prefix) + (prefix != "/")
    return [(path, links.get(index) or os.path.join(real, path[skip:])) for index, path in enumerate(files)]


def _once(found: list[tuple[str, str]]) -> list[str]:
    """Each file once, at its first mention: overlapping inputs (``A A/sub``, a file named
    twice, a symlink to a file already listed) name the same real path (docs/cli.md, "Inputs
    and folders"). ``found`` pairs each path with its real path."""
    seen: set[str] = set()
    kept: list[str] = []
    for path, real in found:
        if real not in seen:
            seen.add(real)
            kept.append(path)
    return kept


def real_key(path: str) -> str:
    """What makes two input names the same file: the real path (``-`` stays itself)."""
    return path if path == "-" else os.path.realpath(path)


def _walk(folder: Path, suffixes: tuple[str, ...], too_deep: list[int]) -> tuple[list[str], dict[int, str]]:
    """Depth-first, sorted, iterative (no recursion limit to hit): the files below ``folder``,
    and the real path of each that is a symlink, by its index; folders deeper than
    WALK_MAX_DEPTH are counted in ``too_deep[0]`` and not entered. Symlinked folders are not
    entered, so a file that is not a symlink is a plain file by its directory entry and its
    real path follows from the folder's (:func:`_keyed`): only symlinks cost a ``realpath``
    and a ``stat``, and a campaign's walk holds one string per file (docs/performance.md,
    "Campaigns")."""
    files: list[str] = []
    links: dict[int, str] = {}
    stack: list[tuple[Path, int]] = [(folder, 0)]
    while stack:
        current, depth = stack.pop()
        try:
            names, folders, linked = _kinds(current, suffixes)
        except OSError:
            continue
        prefix = str(current)
        for name in names:
            path = _below(prefix, name)
            if name not in linked:
                files.append(path)
            elif is_regular_file(path):
                links[len(files)] = os.path.realpath(path)
                files.append(path)
        if depth >= WALK_MAX_DEPTH:
            too_deep[0] += len(folders)
            continue
        stack.extend((Path(_below(prefix, name)), depth + 1) for name in reversed(folders))
    return files, links


def _below(prefix: str, name: str) -> str:
    """An entry's path as ``Path`` would write it, joined without a ``Path`` (whose parts Python
    interns) per file: below ``.``, the bare name."""
    return name if prefix == "." else os.path.join(prefix, name)


def _kinds(folder: Path, suffixes: tuple[str, ...]) -> tuple[list[str], list[str], set[str]]:
    """The entries of ``folder`` a walk may take: the names of its files (plain by their
    directory entry, or symlinks) and of its folders, each sorted, and which of the files are
    symlinks. A folder's files are all listed before its subfolders are entered, so the two
    orders are independent; only a name is held per entry while a folder of many files is
    sorted."""
    names: list[str] = []
    folders: list[str] = []
    linked: set[str] = set()
    with os.scandir(folder) as entries:
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.name)
                elif not entry.name.endswith(suffixes) or entry.name.endswith(NOT_TRACES):
                    continue
                elif entry.is_symlink():
                    linked.add(entry.name)
                    names.append(entry.name)
                elif entry.is_file(follow_symlinks=False):
                    names.append(entry.name)
            except OSError:
                continue
    names.sort()
    folders.sort()
    return names, folders, linked


J = TypeVar("J")


class FileJobs(Sequence[J]):
    """A campaign's files read as their jobs, each job made when it is read (:meth:`job`): a
    campaign holds its list of files, not a job per file as well (peak memory,
    docs/performance.md "Campaigns")."""

    def __init__(self, files: list[str]) -> None:
        self.files = files

    def job(self, path: str) -> J:
        raise NotImplementedError

    def __len__(self) -> int:
        return len(self.files)

    @overload
    def __getitem__(self, index: int) -> J: ...
    @overload
    def __getitem__(self, index: slice) -> list[J]: ...
    def __getitem__(self, index: int | slice) -> J | list[J]:
        if isinstance(index, slice):
            return [self.job(path) for path in self.files[index]]
        return self.job(self.files[index])


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
