"""What every format and every stage shares: the codes and findings, the work budget, path
hygiene, strict JSON scanning, canonical JSON, the common evidence model and the executors
(docs/architecture.md). The kernel imports nothing else from tracekit."""
