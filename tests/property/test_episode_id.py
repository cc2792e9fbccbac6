"""The one episode id (docs/cli.md, "Episode ids"): whatever a file calls its episode, the id is
plain, short, stable and names the episode back."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from tracekit.kernel.episode_id import ID_PATTERN, episode_label, names

PLAIN = st.text(alphabet="abcXYZ019._:-", min_size=1, max_size=64)


@given(st.text(max_size=200))
def test_every_id_is_plain_short_and_a_fixed_point(own: str) -> None:
    label = episode_label(own)
    assert re.fullmatch(ID_PATTERN.strip("^$"), label)
    assert episode_label(label) == label  # printing an id again never changes it
    assert names(label, own) and names(own, own)


@given(PLAIN)
def test_a_plain_id_is_shown_as_itself(own: str) -> None:
    assert episode_label(own) == own


@given(st.text(min_size=1, max_size=200), st.text(min_size=1, max_size=200))
def test_other_ids_stay_apart(one: str, other: str) -> None:
    """Two episodes a file names differently are never shown under one id (short of a 64-bit
    digest collision), and ``--episode`` with one's id never names the other."""
    if one != other:
        assert episode_label(one) != episode_label(other)
        assert not names(episode_label(one), other)
