"""Pure renderers: ``render(report) -> str``. JSON output carries ``report_version``."""
