"""The completeness profile of an AgentGuard execution trace (docs/audit.md).

The evidentiary unit is the command, the file change and the test run, plus the run-level fields
that say what was tested with what: verbatim argv, output digests and whether they were cut,
timing, exit codes, the policy snapshot, the agent, model and version, the AgentGuard version and
commit, the benchmark identity, the configuration hash, and sandbox and containment evidence.
Raw output is never in the format (only its digest is), so output digests are the unit.

"Rerun" for an AgentGuard trace means recomputing the verdict (tracekit replay) and knowing what
agent, task and configuration produced it. Locations are ``header.<field>`` or
``events[<sequence>].<field>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
from msgspec import UNSET

from tracekit.formats.agentguard.records import EventRecord
from tracekit.formats.agentguard.schema import agentguard as ag
from tracekit.formats.agentguard.sources import SourceStatus
from tracekit.judging.audit.completeness.base import FieldSpec, by_name, indexed
from tracekit.judging.audit.model import FieldStatus
from tracekit.judging.replay.checks import resolve_name
from tracekit.judging.replay.grouping import EventGroups
from tracekit.kernel.errors import Code

UNAVAILABLE = "unavailable"

FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("agent_model", True, "The model under test (header.agent_model)."),
    FieldSpec("agent_version", True, "The agent's version (header.agent_version)."),
    FieldSpec("agent_name", False, "The agent's name (header.agent_name)."),
    FieldSpec("tool_version", True, "AgentGuard's version and commit that wrote the trace."),
    FieldSpec("benchmark_identity", True, "Benchmark id and version, and the task id."),
    FieldSpec("configuration_hash", True, "sha256 of the resolved configuration."),
    FieldSpec("policy_snapshot", True, "The normalised policy the verdict was computed under."),
    FieldSpec("policy_summary", False, "The policy summary string."),
    FieldSpec("sandbox_summary", False, "The sandbox summary string."),
    FieldSpec("containment_evidence", False, "v3 containment evidence (image, controls, cleanup)."),
    FieldSpec("run_timing", False, "created_at and the run's duration."),
    FieldSpec("command_argv", True, "Each agent command's verbatim argv and text, not cut."),
    FieldSpec("command_output_digests", False, "stdout/stderr digests over uncut output."),
    FieldSpec("command_timing", False, "Each command's duration."),
    FieldSpec("command_exit_codes", False, "Each executed command's exit code."),
    FieldSpec("file_changes", True, "The changed-file list, complete and not truncated."),
    FieldSpec("file_content_digests", False, "Old and new content digests per changed file."),
    FieldSpec("file_diffs", False, "Unified diffs (only with upstream's --include-diff)."),
    FieldSpec("test_record", True, "The test command, exit code and duration, not cut."),
    FieldSpec("check_records", True, "One uncut check_result per enabled check."),
    FieldSpec("source_artifacts", False, "Report/manifest digests that match their files."),
)
_F = by_name(FIELDS)


class CommandRecords:
    """The agent_command events as the profile reads them, folded as the events pass (nearly all
    of a long trace's events are commands; none is held): each command's sequence, and the
    sequences of those lacking verbatim argv, uncut output, a duration or an exit code."""

    __slots__ = ("argv_bad", "cut", "no_exit", "sequences", "untimed")

    def __init__(self) -> None:
        self.sequences: list[int] = []
        self.argv_bad: list[int] = []
        self.cut: list[int] = []
        self.untimed: list[int] = []
        self.no_exit: list[int] = []

    def add(self, event: EventRecord) -> None:
        """Take the next event (any type; only agent_command events count)."""
        c = event.payload
        if not isinstance(c, ag.AgentCommand):
            return
        s = event.sequence
        self.sequences.append(s)
        if not c.argv or c.truncation.argv or c.truncation.command:
            self.argv_bad.append(s)
        if c.stdout.truncated or c.stderr.truncated:
            self.cut.append(s)
        if c.duration_seconds is None and not c.blocked:
            self.untimed.append(s)
        if c.executed and c.exit_code is None and not c.timed_out:
            self.no_exit.append(s)


class AgentGuardEvidence(msgspec.Struct, frozen=True):
    """What the profile reads: a verified trace's header, its events folded (the held event
    types by type, and the commands as :class:`CommandRecords`), and its source statuses."""

    header: ag.Header
    events: EventGroups
    commands: CommandRecords
    sources: Sequence[SourceStatus] = ()

    def of(self, event_type: str) -> list[tuple[int, Any]]:
        """``(sequence, payload)`` of every held event of ``event_type``, in trace order."""
        return [(e.sequence, e.payload) for e in self.events.of(event_type)]


def _known(value: str | None) -> bool:
    return value is not None and value.strip() != "" and value != UNAVAILABLE


def _header_rows(ev: AgentGuardEvidence) -> list[FieldStatus]:
    h = ev.header
    rows = [
        _F[name].row("present" if _known(getattr(h, name)) else "missing", f"header.{name}")
        for name in ("agent_model", "agent_version", "agent_name")
    ]
    commit = _known(h.agentguard_commit)
    rows.append(
        _F["tool_version"].row(
            "present"
            if commit and _known(h.agentguard_version)
            else "partial"
            if _known(h.agentguard_version) or commit
            else "missing",
            "header.agentguard_version" if commit else "header.agentguard_commit",
        )
    )
    bench = {
        "benchmark_id": _known(h.benchmark_id),
        "benchmark_version": h.benchmark_version is not None,
        "task_id": _known(h.task_id),
    }
    absent = [name for name, ok in bench.items() if not ok]
    rows.append(
        _F["benchmark_identity"].row(
            "present" if not absent else "missing" if len(absent) == 3 else "partial",
            f"header.{absent[0]}" if absent else "header.benchmark_id",
        )
    )
    return rows + _policy_rows(ev)


def _policy_rows(ev: AgentGuardEvidence) -> list[FieldStatus]:
    """Configuration, policy and sandbox, containment evidence and timing."""
    h = ev.header
    rows = []
    rows.append(_F["configuration_hash"].row("present", "header.configuration_hash"))
    snapshot = h.policy_snapshot
    if h.schema_version == 1 or snapshot is UNSET:
        rows.append(_F["policy_snapshot"].row("not_carried", "header.policy_snapshot (schema v1)"))
    else:
        redacted = bool(snapshot.redacted_inputs)
        rows.append(
            _F["policy_snapshot"].row(
                "partial" if redacted else "present",
                "header.policy_snapshot.redacted_inputs" if redacted else "header.policy_snapshot",
            )
        )
    for name in ("policy_summary", "sandbox_summary"):
        rows.append(
            _F[name].row("present" if _known(getattr(h, name)) else "missing", f"header.{name}")
        )
    contained = ev.events.of("containment_evidence")
    if h.schema_version < 3:
        rows.append(
            _F["containment_evidence"].row(
                "not_carried", f"containment_evidence event (schema v{h.schema_version})"
            )
        )
    else:
        rows.append(
            _F["containment_evidence"].row(
                "present" if contained else "missing", "events[2] containment_evidence"
            )
        )
    completed = ev.of("execution_completed")
    timing = [
        _known(h.created_at),
        bool(completed) and completed[0][1].duration_seconds is not None,
    ]
    rows.append(
        _F["run_timing"].count(
            sum(timing), 2, "header.created_at, execution_completed.duration_seconds"
        )
    )
    return rows


def _loc(lacking: list[int], every: list[int], suffix: str, none: str) -> str:
    """The lacking events' sequences, or every event's when none lacks it, or ``none``."""
    if not every:
        return none
    return indexed("events", lacking or every) + suffix


def _command_rows(ev: AgentGuardEvidence) -> list[FieldStatus]:
    commands = ev.commands
    tests: list[tuple[int, ag.TestResult]] = ev.of("test_result")
    seqs = commands.sequences
    outputs = seqs + [s for s, _ in tests]
    cut = commands.cut + [s for s, t in tests if t.stdout.truncated or t.stderr.truncated]
    n, none = len(seqs), "agent_command events (none recorded)"
    return [
        _F["command_argv"].count(
            n - len(commands.argv_bad), n, _loc(commands.argv_bad, seqs, ".argv", none)
        ),
        _F["command_output_digests"].count(
            len(outputs) - len(cut),
            len(outputs),
            _loc(cut, outputs, ".stdout/stderr", none),
        ),
        _F["command_timing"].count(
            n - len(commands.untimed), n, _loc(commands.untimed, seqs, ".duration_seconds", none)
        ),
        _F["command_exit_codes"].count(
            n - len(commands.no_exit), n, _loc(commands.no_exit, seqs, ".exit_code", none)
        ),
    ]


def _file_rows(ev: AgentGuardEvidence) -> list[FieldStatus]:
    changes: list[tuple[int, ag.FileChange]] = ev.of("file_change")
    completed = ev.of("execution_completed")
    truncated = bool(completed) and completed[0][1].modified_files.truncated
    rows = [
        _F["file_changes"].row(
            "partial" if truncated else "present", "execution_completed.modified_files"
        )
    ]
    undigested = [
        s
        for s, c in changes
        if (c.new_content_sha256 is None and c.change_type != "deleted")
        or (c.old_content_sha256 is None and c.change_type not in ("added", "symlink"))
    ]
    n, seqs, none = len(changes), [s for s, _ in changes], "file_change events (none recorded)"
    rows.append(
        _F["file_content_digests"].count(
            n - len(undigested), n, _loc(undigested, seqs, ".new_content_sha256", none)
        )
    )
    no_diff = [s for s, c in changes if not c.diff_included or c.diff_truncated is True]
    rows.append(
        _F["file_diffs"].count(n - len(no_diff), n, _loc(no_diff, seqs, ".unified_diff", none))
    )
    return rows


def _verdict_rows(ev: AgentGuardEvidence) -> list[FieldStatus]:
    rows = []
    tests: list[tuple[int, ag.TestResult]] = ev.of("test_result")
    if not tests:
        rows.append(_F["test_record"].row("missing", "test_result"))
    else:
        seq, t = tests[0]
        parts = [
            not t.truncation.command,
            t.exit_code is not None or t.timed_out,
            t.duration_seconds is not None,
        ]
        rows.append(_F["test_record"].count(sum(parts), 3, f"events[{seq}]"))
    checks: list[tuple[int, ag.CheckResult]] = ev.of("check_result")
    snapshot = ev.header.policy_snapshot
    enabled = set(snapshot.enabled_checks) if snapshot is not UNSET else set()
    recorded = {resolve_name(c.name) for _, c in checks}
    cut = [s for s, c in checks if c.truncation.message or c.truncation.evidence]
    unrecorded = enabled - recorded
    if not checks:
        rows.append(_F["check_records"].row("missing", "check_result events"))
    elif cut or unrecorded:
        where = (
            indexed("events", cut) + ".truncation"
            if cut
            else "check_result events (enabled checks unrecorded)"
        )
        rows.append(_F["check_records"].row("partial", where))
    else:
        rows.append(_F["check_records"].row("present", indexed("events", [s for s, _ in checks])))
    if not ev.header.source_artifacts:
        rows.append(_F["source_artifacts"].row("missing", "header.source_artifacts"))
    elif not ev.sources:
        rows.append(_F["source_artifacts"].row("partial", "header.source_artifacts (not checked)"))
    else:
        unmatched = [s.index for s in ev.sources if s.code is not Code.SOURCE_MATCH]
        rows.append(
            _F["source_artifacts"].count(
                len(ev.sources) - len(unmatched),
                len(ev.sources),
                indexed("header.source_artifacts", unmatched),
            )
        )
    return rows


class AgentGuardProfile:
    """The AgentGuard execution-trace profile (registered as ``agentguard``)."""

    format = "agentguard"
    fields = FIELDS

    def assess(self, subject: Any) -> tuple[FieldStatus, ...]:
        """Rows for an :class:`AgentGuardEvidence`, in :data:`FIELDS` order."""
        assert isinstance(subject, AgentGuardEvidence)
        # Each part makes its rows in FIELDS order, and the parts follow one another in it:
        # no sort (tests/unit/audit/test_completeness.py checks the order).
        return (
            *_header_rows(subject),
            *_command_rows(subject),
            *_file_rows(subject),
            *_verdict_rows(subject),
        )


PROFILE = AgentGuardProfile()
