"""The ``tracekit`` app and its one exit-code table (README "Exit codes").

Every outcome maps to a documented exit code. typer's pretty tracebacks are off, and any
unexpected exception becomes ``internal.error`` with exit 2, so a crash is never mistaken for a
verdict (docs/threat-model.md).
"""

from __future__ import annotations

import sys
from typing import NoReturn

import typer

from tracekit import __version__

app = typer.Typer(
    name="tracekit",
    help="Independent verifier and forensic workbench for AI-agent execution traces.",
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        print(f"tracekit {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Independent verifier and forensic workbench for AI-agent execution traces."""


def _register() -> None:
    # Each command module adds its commands to ``app``; heavy work is imported lazily inside.
    from tracekit.cli import verify_cmd

    verify_cmd.register(app)
    for name in ("replay_cmd", "metamorphic_cmd", "check_cmd", "audit_cmd", "bundle_cmd", "db_cmd"):
        try:
            module = __import__(f"tracekit.cli.{name}", fromlist=["register"])
        except ModuleNotFoundError as error:
            if error.name != f"tracekit.cli.{name}":
                raise
            continue
        module.register(app)


_register()


def main() -> None:
    """Run the CLI; map every exception that escapes a command to a documented exit code."""
    import signal

    from tracekit.cli.common import Interrupted, fail_internal, interrupted

    def _on_sigint(_signum: int, _frame: object) -> None:
        raise Interrupted

    # typer turns KeyboardInterrupt into a silent exit 130; our own exception reaches us instead,
    # so an interrupt is reported with its code and nothing partial is written.
    signal.signal(signal.SIGINT, _on_sigint)
    # The click that typer vendors (typer is pinned, docs/adr/0003): its usage errors are ours
    # to print, in the one error style.
    from typer._click.exceptions import NoArgsIsHelpError, UsageError

    try:
        code = app(standalone_mode=False)
    except NoArgsIsHelpError as error:
        error.show()  # the help text a bare group prints; exit 2 as click does
        sys.exit(2)
    except UsageError as error:
        usage_error(error)
    except typer.Abort:
        interrupted()
    except SystemExit:
        raise
    except (KeyboardInterrupt, Interrupted):
        interrupted()
    except BaseException:  # noqa: BLE001 - fail closed: a crash is reported, never a verdict
        fail_internal()
    sys.exit(code if isinstance(code, int) else 0)


def usage_error(error: Exception) -> NoReturn:
    """A usage error click found (a missing argument, an unknown option, a value of the wrong
    type), in the one error style: ``tracekit: error[cli.usage] <what click says>`` and a hint.
    Click's sentence names the option and may quote the user's own argument, never trace
    content; it is escaped like a path so it cannot drive the terminal."""
    from typer._click.exceptions import UsageError

    from tracekit.report.text import display_path

    assert isinstance(error, UsageError)
    ctx = error.ctx
    where = f"tracekit {ctx.command_path.split(' ', 1)[1]}" if ctx and " " in ctx.command_path else "tracekit"
    print(f"tracekit: error[cli.usage] {display_path(error.format_message())}", file=sys.stderr)
    print(f"Try '{where} -h' for help.", file=sys.stderr)
    sys.exit(2)
