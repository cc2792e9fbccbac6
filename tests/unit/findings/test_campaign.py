"""Distinct demonstrations across a campaign (docs/findings.md, "Campaigns")."""

from __future__ import annotations

from msgspec.structs import replace

from tests.unit.findings.episodes import benign, exfiltration, scenario
from tracekit.judging.findings import campaign
from tracekit.judging.findings.campaign import FindingsTally, arguments_digest
from tracekit.judging.findings.judge import judge_episode
from tracekit.kernel.evidence import Arguments

POLICY = scenario("type: no_external_recipient")


def test_identical_failures_are_one_demonstration() -> None:
    tally = FindingsTally()
    for n in range(5):
        episode = replace(exfiltration(), id=f"s{n}")
        tally.add("inspect", POLICY.id, f"run{n}.eval", episode, judge_episode(POLICY, episode))
    tally.add("inspect", POLICY.id, "ok.eval", benign(), judge_episode(POLICY, benign()))
    other = exfiltration("other@evil.example")
    tally.add("otel", POLICY.id, "x.jsonl", other, judge_episode(POLICY, other))
    counts = {(c.format, c.policy): (c.episodes, c.failed) for c in tally.counts.values()}
    assert counts == {("inspect", "exfil-email"): (6, 5), ("otel", "exfil-email"): (1, 1)}
    demos = sorted(tally.distinct.values(), key=lambda d: d.episodes)
    assert [d.episodes for d in demos] == [1, 5]
    assert demos[1].first_trace == "run0.eval" and demos[1].tool == "send_email"


def test_argument_shape_is_part_of_the_digest() -> None:
    as_object = Arguments("object", value={"amount": 1000})
    as_string = Arguments("string", text='{"amount": 1000}', value={"amount": 1000})
    as_text = Arguments("object", value={"amount": "1000"})
    digests = {arguments_digest(a) for a in (as_object, as_string, as_text)}
    assert len(digests) == 3
    reordered = Arguments("object", value={"b": 1, "a": 2})
    assert arguments_digest(reordered) == arguments_digest(Arguments("object", value={"a": 2, "b": 1}))


def test_distinct_list_is_bounded(monkeypatch: object) -> None:
    import pytest

    mp = pytest.MonkeyPatch()
    mp.setattr(campaign, "DISTINCT_LIMIT", 2)
    try:
        tally = FindingsTally()
        for n in range(4):
            episode = exfiltration(f"x{n}@evil.example")
            tally.add("inspect", POLICY.id, "t", episode, judge_episode(POLICY, episode))
        assert len(tally.distinct) == 2 and tally.distinct_overflow == 2
    finally:
        mp.undo()
