"""The one output sink of every command (docs/cli.md, "Output").

``-o/--output FILE`` writes one report; ``--output-dir DIR`` writes a command's several files.
Every target is checked before any work and again before writing (docs/cli.md, "Output rules"):

1. a missing target is fine when its parent folder exists (tracekit creates the folder named by
   ``--output-dir`` itself, never its parents);
2. a symlink is refused (``cli.output_unsafe``), a folder named as a file is refused
   (``cli.output_is_folder``), anything else that is not a regular file (a FIFO, a device, a
   socket) is refused even with ``--force`` (``cli.output_not_regular``);
3. an existing regular file is replaced only with ``--force`` (``cli.output_exists``);
4. writing goes to a temporary file in the same folder, fsynced, then renamed into place; a
   command's several files are all staged first and renamed together, so a failure leaves every
   target as it was. An operating-system refusal is ``cli.output_unwritable``, never an internal
   error;
5. ``-`` is standard output, for every ``-o`` (docs/cli.md, "Output rules");
6. an input is never an output, with or without ``--force`` (``cli.output_is_input``).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from tracekit.cli.common import fail
from tracekit.kernel.errors import Code

Chunks = bytes | Iterable[bytes]


def _parent(path: Path) -> Path:
    return path.parent if str(path.parent) else Path(".")


def _mode(path: Path) -> int | None:
    """The target's lstat mode; None when it is absent and its parent folder exists."""
    try:
        return os.lstat(path).st_mode
    except FileNotFoundError:
        if not _parent(path).is_dir():
            fail(Code.CLI_OUTPUT_PARENT_MISSING)
        return None
    except NotADirectoryError:
        fail(Code.CLI_OUTPUT_PARENT_MISSING)
    except (OSError, ValueError):
        fail(Code.CLI_OUTPUT_UNWRITABLE)


def is_stdout(path: Path | str | None) -> bool:
    """True when an ``-o`` value means standard output (rule 5)."""
    return path is not None and str(path) == "-"


#: Suffixes a folder walk reads (traces, bundles, stores): a file of these inside an input folder
#: is an input (rule 6).
_WALKED = (".jsonl", ".json", ".eval", ".tkb", ".duckdb")
#: Folders named by these options are outputs, not inputs.
_OUTPUT_OPTIONS = ("--output-dir", "--out-dir", "--output", "-o")


def _argument_words() -> list[str]:
    """The command line's words that may name inputs: every word but those that follow an
    output option (rule 6)."""
    words, skip = [], False
    for word in sys.argv[1:]:
        if skip:
            skip = False
            continue
        if word in _OUTPUT_OPTIONS:
            skip = True
            continue
        if word.startswith("-") and "=" in word:
            word = word.split("=", 1)[1]
        words.append(word)
    return words


def _names_input(target: Path, word: str) -> bool:
    try:
        if os.path.samefile(word, target):
            return True
        if os.path.isdir(word) and target.suffix in _WALKED:
            inside = os.path.realpath(target)
            return inside.startswith(os.path.realpath(word).rstrip(os.sep) + os.sep)
    except (OSError, ValueError):
        return False
    return False


def refuse_input(path: Path) -> None:
    """Rule 6: refuse an existing target that another word of the command line names, or that
    a folder given on the command line would walk (``cli.output_is_input``)."""
    if any(_names_input(path, word) for word in _argument_words()):
        fail(Code.CLI_OUTPUT_IS_INPUT)


def check_target(path: Path, force: bool) -> None:
    """Refuse an output file that cannot or must not be written (rules 1 to 3, 5, 6 above)."""
    if is_stdout(path):
        return
    mode = _mode(path)
    if mode is None:
        return
    if stat.S_ISREG(mode):
        refuse_input(path)
    if stat.S_ISLNK(mode):
        fail(Code.CLI_OUTPUT_UNSAFE)
    if stat.S_ISDIR(mode):
        fail(Code.CLI_OUTPUT_IS_FOLDER)
    if not stat.S_ISREG(mode):
        fail(Code.CLI_OUTPUT_NOT_REGULAR)
    if not force:
        fail(Code.CLI_OUTPUT_EXISTS)


def check_folder(folder: Path, names: Iterable[str], force: bool) -> None:
    """Refuse an ``--output-dir`` that is a symlink or not a folder, whose parent is missing, or
    any of whose ``names`` cannot be written."""
    mode = _mode(folder)
    if mode is None:
        _probe_folder(folder)
        return
    if stat.S_ISLNK(mode) or not stat.S_ISDIR(mode):
        fail(Code.CLI_OUTPUT_UNSAFE)
    for name in names:
        check_target(folder / name, force)


def _probe_folder(folder: Path) -> None:
    """Before any work, show that a missing ``--output-dir`` can be made: make it and remove it
    again, so the check fails now rather than after the job."""
    if make_folder(folder):
        try:
            folder.rmdir()
        except OSError:
            fail(Code.CLI_OUTPUT_UNWRITABLE)


def make_folder(folder: Path) -> bool:
    """Create ``folder`` (not its parents) after :func:`check_folder`; True if it was created."""
    try:
        folder.mkdir()
    except FileExistsError:
        if folder.is_symlink() or not folder.is_dir():
            fail(Code.CLI_OUTPUT_UNSAFE)
        return False
    except FileNotFoundError:
        # A file system such as procfs answers "no such file" for a folder it cannot hold.
        fail(Code.CLI_OUTPUT_UNWRITABLE if _parent(folder).is_dir() else Code.CLI_OUTPUT_PARENT_MISSING)
    except OSError:
        fail(Code.CLI_OUTPUT_UNWRITABLE)
    return True


