"""The fast path for the plain forms of ``tracekit verify`` and ``tracekit audit`` (docs/cli.md,
"Start-up").

``tracekit verify|audit [-q | --quiet] [-f | --format FORMAT] [-j | --jobs N] [--] TRACE...``
is read here,
without typer (about a third of a small verify's start-up, half of a small audit's), and runs
the one body of the command (tracekit/cli/verify_flow.py, tracekit/cli/audit_flow.py) with
every other option at its default. Anything else, any other
option, ``-h``/``--help``, a missing or unknown value, no TRACE, ``--debug``, a completion
call, goes to the typer app unread, which prints, exits and fails exactly as it always has:
this reader only decides that a command line is one it knows, never that one is wrong.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from collections.abc import Iterator

FORMATS = ("table", "json", "markdown", "junit", "sarif", "ocsf", "otlp")
"""``--format`` choices of both commands: tracekit.cli.common.FindingsFormat (a test keeps the
two in step; the enum is not imported to read a command line that may not be ours)."""
COMMANDS = ("verify", "audit")

LATER = {
    "verify": ("tracekit.cli.spool", "tracekit.kernel.executors.local", "tracekit.report.verify_stream"),
    "audit": ("tracekit.cli.spool", "tracekit.kernel.executors.local", "tracekit.report.audit_render"),
}
"""What each command imports beyond its workers' modules, once it runs: imported with them
before it starts, while the collector is paused (a collection scans what imports make, in
vain)."""


class Plain:
    """A plain ``verify`` or ``audit`` command line: the command, its traces, its format and
    whether it is quiet."""

    __slots__ = ("command", "format", "jobs", "paths", "quiet")

    def __init__(self, paths: list[str], format: str, quiet: bool, command: str = "verify", jobs: int = 1) -> None:
        self.paths, self.format, self.quiet, self.command, self.jobs = paths, format, quiet, command, jobs


def parse(argv: list[str]) -> Plain | None:
    """``argv`` (without the program name) as a plain verify or audit, or None for the typer
    app. Options may come before, between or after the traces, as click reads them; ``--``
    ends the options, ``-`` is standard input, the last ``--format`` and ``--jobs`` win."""
    if not argv or argv[0] not in COMMANDS or os.environ.get("_TRACEKIT_COMPLETE"):
        return None
    paths: list[str] = []
    format, quiet, options, jobs = "table", False, True, 1
    words = iter(argv[1:])
    for word in words:
        if word.startswith("--debug"):  # taken off anywhere, even after --: the app's (cli/debug.py)
            return None
        if not options or word == "-" or not word.startswith("-"):
            paths.append(word)
        elif word == "--":
            options = False
        elif word in ("-q", "--quiet"):
            quiet = True
        elif word.startswith(("-j", "--jobs")):
            count = _value(word, words, "-j", "--jobs")
            if count is None or not _plain_count(count):
                return None
            jobs = int(count)
        else:
            value = _value(word, words, "-f", "--format")
            if value not in FORMATS:
                return None
            format = value
    return Plain(paths, format, quiet, argv[0], jobs) if paths else None


MAX_JOBS = 256
"""``--jobs``'s bound in tracekit/cli/options.py (a test keeps the two in step)."""


def _plain_count(text: str) -> bool:
    """Whether a ``--jobs`` value is read here: 1 to :data:`MAX_JOBS` in plain decimal digits
    (anything else, a sign, a space, an underscore, a leading zero, is left to click, whose
    reading of it may differ)."""
    return text.isascii() and text.isdigit() and text[0] != "0" and int(text) <= MAX_JOBS


def _value(word: str, words: Iterator[str], short: str, long: str) -> str | None:
    """The value of an option spelt ``-f X``, ``-fX``, ``--format X`` or ``--format=X`` (with
    ``short`` and ``long`` its names); None for any other option, or a missing value."""
    if word in (short, long):
        return next(words, None)
    if word.startswith(long + "="):
        return word.removeprefix(long + "=")
    if word.startswith(short) and not word.startswith("--"):
        return word[2:]
    return None


def start(command: str = "verify") -> None:
    """What the command imports, imported before it runs (the app pauses the collector around
    this: a collection would scan what imports make, in vain), and the JSON head's name."""
    import_msgspec()
    workers: tuple[str, ...]
    if command == "audit":
        from tracekit.cli import audit_flow, audit_run  # noqa: F401 - imported for run()

        workers = audit_run.WORKER_MODULES
    else:
        from tracekit.cli import verify_flow, verify_run  # noqa: F401 - imported for run()

        workers = verify_run.WORKER_MODULES
    from tracekit.report.jsonout import set_head

    for module in (*workers, *LATER[command]):
        __import__(module)
    set_head(command=command)


def run(plain: Plain) -> NoReturn:
    """Verify or audit as ``tracekit verify`` or ``tracekit audit`` does with these options;
    exits (through the app's ``guarded``, which maps every exception to its exit code as for
    any command)."""
    from tracekit.cli.common import ExecutorOptions, FindingsFormat

    run = ExecutorOptions(jobs=plain.jobs)
    if plain.command == "audit":
        from tracekit.cli import audit_flow

        audit_flow.audit(plain.paths, FindingsFormat(plain.format), run=run, quiet=plain.quiet)
    from tracekit.cli import verify_flow

    verify_flow.verify(plain.paths, FindingsFormat(plain.format), run=run, quiet=plain.quiet)


def import_msgspec() -> None:
    """Import msgspec without typing_extensions (~38M instructions with the ``inspect``, ``ast``
    and ``dis`` it imports: more than tracekit's own modules on this path). msgspec 0.23 imports
    it for one function, ``get_type_hints``, which it always calls with ``include_extras=True``,
    and on Python 3.11 and later that is ``typing.get_type_hints`` unchanged (typing_extensions
    calls it and returns its result); msgspec falls back to typing's own when typing_extensions
    cannot be imported. It can be again right after, for whatever needs it (a bundle's typer
    command). tests/cli/test_verify_fast.py checks both halves."""
    if "msgspec" in sys.modules or "typing_extensions" in sys.modules:
        return
    sys.modules["typing_extensions"] = None  # type: ignore[assignment]  # import refused, as if absent
    try:
        import msgspec  # noqa: F401
    finally:
        del sys.modules["typing_extensions"]
