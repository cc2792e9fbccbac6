"""msgspec schemas, one module per format family."""
