"""Shared by the source-hashing tests: a recorded source and a counter of the bytes read."""

from __future__ import annotations

import os

import pytest
from gen import base

from tracekit.formats.agentguard.schema.agentguard import SourceArtifact


def source(path: str) -> SourceArtifact:
    """A required ``report`` source at ``path`` recorded with the empty file's digest."""
    return SourceArtifact(path=path, required=True, role="report", sha256=base.EMPTY_SHA)


class Reads:
    """Bytes read by tracekit.formats.agentguard.sources (work counted, never seconds)."""

    def __init__(self) -> None:
        self.bytes = 0


def count_reads(monkeypatch: pytest.MonkeyPatch) -> Reads:
    counter = Reads()
    real = os.read

    def counting(fd: int, n: int) -> bytes:
        chunk = real(fd, n)
        counter.bytes += len(chunk)
        return chunk

    monkeypatch.setattr("tracekit.formats.agentguard.sources.os.read", counting)
    return counter
