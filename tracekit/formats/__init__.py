"""Trace formats: one module per format, each a :class:`~tracekit.formats.base.TraceFormat`,
and one registry that detects and loads them (docs/formats.md)."""
