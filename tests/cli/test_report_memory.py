"""report and seal of a file of many episodes hold none of them (docs/threat-model.md, "The HTML
report" and "The sealer"): report folds each episode into its page as the audit reads it, seal
spools each one and reads it back in the file's order; both give the bytes they gave when they
held the whole evidence, on a file whose members come in the reverse of its episode order."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.report_inputs import SCENARIO
from tests.cli.test_audit_memory import _eval
from tracekit.bundle.seal import FindingInput, seal
from tracekit.bundle.spooled import SpooledEvidence, SpooledOriginal
from tracekit.cli.audit_io import AuditJob, AuditOptions, audit_file
from tracekit.cli.bundle_io import load_finding
from tracekit.cli.check_io import read_scenario
from tracekit.cli.findings_io import judge, load
from tracekit.cli.report_cmd import _trace
from tracekit.cli.seal_spools import seal_spools
from tracekit.formats import registry
from tracekit.judging.audit import with_episodes
from tracekit.judging.harness.scenario import parse_scenario
from tracekit.report.html import build
from tracekit.report.html.render import render

EPISODES = build.EPISODE_LIMIT + 200
"""More episodes than the page has sections for: which ones get one depends on the file's order."""


def _watch(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each pair the stream hands over, watched two pairs later (the consumer's loop still names
    the last one): how many references to its episode are left then besides the pair's own."""
    real = registry.stream_as
    refs: list[int] = []

    def watched(*args: Any, **kwargs: Any) -> Any:
        stream = real(*args, **kwargs)
        read = stream.pairs

        def pairs() -> Iterator[Any]:
            last: list[Any] = []
            for pair in read:
                if len(last) == 2:
                    old = last.pop(0)
                    refs.append(sys.getrefcount(old[1]) - 2)  # the pair's and this call's
                last.append(pair)
                yield pair

        stream.pairs = pairs()
        return stream

    monkeypatch.setattr(registry, "stream_as", watched)
    return refs


def _page(path: Path, scenario: bool) -> str:
    """``tracekit report``'s page of one trace, as the command folds it."""
    data = read_scenario(str(SCENARIO)) if scenario else None
    page = build.PageBuilder("exfil-email" if scenario else None, False)
    _trace(page, str(path), True, AuditOptions(False, (), data), parse_scenario(data) if data else None, False)
    return render(page.page())


def _whole_page(path: Path, scenario: bool) -> str:
    """The same page from the whole evidence and its audit with every episode (as the report
    read a trace before it streamed)."""
    data = read_scenario(str(SCENARIO)) if scenario else None
    parsed = parse_scenario(data) if data else None
    page = build.PageBuilder("exfil-email" if scenario else None, False)
    audit = with_episodes(audit_file(AuditJob(str(path), str(path), True, AuditOptions(False, (), data))))  # type: ignore[arg-type]
    evidence = load(str(path), None)
    judged = {} if parsed is None else {e.id: judge(parsed, e, False) for e in evidence.episodes}
    page.trace(audit, evidence, judged)
    return render(page.page())


@pytest.mark.parametrize("scenario", [False, True])
def test_report_holds_no_episode_and_gives_the_whole_read_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scenario: bool
) -> None:
    """Before, report read the file twice and held every episode of the second read (241 MiB
    on 99,999 episodes of 5 messages; 106 MiB folded as they are read)."""
    source = _eval(tmp_path / "many.eval", EPISODES)
    expected = _whole_page(source, scenario)
    refs = _watch(monkeypatch)
    html = _page(source, scenario)
    assert len(refs) == EPISODES - 2 and set(refs) == {0}, sorted(set(refs))  # one read, nothing kept
    assert html == expected
    assert f"{EPISODES - build.EPISODE_LIMIT} episode(s) beyond the first" in html


def test_seal_holds_no_episode_and_gives_the_whole_read_bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, seal held the whole evidence while it planned and wrote (262 MiB on 99,999
    episodes of 5 messages; 121 MiB spooled)."""
    source = _eval(tmp_path / "many.eval", EPISODES)
    seed = bytes(range(32))
    whole = load_finding(str(source), None)
    expected = b"".join(seal([whole], seed, campaign=False))
    refs = _watch(monkeypatch)
    with seal_spools() as spools:
        item = load_finding(str(source), None, spools)
        assert isinstance(item.evidence, SpooledEvidence) and isinstance(item.original, SpooledOriginal)
        assert b"".join(item.original.chunks()) == whole.original
        assert len(refs) == EPISODES - 2 and set(refs) == {0}, sorted(set(refs))
        assert item.labels() == whole.labels() and item.totals() == whole.totals()
        assert list(item.evidence.episodes) == list(whole.evidence.episodes)
        assert b"".join(seal([item], seed, campaign=False)) == expected
        campaign = [item, FindingInput(whole.original, whole.evidence)]
        assert b"".join(seal(campaign, seed, campaign=True)) == b"".join(seal([whole, whole], seed, campaign=True))
