"""One module per metamorphic transform; :mod:`tracekit.judging.metamorphic.registry` lists them."""
