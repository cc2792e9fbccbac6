"""OWASP harness traces: the bounded loader (trace.py) and the reader into the common evidence
model (reader.py). Judging them against a scenario lives in tracekit/judging/harness."""
