"""in-toto attestations of tracekit's verdicts (docs/attest.md): statements, envelopes, checks."""
