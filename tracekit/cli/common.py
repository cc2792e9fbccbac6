"""What every command shares: inputs, output files, diagnostics on stderr and exit codes.

Output files are written atomically (a temporary file in the same folder, fsync, rename), after
the verdict, never through a symlink, and never over an existing file without ``--force``.
"""

from __future__ import annotations

import enum
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NoReturn

import typer

from tracekit.errors import Code, Finding, finding

EXIT_OK, EXIT_FAIL, EXIT_ERROR = 0, 1, 2
EXIT_INTERRUPTED = 130


class Interrupted(BaseException):
    """Raised by tracekit's SIGINT handler; not a KeyboardInterrupt, so nothing swallows it."""


def ignore_sigint() -> None:
    """Pool worker initializer: the parent handles Ctrl-C and stops the pool."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


class Format(enum.StrEnum):
    """Output formats shared by the commands that print reports."""

    table = "table"
    json = "json"


def display_path(path: str | Path) -> str:
    """A path for humans: non-printable characters escaped so a file name cannot drive the
    terminal. Paths come from the user's own command line or folders, never from a trace."""
    text = str(path)
    if text.isprintable():
        return text
    return text.encode("unicode_escape", "backslashreplace").decode("ascii")


def diag(found: Finding, where: str | None = None) -> None:
    """Print one diagnostic line on stderr."""
    line = f" line {found.line}" if found.line else ""
    prefix = f"{display_path(where)}:{line} " if where else ""
    print(f"tracekit: {prefix}{found.severity.value}[{found.code.value}] {found.message}", file=sys.stderr)


def fail(code: Code, exit_code: int = EXIT_ERROR, **params: int | str) -> NoReturn:
    """Print a diagnostic for ``code`` and exit."""
    diag(finding(code, **params))
    raise typer.Exit(exit_code)


def fail_internal() -> NoReturn:
    """Report an unexpected exception without a traceback (internal.error, exit 2)."""
    diag(finding(Code.INTERNAL_ERROR))
    sys.exit(EXIT_ERROR)


def interrupted() -> NoReturn:
    """Ctrl-C: nothing partial was written (outputs are atomic); exit 130 as shells expect."""
    diag(finding(Code.CLI_INTERRUPTED))
    sys.exit(EXIT_INTERRUPTED)


def collect_inputs(paths: Iterable[str], suffixes: tuple[str, ...] = (".jsonl",)) -> list[str]:
    """Expand folders into the files below them whose names end in ``suffixes``, sorted.

    Files named on the command line are kept whatever their suffix; ``-`` is standard input.
    Symlinked folders are not followed, so a campaign folder cannot loop.
    """
    found: list[str] = []
    for raw in paths:
        path = Path(raw)
        if raw != "-" and path.is_dir():
            found.extend(str(p) for p in _walk(path, suffixes))
        else:
            found.append(raw)
    return found


def _walk(folder: Path, suffixes: tuple[str, ...]) -> Iterator[Path]:
    for root, dirs, files in os.walk(folder, followlinks=False):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(suffixes):
                yield Path(root) / name


def parse_roots(values: list[str] | None) -> dict[str, Path]:
    """``NAME=DIR`` pairs for ``--trusted-root``; NAME is one of the ``${NAME}`` roles."""
    from tracekit.sources import ROOT_NAMES

    roots: dict[str, Path] = {}
    for value in values or []:
        name, sep, folder = value.partition("=")
        if not sep or name not in ROOT_NAMES or not folder or not Path(folder).is_dir():
            fail(Code.CLI_USAGE)
        roots[name] = Path(folder)
    return roots


def check_output_file(path: Path, force: bool) -> None:
    """Refuse early (before any work) an output that exists without --force, or a symlink."""
    if path.is_symlink():
        fail(Code.CLI_OUTPUT_UNSAFE)
    if path.exists() and not force:
        fail(Code.CLI_OUTPUT_EXISTS)


def write_atomic(path: Path, data: bytes, force: bool) -> None:
    """Write ``data`` to ``path`` atomically; never through a symlink, never over a file
    without ``force``."""
    check_output_file(path, force)
    folder = path.parent if str(path.parent) else Path(".")
    if _write_unnamed(folder, path, data, force):
        return
    fd, tmp = tempfile.mkstemp(prefix=".tracekit-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if path.is_symlink():
            fail(Code.CLI_OUTPUT_UNSAFE)
        if not force and path.exists():
            fail(Code.CLI_OUTPUT_EXISTS)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _write_unnamed(folder: Path, path: Path, data: bytes, force: bool) -> bool:
    """Linux: write into an unnamed O_TMPFILE and link it into place, so that a killed process
    leaves no file at all, not even a temporary one. False where the platform cannot."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or force:
        return False
    try:
        fd = os.open(folder, flag | os.O_WRONLY, 0o644)
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
            try:
                # link() refuses an existing name, so this can never overwrite (nor follow a
                # symlink planted since the check).
                os.link(f"/proc/self/fd/{handle.fileno()}", path)
            except FileExistsError:
                fail(Code.CLI_OUTPUT_EXISTS)
            except OSError:
                return False
    except BaseException:
        raise
    return True


def prepare_output_dir(folder: Path, names: Iterable[str], force: bool) -> None:
    """Create ``folder`` (parents too) or accept an existing real folder; refuse a symlink at
    any level we create, and refuse existing output files without ``force``."""
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        fail(Code.CLI_OUTPUT_UNSAFE)
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        check_output_file(folder / name, force)


def emit(text: str, output: Path | None = None, force: bool = False) -> None:
    """Send a rendered result to stdout, or atomically to ``output``."""
    if output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()
    else:
        write_atomic(output, text.encode("utf-8"), force)
