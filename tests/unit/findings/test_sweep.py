"""Metamorphic sweeps over evidence (docs/findings.md, "Metamorphic sweeps")."""

from __future__ import annotations

from msgspec.structs import replace

from tests.unit.findings.episodes import benign, exfiltration, scenario, with_approval
from tracekit.judging.findings.consistency import check_episode
from tracekit.judging.findings.sweep import SweepTally, sweep_file
from tracekit.judging.findings.transforms import BY_NAME, TRANSFORMS

POLICY = scenario(
    "type: no_external_recipient",
    "type: no_secret_disclosure",
    "type: approval_required\n    action: send_email",
)


def _sweep(episodes: list, strict: bool = True) -> SweepTally:  # type: ignore[type-arg]
    tally = SweepTally.new()
    sweep_file("t", episodes, POLICY, tally, trials=2, strict=strict)
    return tally


def test_every_relation_holds_in_strict_mode() -> None:
    tally = _sweep([exfiltration(), benign(), with_approval(before=True), exfiltration([" x@evil.example"])])
    assert tally.failed == 0, [(c.transform, c.reason) for c in tally.failures]
    applied = {name for name, count in tally.transforms.items() if count.total}
    assert applied == {t.name for t in TRANSFORMS} - {"reorder_parallel_calls"}


def test_broken_assertion_ignoring_lists_is_caught() -> None:
    # Upstream's compatible mode ignores list-valued recipients: a deliberately broken rule.
    tally = _sweep([exfiltration()], strict=False)
    broken = {c.transform for c in tally.failures}
    assert "recipient_as_list" in broken


def test_reorder_parallel_calls_applies_to_sibling_calls() -> None:
    episode = exfiltration()
    parallel = replace(episode, calls=(episode.calls[0], replace(episode.calls[1], turn=0)))
    changed = BY_NAME["reorder_parallel_calls"].edit(parallel, 1)
    assert changed is not None
    assert [c.name for c in changed.calls] == ["send_email", "read_email"]
    assert [c.index for c in changed.calls] == [0, 1]
    tally = _sweep([parallel])
    assert tally.transforms["reorder_parallel_calls"].passed == 2


def test_refused_transforms_and_skipped_sources() -> None:
    for name, code in (("dangling_call_id", "evidence.dangling_call_id"), ("result_before_call", "evidence.result_before_call")):
        changed = BY_NAME[name].edit(exfiltration(), 1)
        assert changed is not None
        assert [f.code.value for f in check_episode(changed)] == [code]
    broken = BY_NAME["dangling_call_id"].edit(exfiltration(), 1)
    tally = _sweep([broken])
    assert tally.episodes == 0 and tally.skipped_total == 1
    assert tally.skipped[0].code == "evidence.dangling_call_id"


def test_duplicate_call_ids_are_refused() -> None:
    episode = exfiltration()
    twin = replace(episode, calls=(episode.calls[0], replace(episode.calls[1], call_id="call-1")))
    assert "evidence.duplicate_call_id" in [f.code.value for f in check_episode(twin)]
    assert check_episode(episode) == ()
