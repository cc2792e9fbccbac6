"""The first eight bytes of every sealed bundle (docs/bundle-format.md section 1), alone in a
module so that telling a bundle from a trace (``tracekit verify`` does it for every input) does
not import the bundle reader (docs/performance.md, "Start-up")."""

MAGIC = b"\x89TKB\r\n\x1a\n"
