"""The ``tracekit`` app and its one exit-code table (README "Exit codes").

Every outcome maps to a documented exit code. typer's pretty tracebacks are off, and any
unexpected exception becomes ``internal.error`` with exit 2, so a crash is never mistaken for a
verdict (docs/threat-model.md).
"""

from __future__ import annotations

import sys

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
    try:
        app()
    except SystemExit:
        raise
    except (KeyboardInterrupt, Interrupted):
        interrupted()
    except BaseException:  # noqa: BLE001 - fail closed: a crash is reported, never a verdict
        fail_internal()
    sys.exit(0)
