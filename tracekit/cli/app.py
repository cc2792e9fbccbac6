"""The ``tracekit`` app and its one exit-code table (README "Exit codes").

Every outcome maps to a documented exit code. typer's pretty tracebacks are off, and any
unexpected exception becomes ``internal.error`` with exit 2, so a crash is never mistaken for a
verdict (docs/threat-model.md).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn

from tracekit import __version__

if TYPE_CHECKING:
    import typer

#: Every command, in ``--help`` order, and the module that registers it (``register(app)``).
COMMANDS: dict[str, str] = {
    "verify": "verify_cmd",
    "show": "verify_cmd",
    "replayability": "replay_cmd",
    "replay": "replay_cmd",
    "metamorphic": "metamorphic_cmd",
    "check": "check_cmd",
    "audit": "audit_cmd",
    "keygen": "keygen_cmd",
    "seal": "bundle_cmd",
    "redact": "bundle_cmd",
    "bundle": "bundle_cmd",
    "db": "db_cmd",
    "explain": "explain_cmd",
    "completion": "completion_cmd",
    "attest": "attest_cmd",
    "report": "report_cmd",
}


def _version(value: bool) -> None:
    import typer

    if value:
        print(f"tracekit {__version__}")
        raise typer.Exit(0)


def _root_callback() -> Callable[..., None]:
    """The root's ``--version`` option (typer reads it from the signature's default)."""
    import typer

    def _root(
        version: bool = typer.Option(
            False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ) -> None:
        """Independent verifier and forensic workbench for AI-agent execution traces."""

    return _root


def build(command: str | None = None) -> typer.Typer:
    """The app with every command, or with only the module that registers ``command``.

    ``tracekit verify FILE`` needs neither the other commands' modules nor typer's reading of
    their signatures (about a third of start-up, docs/performance.md "Start-up"); what the one
    command does, prints and exits with is the same either way, since its module registers it
    exactly as in the full app.
    """
    import typer

    root = typer.Typer(
        name="tracekit",
        help="Independent verifier and forensic workbench for AI-agent execution traces.",
        add_completion=False,
        epilog=(
            "Every command: -h for its help and examples; -o - writes to stdout; --debug FILE writes an internal "
            "error's stack to FILE for a bug report. `tracekit explain CODE` explains a diagnostic; "
            "`tracekit completion SHELL` prints a completion script. docs/cli.md is the contract."
        ),
        pretty_exceptions_enable=False,
        no_args_is_help=True,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    root.callback()(_root_callback())
    modules = [COMMANDS[command]] if command in COMMANDS else list(dict.fromkeys(COMMANDS.values()))
    for name in modules:
        # Each command module adds its commands; heavy work is imported lazily inside.
        __import__(f"tracekit.cli.{name}", fromlist=["register"]).register(root)
    if command in COMMANDS:  # and not the module's other commands: typer reads no other signature
        root.registered_commands = [c for c in root.registered_commands if c.name == command]
        root.registered_groups = [g for g in root.registered_groups if g.name == command]
    return root


_FULL: list[typer.Typer] = []


def __getattr__(name: str) -> typer.Typer:
    # ``from tracekit.cli.app import app``: the full app, built on first use.
    if name != "app":
        raise AttributeError(name)
    if not _FULL:
        _FULL.append(build())
    return _FULL[0]


def entry() -> None:
    """The ``tracekit`` console script and ``python -m tracekit``: the plain forms of ``tracekit
    verify`` and ``tracekit audit`` go to the fast path that never imports typer (tracekit/cli/verify_fast.py), every
    other command line to :func:`main`. The process then ends at once when nothing is left to
    run at exit (docs/cli.md, "Start-up")."""
    from tracekit.cli import verify_fast

    plain = verify_fast.parse(sys.argv[1:])
    try:
        if plain is None:
            main()
        else:
            from tracekit.kernel import collector

            with collector.paused():  # start-up's imports, as main() does
                verify_fast.start(plain.command)
                catch_sigint()
            guarded(lambda: verify_fast.run(plain), f"tracekit {plain.command}")
    except SystemExit as done:
        _exit_now(done.code)
        raise


def _exit_now(code: object) -> None:
    """End the process with ``code`` without tearing the interpreter down (a module at a time,
    the collector over everything start-up made), when that is safe: an integer status, no
    exit handler registered (a process pool, logging), no other thread, and both standard
    streams flushed. Otherwise return, and the exit runs as usual."""
    import atexit

    if not isinstance(code, int) or atexit._ncallbacks():
        return
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe: the usual exit reports it as before
        return
    import os

    os._exit(code)


def main() -> None:
    """Run the CLI through the typer app; map every exception that escapes a command to a
    documented exit code."""
    from tracekit.kernel import collector

    # Start-up only allocates what lives as long as the process (modules, the app), so the
    # cyclic collector would rescan it dozens of times for nothing (docs/performance.md,
    # "Start-up"); it runs again once the command starts.
    with collector.paused():
        _prepare()
    command = sys.argv[1] if len(sys.argv) > 1 else None

    def run() -> object:
        with collector.paused():
            app = build(command)
        return app(standalone_mode=False)

    guarded(run, _named_command())


def guarded(call: Callable[[], object], named: str) -> NoReturn:
    """Run a command and exit with its code; every exception that escapes it becomes a
    documented exit code (an internal error is reported, never mistaken for a verdict)."""
    from tracekit.cli.common import Interrupted, fail_internal, interrupted

    try:
        code = call()
    except SystemExit:
        raise
    except (KeyboardInterrupt, Interrupted):
        interrupted()
    except BaseException as error:  # noqa: BLE001 - fail closed: a crash is reported, never a verdict
        _typer_outcome(error)
        _debug_report(error, named)
        fail_internal()
    sys.exit(code if isinstance(code, int) else 0)


def _typer_outcome(error: BaseException) -> None:
    """The click that typer vendors (typer is pinned, docs/adr/0003): its usage errors are ours
    to print, in the one error style; its Abort is an interrupt. Nothing when typer never ran."""
    if "typer" not in sys.modules:
        return
    from typer import Abort
    from typer._click.exceptions import NoArgsIsHelpError, UsageError

    from tracekit.cli.common import interrupted

    if isinstance(error, NoArgsIsHelpError):
        error.show()  # the help text a bare group prints; exit 2 as click does
        sys.exit(2)
    if isinstance(error, UsageError):
        usage_error(error)
    if isinstance(error, Abort):
        interrupted()


def catch_sigint() -> None:
    """Ctrl-C raises our own exception: typer turns KeyboardInterrupt into a silent exit 130, so
    that an interrupt is reported with its code and nothing partial is written."""
    import signal

    from tracekit.cli.common import Interrupted

    def _on_sigint(_signum: int, _frame: object) -> None:
        raise Interrupted

    signal.signal(signal.SIGINT, _on_sigint)


def _prepare() -> None:
    """What every command line needs before its command is built: the SIGINT handler, the
    completion callback, ``--debug`` taken off the arguments, the JSON head's command name."""
    import os

    catch_sigint()
    from tracekit.report.jsonout import set_head

    if os.environ.get("_TRACEKIT_COMPLETE"):
        # The completion script calling back (tracekit/cli/completion_cmd.py).
        from typer._completion_classes import completion_init

        completion_init()
    from tracekit.cli import debug

    sys.argv[1:] = debug.take_option(sys.argv[1:])
    named = _named_command()
    if named != "tracekit":
        set_head(command=named.removeprefix("tracekit "))


