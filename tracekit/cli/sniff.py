"""Telling a sealed bundle from a trace by its first bytes (docs/bundle-format.md section 1),
without importing the bundle reader: the parent does it for the files named on the command
line, a verify worker for the files it was sent (cli/verify_job.py), and the bundle commands
through cli/bundle_io.py."""

from __future__ import annotations

from tracekit.cli.common import is_regular_file


def is_bundle(path: str) -> bool:
    """True when ``path`` is a regular file that starts with the bundle magic."""
    from tracekit.bundle.magic import MAGIC

    if path == "-" or not is_regular_file(path):
        return False
    try:
        with open(path, "rb") as handle:
            return handle.read(len(MAGIC)) == MAGIC
    except OSError:
        return False
