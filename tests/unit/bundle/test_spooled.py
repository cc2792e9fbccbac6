"""The sealer's episode spool (tracekit/bundle/spooled.py): every episode comes back equal, in
the file's order, whatever it holds; MessagePack where it restores the episode exactly, pickle
where it would not."""

from __future__ import annotations

import tempfile

import msgspec

from tests.unit.bundle.factory import loop_evidence
from tracekit.bundle.spooled import SpooledEvidence, decode, encode
from tracekit.formats.base import EpisodeStream
from tracekit.kernel.evidence import Arguments, Episode, Message


def _odd(episode: Episode) -> list[Episode]:
    """Episodes MessagePack cannot give back equal: a lone surrogate, an integer past 64 bits,
    a tuple inside a JSON value."""
    first = episode.messages[0]
    call = episode.calls[1]
    return [
        msgspec.structs.replace(episode, messages=(Message(first.index, first.role, "half \ud800 pair"), *episode.messages[1:])),
        msgspec.structs.replace(episode, calls=(msgspec.structs.replace(call, arguments=Arguments(shape="object", value={"n": 2**70})),)),
        msgspec.structs.replace(episode, calls=(msgspec.structs.replace(call, arguments=Arguments(shape="object", value={"t": (1, 2)})),)),
    ]


def test_each_episode_comes_back_equal_by_the_cheaper_way_that_can() -> None:
    episode = loop_evidence(3).episodes[0]
    assert encode(episode)[:1] == b"m" and decode(encode(episode)) == episode
    for odd in _odd(episode):
        data = encode(odd)
        assert data[:1] == b"p"
        back = decode(data)
        assert back == odd and type(back.calls[-1].arguments.value) is type(odd.calls[-1].arguments.value)


def test_episodes_come_back_in_the_file_order_with_their_totals_and_labels() -> None:
    base = loop_evidence(2, epochs=4).episodes
    episodes = [msgspec.structs.replace(e, id=f"e{n}") for n, e in enumerate([*base, *_odd(base[0])])]
    keys = [5, 3, 3, 0, 9, 1, 7]  # the file's order is the keys' stable order
    stream = EpisodeStream("inspect", "2", iter(zip(keys, episodes, strict=True)))
    with tempfile.TemporaryFile() as spool:
        spool.write(b"held before")  # a campaign's earlier input
        spooled = SpooledEvidence(stream, spool)
        expected = [episodes[i] for i in sorted(range(len(keys)), key=keys.__getitem__)]
        assert list(spooled.episodes) == expected and list(spooled.episodes) == expected  # walked twice
        assert spooled.episodes[-1] == expected[-1] and list(spooled.episodes[1:3]) == expected[1:3]
        assert spooled.labels == tuple(e.id for e in expected)
        assert spooled.totals == (
            sum(len(e.messages) for e in episodes), sum(len(e.calls) for e in episodes), sum(len(e.turns) for e in episodes)
        )
