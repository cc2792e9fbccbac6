"""``--debug FILE``: where an internal error's report goes, for a bug report (docs/cli.md,
"Debug reports").

The report holds tracekit's version, Python's, the command's name and the stack of the failure:
file names, line numbers and function names, and the exception's type. Never the exception's
message, local variables or the command line's arguments: those may carry trace content or paths
the user does not mean to share, and a diagnostic never repeats untrusted input."""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

_TARGET: list[Path] = []


def take_option(argv: list[str]) -> list[str]:
    """``argv`` without ``--debug FILE`` / ``--debug=FILE`` (accepted anywhere), remembering
    FILE. A ``--debug`` with no value is left for the parser to refuse."""
    kept: list[str] = []
    index = 0
    while index < len(argv):
        word = argv[index]
        if word == "--debug" and index + 1 < len(argv):
            _TARGET[:] = [Path(argv[index + 1])]
            index += 2
            continue
        if word.startswith("--debug="):
            _TARGET[:] = [Path(word.split("=", 1)[1])]
        else:
            kept.append(word)
        index += 1
    return kept


def report_text(error: BaseException, command: str) -> str:
    """The debug report of ``error``: versions, command name, exception type and frames."""
    from tracekit import __version__

    lines = [
        f"tracekit {__version__}",
        f"python {sys.version.split()[0]} on {sys.platform}",
        f"command {command}",
        f"exception {type(error).__module__}.{type(error).__qualname__}",
        "stack (most recent call last):",
    ]
    for frame in traceback.extract_tb(error.__traceback__):
        lines.append(f"  {_shown(frame.filename)}:{frame.lineno} in {frame.name}")
    return "\n".join(lines) + "\n"


def _shown(filename: str) -> str:
    """A source file's name from ``tracekit/`` or ``site-packages/`` on: no home folders."""
    for marker in ("/tracekit/", "/site-packages/", "/lib/python"):
        if marker in filename:
            return filename[filename.index(marker) + 1 :]
    return Path(filename).name


def write_report(error: BaseException, command: str) -> bool:
    """Write the report to the ``--debug`` file if one was named; True when written."""
    if not _TARGET:
        return False
    from tracekit.cli.sink import write_atomic

    write_atomic(_TARGET[0], report_text(error, command).encode("utf-8"), force=False)
    return True
