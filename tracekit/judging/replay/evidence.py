"""Rebuild the evidence a policy evaluation needs from a verified trace's typed events
(docs/replay.md, "Evidence reconstruction").

Pure: takes the events verify kept, or their replay fold (grouping.py), and returns an
:class:`Evidence` plus findings. Nothing here reads files, runs commands or trusts a recorded
verdict; ``check_result`` events are not evidence (they are what replay compares against,
engine.py).

Reconstruction, as upstream:

* exactly one ``execution_started``, ``test_result`` and ``execution_completed`` event;
* file changes: ``added`` -> added, ``deleted`` -> deleted, ``symlink`` with a null old digest and
  a null old mode -> added, everything else -> modified; the changed files are always ordered
  modified + added + deleted;
* the file_change paths, in event order, must equal ``modified_files.paths`` exactly;
* the line totals come from the completion summary;
* the test result from ``test_result`` and the command log from ``agent_command`` events;
* v3 ``containment_evidence`` is carried over as recorded, never upgraded (containment.py).

Problems that make a replay meaningless (missing singletons, inconsistent or duplicate paths) are
*blocking* findings; cross-checks upstream never makes (line totals, working-directory roles,
offset order) are notices that do not block. Those rules live in crosschecks.py, shared with
audit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import msgspec

from tracekit.formats.agentguard.records import EventRecord
from tracekit.formats.agentguard.schema import agentguard as ag
from tracekit.judging.replay import crosschecks
from tracekit.judging.replay.containment import ContainmentSummary, summarise_containment
from tracekit.judging.replay.grouping import CommandEvidence, EventGroups, grouped
from tracekit.kernel.errors import Code, Finding, finding


class TestEvidence(msgspec.Struct, frozen=True):
    """The task's test run, without its output (only digests of output are ever recorded).
    Frozen Structs, here and below: built once per trace, and a Struct is built in C."""

    __test__ = False  # not a pytest test class

    command: str
    exit_code: int | None
    timed_out: bool
    functional_pass: bool


class Evidence(msgspec.Struct, frozen=True):
    """Everything the seven checks read."""

    task_id: str
    modified_files: tuple[str, ...]
    added_files: tuple[str, ...]
    deleted_files: tuple[str, ...]
    lines_added: int
    lines_deleted: int
    test: TestEvidence
    commands: tuple[CommandEvidence, ...]
    containment: ContainmentSummary | None = None

    @property
    def changed_files(self) -> tuple[str, ...]:
        """modified + added + deleted: the order every path-based check reports in."""
        return self.modified_files + self.added_files + self.deleted_files


@dataclass(slots=True)
class Reconstruction:
    """The result of :func:`reconstruct`: evidence when possible, and what was noticed."""

    evidence: Evidence | None
    blocking: list[Finding] = field(default_factory=list)
    """Findings that make the trace not replayable."""
    notices: list[Finding] = field(default_factory=list)
    """Findings worth reporting that do not change the verdict."""


def _single(groups: EventGroups, kind: str, out: Reconstruction) -> EventRecord | None:
    found = groups.of(kind)
    if len(found) != 1:
        out.blocking.append(finding(Code.REPLAY_MISSING_EVIDENCE, event_type=kind))
        return None
    return found[0]


def _classify(change: ag.FileChange) -> str:
    if change.change_type in ("added", "deleted"):
        return change.change_type
    if (
        change.change_type == "symlink"
        and change.old_content_sha256 is None
        and change.old_mode is None
    ):
        return "added"
    return "modified"


def reconstruct(
    events: Sequence[EventRecord] | EventGroups, schema_version: int
) -> Reconstruction:
    """Rebuild the evidence from ``events``: a verified trace's typed events, in order, or the
    replay fold of them (grouping.py), made while verify streamed them."""
    groups = grouped(events)
    out = Reconstruction(evidence=None)
    started = _single(groups, "execution_started", out)
    test = _single(groups, "test_result", out)
    completed = _single(groups, "execution_completed", out)
    buckets: dict[str, list[str]] = {"modified": [], "added": [], "deleted": []}
    event_paths: list[str] = []
    changes = groups.of("file_change")
    for event in changes:
        assert isinstance(event.payload, ag.FileChange)
        event_paths.append(event.payload.path)
        buckets[_classify(event.payload)].append(event.payload.path)
    if len(set(event_paths)) != len(event_paths):
        out.blocking.append(finding(Code.REPLAY_DUPLICATE_FILE_CHANGE))
    _notices(groups, out)
    if started is None or test is None or completed is None:
        return out
    assert isinstance(started.payload, ag.ExecutionStarted)
    assert isinstance(test.payload, ag.TestResult)
    assert isinstance(completed.payload, ag.ExecutionCompleted)
    summary = completed.payload.modified_files
    if len(set(summary.paths)) != len(summary.paths) and not any(
        f.code is Code.REPLAY_DUPLICATE_FILE_CHANGE for f in out.blocking
    ):
        out.blocking.append(finding(Code.REPLAY_DUPLICATE_FILE_CHANGE, completed.line))
    if event_paths != list(summary.paths):
        out.blocking.append(finding(Code.REPLAY_INCONSISTENT_FILE_CHANGES, completed.line))
    if not crosschecks.line_totals_match(summary, changes):
        out.notices.append(finding(Code.REPLAY_INCONSISTENT_LINE_TOTALS, completed.line))
    t = test.payload
    out.evidence = Evidence(
        task_id=started.payload.task_id,
        modified_files=tuple(buckets["modified"]),
        added_files=tuple(buckets["added"]),
        deleted_files=tuple(buckets["deleted"]),
        lines_added=summary.lines_added,
        lines_deleted=summary.lines_deleted,
        test=TestEvidence(t.command, t.exit_code, t.timed_out, t.functional_pass),
        commands=tuple(groups.commands),
        containment=summarise_containment(groups.of("containment_evidence"), schema_version),
    )
    return out


def _notices(groups: EventGroups, out: Reconstruction) -> None:
    roles = groups.roles.hit()
    if roles is not None:
        out.notices.append(
            finding(Code.REPLAY_UNKNOWN_WORKING_DIRECTORY_ROLE, roles[0], count=roles[1])
        )
    drops = groups.offsets.drops.hit()
    if drops is not None:
        out.notices.append(finding(Code.REPLAY_NON_MONOTONIC_OFFSETS, drops[0], count=drops[1]))
