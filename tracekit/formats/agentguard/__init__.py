"""The AgentGuard portable execution trace: its streaming verifier (docs/trace-format.md steps
1-8), its schemas, its canonical writer, and its reader into the common evidence model."""
