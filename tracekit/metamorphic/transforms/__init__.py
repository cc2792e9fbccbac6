"""One module per metamorphic transform; :mod:`tracekit.metamorphic.registry` lists them."""
