"""The anonymous temporary files a seal writes what it must not hold to (docs/threat-model.md,
"seal"). A module of its own: `verify`'s fast path imports the bundle commands' edge
(tracekit/cli/bundle_io.py), never this."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import BinaryIO


@dataclass(frozen=True, slots=True)
class SealSpools:
    """The anonymous temporary files a seal writes what it must not hold to (docs/threat-model.md,
    "seal"): the inputs' exact bytes, their episodes, the planned record frames and the blobs'
    payloads. Made by :func:`seal_spools`, gone when it closes them."""

    originals: BinaryIO
    episodes: BinaryIO
    records: BinaryIO
    blobs: BinaryIO


@contextmanager
def seal_spools() -> Iterator[SealSpools]:
    """Four empty spools, closed (and so gone) when the block ends."""
    with ExitStack() as stack:
        yield SealSpools(*(stack.enter_context(tempfile.TemporaryFile()) for _ in range(4)))
