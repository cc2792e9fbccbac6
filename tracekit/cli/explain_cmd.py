"""``tracekit explain CODE``: what a code means, why it matters and what to do (docs/cli.md,
"explain"), from the one catalogue that also generates docs/error-codes.md."""

from __future__ import annotations

import typer

from tracekit.cli.common import Format, fail
from tracekit.cli.options import FORCE, FORMAT, OUTPUT, Command
from tracekit.kernel.errors import Code, ExitCode


def explain(
    code: str = typer.Argument(None, metavar="CODE", help="A code such as chain.event_hash_mismatch."),
    every: bool = typer.Option(False, "--list", help="List every code instead."),
    format: Format = FORMAT,
    output: str = OUTPUT,
    force: bool = FORCE,
) -> None:
    """Explain a diagnostic code: what it means, why it matters, what to do."""
    from pathlib import Path

    from tracekit.cli.sink import check_target, emit
    from tracekit.report import explain_render as render

    target = Path(output) if output is not None else None
    if target is not None:
        check_target(target, force)
    if every:
        if code is not None:
            fail(Code.CLI_OPTION_CONFLICT, option="--list", other="CODE")
        items = render.CodeList(tuple(render.entry(c.value) for c in Code))
        emit(render.render_list(items, format.value, ExitCode.OK), target, force)
        return
    if code is None:
        fail(Code.CLI_MISSING_ARGUMENT, what="CODE (or --list)")
    if code.strip().lower() not in Code._value2member_map_:
        fail(Code.CLI_UNKNOWN_CODE)  # the unknown text is not repeated
    emit(render.render_entry(render.entry(code.strip().lower()), format.value, ExitCode.OK), target, force)


def register(app: typer.Typer) -> None:
    """Add explain to the app."""
    app.command("explain", cls=Command)(explain)