class _Staged:
    """One file written and fsynced but not yet in place. On Linux it is an unnamed
    ``O_TMPFILE``, so a killed process leaves nothing behind; elsewhere a named temporary file
    in the target's folder."""

    def __init__(self, path: Path, data: Chunks, mode: int = 0o644) -> None:
        self.path = path
        self.mode = mode
        self.tmp: str | None = None
        folder = _parent(path)
        flag = getattr(os, "O_TMPFILE", 0)
        try:
            self.fd = os.open(folder, flag | os.O_RDWR, mode) if flag else -1
        except OSError:
            self.fd = -1
        if self.fd < 0:
            import tempfile  # only where O_TMPFILE is refused: off every command's start-up

            self.fd, self.tmp = tempfile.mkstemp(prefix=".tracekit-", suffix=".tmp", dir=folder)
            os.fchmod(self.fd, mode)
        for chunk in [data] if isinstance(data, bytes) else data:
            view = memoryview(chunk)
            while view:
                view = view[os.write(self.fd, view) :]
        os.fsync(self.fd)

    def _name(self) -> str:
        """A temporary name in the target's folder. An unnamed file is linked there, or, where
        the kernel refuses that link, copied into a named temporary file."""
        if self.tmp is None:
            folder = _parent(self.path)
            candidate = folder / f".tracekit-{os.getpid()}-{self.fd}-{id(self)}.tmp"
            try:
                os.link(f"/proc/self/fd/{self.fd}", candidate, follow_symlinks=True)
                self.tmp = str(candidate)
            except FileExistsError:
                raise
            except OSError:
                self._copy_to_named(folder)
        assert self.tmp is not None
        return self.tmp

    def _copy_to_named(self, folder: Path) -> None:
        import tempfile

        fd, tmp = tempfile.mkstemp(prefix=".tracekit-", suffix=".tmp", dir=folder)
        self.tmp = tmp
        try:
            os.fchmod(fd, self.mode)
            offset = 0
            while chunk := os.pread(self.fd, 1024 * 1024, offset):
                view = memoryview(chunk)
                while view:
                    view = view[os.write(fd, view) :]
                offset += len(chunk)
            os.fsync(fd)
        finally:
            os.close(fd)

    def commit(self, force: bool) -> None:
        """Move into place: link() without --force (it never overwrites, nor follows a symlink
        planted since the check), rename over the regular file with it."""
        if force:
            check_target(self.path, force)
            os.replace(self._name(), self.path)
            self.tmp = None
            return
        try:
            if self.tmp is None:
                try:
                    os.link(f"/proc/self/fd/{self.fd}", self.path, follow_symlinks=True)
                    return
                except FileExistsError:
                    raise
                except OSError:
                    pass
            os.link(self._name(), self.path, follow_symlinks=False)
        except FileExistsError:
            fail(Code.CLI_OUTPUT_EXISTS)

    def discard(self) -> None:
        os.close(self.fd)
        if self.tmp is not None and os.path.lexists(self.tmp):
            os.unlink(self.tmp)


def write_files(
    targets: Sequence[tuple[Path, Chunks]], force: bool, modes: Mapping[Path, int] | None = None
) -> None:
    """Write several files as one unit: check every target, stage every file, then move them
    into place. Nothing is moved unless every file was staged. ``modes`` gives a file a mode
    other than 0644 from its creation (a private key's 0600)."""
    for path, _ in targets:
        check_target(path, force)
    staged: list[_Staged] = []
    try:
        for path, data in targets:
            staged.append(_Staged(path, data, (modes or {}).get(path, 0o644)))
        for item in staged:
            item.commit(force)
    except OSError:
        fail(Code.CLI_OUTPUT_UNWRITABLE)
    finally:
        for item in staged:
            item.discard()


def write_atomic(path: Path, data: Chunks, force: bool) -> None:
    """Write one file atomically (see :func:`write_files`), or its bytes to standard output
    when ``path`` is ``-`` (rule 5)."""
    if is_stdout(path):
        _to_stdout(data)
        return
    write_files([(path, data)], force)


def _to_stdout(data: Chunks) -> None:
    """Bytes to standard output; a reader that stops early (``| head``) ends the command
    quietly."""
    out = sys.stdout.buffer
    try:
        for chunk in [data] if isinstance(data, bytes) else data:
            out.write(chunk)
        out.flush()
    except BrokenPipeError:
        _quiet_stdout()


def _text_to_stdout(chunks: Iterable[str]) -> None:
    last = ""
    for chunk in chunks:
        if chunk:
            sys.stdout.write(chunk)
            last = chunk
    if not last.endswith("\n"):
        sys.stdout.write("\n")
    sys.stdout.flush()


def _quiet_stdout() -> None:
    """After a closed pipe, point stdout at the null device so the interpreter's final flush
    does not fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def emit(text: str | Iterable[str], output: Path | None = None, force: bool = False) -> None:
    """Send a rendered result (one string, or chunks streamed without joining them) to stdout,
    or atomically to ``output`` (``-`` is stdout)."""
    chunks: Iterable[str] = [text] if isinstance(text, str) else text
    if output is None or is_stdout(output):
        try:
            _text_to_stdout(chunks)
        except BrokenPipeError:
            _quiet_stdout()
        return
    write_atomic(output, (chunk.encode("utf-8") for chunk in chunks), force)
