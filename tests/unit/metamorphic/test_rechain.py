"""metamorphic/rechain.py writes exactly what tracekit.formats.agentguard.writer.write_trace writes."""

from __future__ import annotations

import pytest

from tests.unit.metamorphic.support import custom_trace, replayable_corpus
from tracekit.formats.agentguard.writer import (
    DraftEvent,
    DraftTrace,
    freeze,
    read_draft,
    thaw,
    write_trace,
)
from tracekit.judging.metamorphic import BY_NAME, NAMES, NotApplicable
from tracekit.judging.metamorphic.rechain import write_draft


def test_every_replayable_corpus_trace_is_rewritten_byte_for_byte() -> None:
    sources = replayable_corpus()
    assert len(sources) > 20
    for path in sources:
        draft = read_draft(path.read_bytes())
        assert write_draft(draft) == write_trace(draft), path.name


BYTES = ("canonical_reencoding", "invalid_dropped_event")
"""The transforms that return finished bytes, never a draft."""


@pytest.mark.parametrize("name", NAMES)
def test_every_transformed_draft_is_written_as_write_trace_writes_it(name: str) -> None:
    written = 0
    for path in replayable_corpus():
        frozen = freeze(read_draft(path.read_bytes()))
        for trial in (1, 2):
            try:
                produced = BY_NAME[name].apply(thaw(frozen), trial, 7)
            except NotApplicable:
                continue
            if isinstance(produced, DraftTrace):
                assert write_draft(produced) == write_trace(produced), path.name
                written += 1
    assert written > 0 or name in BYTES


def test_awkward_values_are_encoded_as_write_trace_encodes_them() -> None:
    draft = custom_trace()
    draft.events.append(DraftEvent("note", {"z": [1.5, -0.0, 1e-05, 1e16], "\u00e9\u2028": None, "a": "\x7f\ud800"},
                                   relative_offset_seconds=2.5, sequence=99))
    draft.events.append(DraftEvent("note", {}, relative_offset_seconds=None))
    assert write_draft(draft) == write_trace(draft)
