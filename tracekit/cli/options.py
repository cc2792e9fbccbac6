"""The command-line options every command shares, as typer declares them, and the one command
class. Only the typer app imports this module: ``tracekit verify``'s fast path
(tracekit/cli/verify_fast.py) never does (docs/cli.md, "Start-up")."""

from __future__ import annotations

from typing import Any

import typer

from tracekit.cli.common import ExecutorName, FindingsFormat, Format

FORMAT = typer.Option(Format.table, "--format", "-f", help="Output format.")
FINDINGS_FORMAT = typer.Option(FindingsFormat.table, "--format", "-f", help="Output format.")
OUTPUT = typer.Option(None, "--output", "-o", metavar="FILE", help="Write the report here instead of stdout.")
FORCE = typer.Option(False, "--force", help="Replace existing output files.")
QUIET = typer.Option(False, "--quiet", "-q", help="No summary line on stderr.")
TRUSTED_ROOT = typer.Option(
    None,
    "--trusted-root",
    metavar="NAME=DIR",
    help="Trusted root for source artifacts, NAME=DIR (NAME: RUN_ROOT, REPOSITORY_ROOT, ...).",
)

INPUT_FORMAT = typer.Option(
    None,
    "--input-format",
    metavar="NAME",
    help="Read every input as this format, no detection: inspect, otel, agentdojo, garak, agentguard, harness.",
)

JOBS = typer.Option(1, "--jobs", "-j", metavar="N", min=1, max=256, help="Worker processes (or local Dask workers).")
EXECUTOR = typer.Option(ExecutorName.local, "--executor", help="Where the work runs.")
SCHEDULER = typer.Option(None, "--scheduler", metavar="ADDR", help="Dask scheduler address, e.g. tcp://host:8786.")
CONNECT_TIMEOUT = typer.Option(
    20.0, "--connect-timeout", metavar="SECONDS", min=0.1, max=3600, help="Seconds to reach the Dask scheduler."
)


class Command(typer.core.TyperCommand):
    """Every command's class: the usage line shows ``TRACE...`` rather than typer's
    ``{TRACE...}`` for a required argument."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:  # typer's own vendored Context
        pieces = super().collect_usage_pieces(ctx)
        return [p[1:-1] if p.startswith("{") and p.endswith("}") else p for p in pieces]

    def format_epilog(self, ctx: Any, formatter: Any) -> None:
        """The command's examples (tracekit/cli/examples.py), kept as written."""
        from tracekit.cli.examples import epilog

        text = epilog(ctx.command_path)
        if text:
            formatter.write_paragraph()
            formatter.write(text + "\n")
