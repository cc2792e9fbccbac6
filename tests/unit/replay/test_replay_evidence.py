"""Evidence reconstruction: change classification, ordering, consistency and containment."""

from __future__ import annotations

import msgspec
from gen import base

from tests.unit.replay.factories import verified
from tracekit.formats.agentguard.writer import DraftEvent, DraftTrace
from tracekit.judging.replay.evidence import reconstruct
from tracekit.kernel.errors import Code, Severity


def _draft(changes: list[DraftEvent], version: int = 2, containment: bool = False) -> DraftTrace:
    draft = base.clean_trace(version, "evidence", with_containment=containment)
    start = 4 if containment else 3
    draft.events[start : start + 2] = changes
    paths = [c.payload["path"] for c in changes]
    added = sum(c.payload["lines_added"] for c in changes)
    deleted = sum(c.payload["lines_deleted"] for c in changes)
    draft.events[-1] = base.completed(paths, added=added, deleted=deleted)
    return draft


def _symlink(path: str, *, old: bool) -> DraftEvent:
    event = base.file_change(path, "symlink")
    event.payload.update(
        new_mode="120000",
        symlink_target="t",
        old_mode="120000" if old else None,
        old_content_sha256=base.sha("o") if old else None,
    )
    return event


def test_classification_and_order() -> None:
    changes = [
        base.file_change("d/gone.md", "deleted"),
        _symlink("s/new-link", old=False),
        base.file_change("a/new.py", "added"),
        _symlink("s/old-link", old=True),
        base.file_change("m/changed.py"),
    ]
    report = verified(_draft(changes))
    rebuilt = reconstruct(report.events, 2)
    ev = rebuilt.evidence
    assert ev is not None and rebuilt.blocking == [] and rebuilt.notices == []
    assert ev.modified_files == ("s/old-link", "m/changed.py")
    assert ev.added_files == ("s/new-link", "a/new.py")
    assert ev.deleted_files == ("d/gone.md",)
    assert ev.changed_files == ("s/old-link", "m/changed.py", "s/new-link", "a/new.py", "d/gone.md")


def test_symlink_with_only_old_mode_missing_is_modified() -> None:
    event = _symlink("s/half", old=True)
    event.payload["old_mode"] = None  # old digest present: not a new link
    ev = reconstruct(verified(_draft([event])).events, 2).evidence
    assert ev is not None and ev.modified_files == ("s/half",)


def test_commands_and_test_are_rebuilt() -> None:
    ev = reconstruct(verified(base.clean_trace(2, "e")).events, 2).evidence
    assert ev is not None
    assert [c.command_text for c in ev.commands] == [
        "cat src/widget.py",
        "python tools/apply_patch.py fix.diff",
    ]
    assert ev.commands[0].status == "executed" and ev.commands[0].policy_mode == "enforce"
    assert (ev.test.command, ev.test.exit_code) == ("python -m pytest -q", 0)
    assert (ev.lines_added, ev.lines_deleted) == (6, 2)


def test_paths_must_equal_completion_exactly() -> None:
    draft = base.clean_trace(2, "e")
    draft.events[-1].payload["modified_files"]["paths"] = [
        "src/widget.py",
        "docs/widget.md",
        "extra.py",
    ]
    rebuilt = reconstruct(verified(draft).events, 2)
    assert [f.code for f in rebuilt.blocking] == [Code.REPLAY_INCONSISTENT_FILE_CHANGES]
    assert rebuilt.blocking[0].line == len(draft.events) + 1


def test_duplicate_completion_paths_are_a_finding() -> None:
    draft = base.clean_trace(2, "e")
    draft.events[-1].payload["modified_files"]["paths"] = ["src/widget.py", "src/widget.py"]
    codes = [f.code for f in reconstruct(verified(draft).events, 2).blocking]
    assert codes == [Code.REPLAY_DUPLICATE_FILE_CHANGE, Code.REPLAY_INCONSISTENT_FILE_CHANGES]


def test_missing_singletons_are_findings_not_crashes() -> None:
    events = [e for e in verified(base.clean_trace(2, "e")).events if e.event_type != "test_result"]
    rebuilt = reconstruct(events, 2)
    assert rebuilt.evidence is None
    assert [f.code for f in rebuilt.blocking] == [Code.REPLAY_MISSING_EVIDENCE]
    assert rebuilt.blocking[0].message == "Replay needs exactly one test_result event."


def test_notices_do_not_block() -> None:
    draft = base.clean_trace(2, "e")
    draft.events[-1].payload["modified_files"]["lines_added"] = 99
    draft.events[1].payload["working_directory_role"] = "${REPO}"
    draft.events[3].relative_offset_seconds = 5.0
    draft.events[4].relative_offset_seconds = 1.0
    rebuilt = reconstruct(verified(draft).events, 2)
    assert rebuilt.blocking == []
    assert [f.code for f in rebuilt.notices] == [
        Code.REPLAY_UNKNOWN_WORKING_DIRECTORY_ROLE,
        Code.REPLAY_NON_MONOTONIC_OFFSETS,
        Code.REPLAY_INCONSISTENT_LINE_TOTALS,
    ]
    assert all(f.severity is Severity.NOTICE for f in rebuilt.notices)
    assert rebuilt.evidence is not None and rebuilt.evidence.lines_added == 99  # completion totals


def test_containment_is_carried_not_strengthened() -> None:
    v2 = reconstruct(verified(base.clean_trace(2, "e")).events, 2).evidence
    assert v2 is not None and v2.containment is None
    bare = reconstruct(verified(base.clean_trace(3, "e")).events, 3).evidence
    assert bare is not None and bare.containment is not None
    assert msgspec.to_builtins(bare.containment) == {
        "recorded": False,
        "execution_mode": "unknown",
        "state": "unknown",
        "security_claim_level": "unknown",
        "sections": {},
        "complete": False,
    }
    draft = base.clean_trace(3, "e", with_containment=True)
    draft.events[1].payload["controls"]["state"] = "unavailable"
    held = reconstruct(verified(draft).events, 3).evidence
    assert held is not None and held.containment is not None
    summary = msgspec.to_builtins(held.containment)
    assert summary["recorded"] and summary["security_claim_level"] == "linux-docker-engine"
    assert summary["sections"]["controls"] == "unavailable" and summary["complete"] is False
