"""Composing preserving transforms preserves the outcome (docs/metamorphic.md).

Each preserving transform alone keeps the recomputed verdict; any sequence of them, with any
trials and seeds, must too. Sources include failing traces from the replay corpus, so the
property is checked on verdicts that have something to lose.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.metamorphic.support import CORPUS, custom_trace, outcome_of, replayable_corpus
from tracekit.formats.agentguard.verify import verify_bytes
from tracekit.formats.agentguard.writer import read_draft, write_trace
from tracekit.judging.metamorphic import REGISTRY, Klass, NotApplicable, Transform

PRESERVING = [t for t in REGISTRY if t.klass is Klass.PRESERVING]
SOURCES = [
    write_trace(custom_trace()),
    *(p.read_bytes() for p in replayable_corpus() if p.relative_to(CORPUS).parts[0] in ("replay", "valid")),
]


def _compose(data: bytes, steps: list[tuple[Transform, int, int]]) -> bytes:
    for transform, trial, seed in steps:
        try:
            produced = transform.apply(read_draft(data), trial, seed)
        except NotApplicable:
            continue
        data = produced if isinstance(produced, bytes) else write_trace(produced)
    return data


@settings(max_examples=40)
@given(
    source=st.sampled_from(SOURCES),
    steps=st.lists(
        st.tuples(st.sampled_from(PRESERVING), st.integers(1, 6), st.integers(0, 50)),
        min_size=1,
        max_size=5,
    ),
)
def test_any_composition_of_preserving_transforms_preserves_the_outcome(
    source: bytes, steps: list[tuple[Transform, int, int]]
) -> None:
    composed = _compose(source, steps)
    assert verify_bytes(composed).exit_code == 0
    assert outcome_of(composed) == outcome_of(source)


def test_there_are_enough_sources_and_transforms_to_compose() -> None:
    assert len(PRESERVING) >= 5 and len(SOURCES) >= 10
    assert len({outcome_of(s).result for s in SOURCES}) == 2, "both PASS and FAIL verdicts"
