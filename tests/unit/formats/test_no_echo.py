"""No format diagnostic repeats input: canaries in keys, values and member names never reach a
message, whatever the format forced onto the bytes."""

from __future__ import annotations

import io
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from tracekit.formats import registry
from tracekit.formats.base import FormatError, FormatLimits, Source

CANARY = "CANARY-fmt-Zq81"
_LIMITS = FormatLimits(member_bytes=256 * 1024, items_per_episode=256, episodes=16)

_leaf = st.one_of(
    st.just(CANARY), st.integers(), st.none(), st.booleans(), st.just(f"attachment://{CANARY}")
)
_json = st.recursive(
    _leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.sampled_from([CANARY, "id", "epoch", "events", "messages", "event", "samples"]),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=30,
)


@settings(max_examples=150, deadline=None)
@given(
    sample=_json,
    header=st.dictionaries(
        st.sampled_from(["version", "eval", "status", CANARY]), _json, max_size=4
    ),
    name=st.sampled_from(registry.FORMAT_NAMES),
)
def test_no_format_echoes_its_input(sample: object, header: dict[str, object], name: str) -> None:
    document = {
        "version": 2,
        "status": "success",
        "eval": {"task": CANARY},
        **header,
        "samples": [sample],
    }
    data = json.dumps(document).encode()
    try:
        registry.load(Source(io.BytesIO(data), len(data), ".json"), name, _LIMITS)
    except FormatError as error:
        assert CANARY not in error.finding.message
