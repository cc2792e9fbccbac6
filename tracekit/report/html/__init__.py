"""``tracekit report``: one self-contained HTML forensic report (docs/report.md)."""
