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
            path = Path(root) / name
            if name.endswith(suffixes) and is_regular_file(path):
                yield path


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


def write_atomic(path: Path, data: bytes | Iterable[bytes], force: bool) -> None:
    """Write ``data`` (bytes, or chunks of bytes streamed without joining them) to ``path``
    atomically; never through a symlink, never over a file without ``force``.

    On Linux the data goes into an unnamed ``O_TMPFILE`` that is linked into place only when
    complete, so a killed process leaves no file at all; elsewhere (or with ``force``, which must
    replace) a named temporary file in the same folder is renamed over the target."""
    check_output_file(path, force)
    chunks: Iterable[bytes] = [data] if isinstance(data, bytes) else data
    folder = path.parent if str(path.parent) else Path(".")
    flag = getattr(os, "O_TMPFILE", 0)
    try:
        fd = os.open(folder, flag | os.O_RDWR, 0o644) if flag else -1
    except OSError:
        fd = -1
    if fd < 0:
        _write_named(folder, path, chunks, force)
        return
    with os.fdopen(fd, "w+b") as handle:
        for chunk in chunks:
            handle.write(chunk)
        handle.flush()
        os.fsync(handle.fileno())
        if not force and _link_unnamed(handle.fileno(), path):
            return
        handle.seek(0)
        _write_named(folder, path, iter(lambda: handle.read(1024 * 1024), b""), force)


def _link_unnamed(fd: int, path: Path) -> bool:
    """Give an O_TMPFILE a name. link() refuses an existing name, so this never overwrites
    (nor follows a symlink planted since the check); False where the kernel refuses."""
    root = os.open("/", os.O_RDONLY)
    try:
        os.link(f"/proc/self/fd/{fd}", path, src_dir_fd=root, follow_symlinks=True)
    except FileExistsError:
        fail(Code.CLI_OUTPUT_EXISTS)
    except OSError:
        return False
    finally:
        os.close(root)
    return True


def _write_named(folder: Path, path: Path, chunks: Iterable[bytes], force: bool) -> None:
    fd, tmp = tempfile.mkstemp(prefix=".tracekit-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        if path.is_symlink():
            fail(Code.CLI_OUTPUT_UNSAFE)
        if not force and path.exists():
            fail(Code.CLI_OUTPUT_EXISTS)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


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