def _debug_report(error: BaseException, named: str) -> None:
    """Write the ``--debug`` report of an internal error, if one was asked for (cli/debug.py);
    a report that cannot be written never hides the error itself."""
    from tracekit.cli import debug

    try:
        if debug.write_report(error, named):
            print("tracekit: the --debug report was written (stack frames only; no input content).", file=sys.stderr)
    except (Exception, SystemExit):  # noqa: BLE001 - the internal error is what gets reported
        pass


def _named_command() -> str:
    """``tracekit <command>`` when the command line names one, else ``tracekit``: click reports
    an option missing its value before it enters the command (docs/cli.md, Conventions 1)."""
    words = sys.argv[1:3]
    if words and words[0] in COMMANDS:
        groups = {"bundle": ("show", "extract", "prove"), "db": ("summary", "diff", "findings", "export", "runs")}
        if len(words) > 1 and words[1] in groups.get(words[0], ()):
            return f"tracekit {words[0]} {words[1]}"
        return f"tracekit {words[0]}"
    return "tracekit"


def usage_error(error: Exception) -> NoReturn:
    """A usage error click found (a missing argument, an unknown option, a value of the wrong
    type), in the one error style: ``tracekit: error[cli.usage] <what click says>`` and a hint.
    Click's sentence names the option and may quote the user's own argument, never trace
    content; it is escaped like a path so it cannot drive the terminal."""
    from typer._click.exceptions import UsageError

    from tracekit.report.text import display_path

    assert isinstance(error, UsageError)
    ctx = error.ctx
    where = f"tracekit {ctx.command_path.split(' ', 1)[1]}" if ctx and " " in ctx.command_path else _named_command()
    print(f"tracekit: error[cli.usage] {display_path(error.format_message())}", file=sys.stderr)
    print(f"Try '{where} -h' for help.", file=sys.stderr)
    sys.exit(2)
