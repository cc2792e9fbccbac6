"""The replay, replayability and verify JSON documents are typed end to end: each decodes back,
through msgspec, into the very Struct it was derived from, for every trace of the corpus."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from tests.helpers import CORPUS
from tracekit.formats.agentguard.verify import VerifyOptions, verify_file
from tracekit.judging.replay import (
    ReplayabilityDocument,
    ReplayDocument,
    ReplaySummary,
    replay,
    replay_document,
    replay_summary,
    replayability_document,
)
from tracekit.kernel.errors import TracekitError
from tracekit.report.verify_render import VerifyDocument, verify_document, verify_trace

TRACES = sorted(
    path for folder in ("valid", "replay", "invalid") for path in (CORPUS / folder).glob("*.jsonl")
)


def _round_trip(document: msgspec.Struct) -> None:
    decoded = msgspec.json.decode(msgspec.json.encode(document), type=type(document))
    assert decoded == document


@pytest.mark.parametrize("path", TRACES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_documents_decode_back_into_their_structs(path: Path) -> None:
    report = verify_file(path, VerifyOptions(keep_events=True))
    _round_trip(verify_document([verify_trace(report)]))
    try:
        replayed = replay(report)
    except TracekitError:
        return
    for document in (
        replay_document(replayed),
        replayability_document(replayed),
        replay_summary(replayed),
    ):
        _round_trip(document)


def test_the_document_types_are_structs_all_the_way_down() -> None:
    """No ``Any`` and no untyped ``dict`` anywhere in the documents' types."""
    seen: set[object] = set()

    def walk(kind: msgspec.inspect.Type) -> None:
        if id(kind) in seen:
            return
        seen.add(id(kind))
        assert not isinstance(kind, msgspec.inspect.AnyType), kind
        if isinstance(kind, msgspec.inspect.DictType):
            assert isinstance(kind.key_type, msgspec.inspect.StrType)
            assert isinstance(kind.value_type, msgspec.inspect.StrType | msgspec.inspect.IntType)
        for name in ("item_type", "value_type"):
            if hasattr(kind, name):
                walk(getattr(kind, name))
        for field in getattr(kind, "fields", ()):
            walk(field.type)
        for member in getattr(kind, "types", ()):
            walk(member)

    for document in (ReplayDocument, ReplayabilityDocument, ReplaySummary, VerifyDocument):
        walk(msgspec.inspect.type_info(document))
    assert len(seen) > 40  # the walk reached the nested Structs
