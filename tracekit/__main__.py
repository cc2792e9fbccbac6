"""``python -m tracekit``: the same entry point as the ``tracekit`` console script."""

from tracekit.cli.app import entry

entry()
