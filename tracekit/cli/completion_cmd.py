"""``tracekit completion SHELL``: the shell completion script (docs/cli.md, "completion").

The script calls ``tracekit`` back with ``_TRACEKIT_COMPLETE`` set; ``tracekit.cli.app.main``
then answers with completions (typer's own completion classes, registered only then, so that
no other invocation pays for them)."""

from __future__ import annotations

import enum

import typer

from tracekit.cli.options import Command

COMPLETE_VAR = "_TRACEKIT_COMPLETE"


class Shell(enum.StrEnum):
    """The shells typer writes completion scripts for."""

    bash = "bash"
    zsh = "zsh"
    fish = "fish"
    powershell = "powershell"


def completion(shell: Shell = typer.Argument(..., metavar="SHELL", help="bash, zsh, fish or powershell.")) -> None:
    """Print the shell completion script; e.g. `tracekit completion bash >> ~/.bashrc`."""
    from typer._completion_classes import completion_init
    from typer._completion_shared import get_completion_script

    completion_init()
    print(get_completion_script(prog_name="tracekit", complete_var=COMPLETE_VAR, shell=shell.value))


def register(app: typer.Typer) -> None:
    """Add completion to the app."""
    app.command("completion", cls=Command)(completion)
