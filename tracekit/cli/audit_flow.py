"""What ``tracekit audit`` does once its command line is read and its options checked: the one
body behind both readers of that command line, the typer app (tracekit/cli/audit_cmd.py) and
the fast path for the plain forms (tracekit/cli/verify_fast.py; docs/cli.md, "Start-up"). It
never imports typer."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

from tracekit.cli.audit_io import AuditOptions
from tracekit.cli.common import EXIT_ERROR, ExecutorOptions, FindingsFormat, diag, leave, worst
from tracekit.cli.sink import emit
from tracekit.kernel.errors import TracekitError

PLAIN = AuditOptions(strict_sources=False, roots=(), scenario=None)
"""Every audit option at the command line's default."""


def audit(
    paths: list[str],
    format: FindingsFormat = FindingsFormat.table,
    opts: AuditOptions = PLAIN,
    run: ExecutorOptions | None = None,
    output: Path | None = None,
    force: bool = False,
    quiet: bool = False,
    verbose: bool = False,
) -> NoReturn:
    """Audit ``paths`` (the output target already checked) and exit with the worst file's code:
    0 all clean, 1 any warning or worse, 2 a trace unreadable, unknown or not intact. The
    defaults are the command line's."""
    from tracekit.cli import audit_run

    run = ExecutorOptions() if run is None else run
    request = audit_run.options_request(opts, run, paths, format, verbose, quiet)
    try:
        with audit_run.audited(request) as campaign:
            emit(audit_run.render(campaign, format, verbose), output, force)
    except TracekitError as error:
        diag(error.finding)
        leave(EXIT_ERROR)
    if not quiet:
        from tracekit.report.audit_render import summary_line

        print(summary_line(campaign.summary, campaign.exit_code), file=sys.stderr)
    leave(worst(campaign.exit_code, request.walked.note()))
