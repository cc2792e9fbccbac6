"""Python's cyclic garbage collector, paused while tracekit builds data that only grows.

Loading, keeping and replaying a trace allocate hundreds of thousands of containers that all stay
alive until the step ends (decoded JSON, typed events, drafts) and make no reference cycles. The
collector would rescan that growing heap every few hundred allocations and find nothing: a fifth
to a third of those steps' time on the 16 MiB benchmark trace, and an import's time per MiB that
grows with the file (docs/performance.md, "Round 3"). Objects are still freed by reference
counting while it is paused; it resumes when the step ends, however it ends.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused(when: bool = True) -> Iterator[None]:
    """The collector paused for the ``with`` block (when ``when``), then restored as it was."""
    stop = when and gc.isenabled()
    if stop:
        gc.disable()
    try:
        yield
    finally:
        if stop:
            # What the block kept is all in the youngest generation; the first collection after
            # it would scan every object once more just to age it. Moved to the oldest
            # generation instead (freeze, then unfreeze), it stays collectable and is scanned
            # only by the next full collection.
            gc.freeze()
            gc.unfreeze()
            gc.enable()
