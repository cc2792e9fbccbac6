"""Findings: a scenario's policies judged on every episode of any format, with the provenance of
each argument, the campaign's distinct demonstrations and their robustness (docs/findings.md)."""
