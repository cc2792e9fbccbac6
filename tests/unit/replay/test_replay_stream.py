"""Replay folding the events while verify streams them equals replay over the kept events."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from tests.helpers import CORPUS
from tracekit.formats.agentguard.verify import VerifyOptions, verify_file
from tracekit.judging.replay import replay, replay_document
from tracekit.judging.replay.grouping import EventGroups
from tracekit.kernel.errors import TracekitError

TRACES = sorted(
    path
    for folder in ("valid", "replay", "regressions", "hostile/agentguard", "invalid")
    for path in (CORPUS / folder).glob("*.jsonl")
)


def _document(path: Path, streamed: bool) -> object:
    events = EventGroups() if streamed else None
    options = VerifyOptions(keep_events=not streamed, observe=events.add if events else None)
    report = verify_file(path, options)
    try:
        replayed = replay(report, events=events)
    except TracekitError as error:
        return error.finding.code
    return msgspec.to_builtins(replay_document(replayed))


def test_the_corpus_is_large_enough() -> None:
    assert len(TRACES) > 100


@pytest.mark.parametrize("path", TRACES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_streamed_replay_equals_replay_over_kept_events(path: Path) -> None:
    assert _document(path, streamed=True) == _document(path, streamed=False)


def test_the_fold_holds_no_agent_command_event() -> None:
    path = CORPUS / "replay" / "combo__tests_unsafe_diff.jsonl"
    events = EventGroups()
    report = verify_file(path, VerifyOptions(observe=events.add))
    assert report.intact and not report.events and events.commands
    assert not events.of("agent_command")
    kept = verify_file(path, VerifyOptions(keep_events=True)).events
    assert len(events.commands) == sum(e.event_type == "agent_command" for e in kept)


def test_observe_sees_only_events_that_passed_their_checks() -> None:
    seen: list[int] = []
    report = verify_file(
        CORPUS / "invalid" / "chain__tampered_payload.jsonl",
        VerifyOptions(observe=lambda event: seen.append(event.line)),
    )
    assert not report.intact
    bad = next(f.line for f in report.findings if f.line is not None)
    assert all(line < bad for line in seen)
