"""Everything that judges evidence: audit, findings (check of a finding), replay, metamorphic
studies and the harness check (docs/architecture.md)."""
