"""AgentGuard event payloads, one strict Struct per event type (docs/trace-format.md step 4.4)."""


from typing import Annotated, Literal

from msgspec import UNSET, Meta, UnsetType

from tracekit.formats.agentguard.schema.common import (
    AnyInt,
    Closed,
    Hex64,
    NonNegInt,
    NonNegNumber,
    PosInt,
    Text,
    TextList,
)

MAX_SCORE_DEDUCTION = 2**31
Severity = Literal["info", "warning", "error", "critical"]


class OutputIdentity(Closed, frozen=True):
    """A digest standing for command output that is never stored."""

    bytes: NonNegInt
    """Length of the sanitised output in bytes."""
    sha256: Hex64
    """sha256 of the sanitised output."""
    truncated: bool
    """Whether the output was cut before hashing."""


class Preflight(Closed, frozen=True):
    """The command policy's decision before a command ran."""

    blocked: bool
    """Whether the policy blocked the command."""
    matched_patterns: Annotated[list[Text], Meta(max_length=64)]
    """Unsafe-command patterns the command matched."""
    mode: Text
    """The policy mode in force."""


class CommandTruncation(Closed, frozen=True):
    """Which parts of an agent command were cut to their bounds."""

    argv: bool
    command: bool
    patterns: bool


class ProcessCleanup(Closed, frozen=True):
    """Whether the process tree was cleaned up after the command."""

    attempted: bool
    complete: bool
    message: Text | None


class ExecutionStarted(Closed, frozen=True):
    """The first event."""

    execution_id: Text
    source_execution_type: Literal["run"]
    task_id: Text


class AgentCommand(Closed, frozen=True):
    """A command the agent ran (or tried to)."""

    agent: Text
    argv: Annotated[list[Text], Meta(max_length=128)]
    blocked: bool
    command: Text
    duration_seconds: NonNegNumber | None
    executed: bool
    exit_code: AnyInt | None
    preflight: Preflight
    stderr: OutputIdentity
    stdout: OutputIdentity
    timed_out: bool
    truncation: CommandTruncation
    working_directory_role: Text
    docker_image: Text | None | UnsetType = UNSET
    process_cleanup: ProcessCleanup | UnsetType = UNSET


class GuardViolation(Closed, frozen=True):
    """A filesystem guard violation."""

    action: Text
    message: Text
    path: Text
    violation_type: Text


class WatcherEvent(Closed, frozen=True):
    """A filesystem change the guard's watcher observed."""

    event_type: Literal[
        "created", "modified", "deleted", "symlink_created", "symlink_modified", "symlink_deleted"
    ]
    observed_at_sequence: PosInt
    path: Text
    source: Literal["polling"]


class GuardSummary(Closed, frozen=True):
    """The filesystem guard's summary; optional groups checked in docs/trace-format.md step 4.4."""

    files_observed: NonNegInt
    kill_required: bool
    mode: Text
    monitor_duration_seconds: NonNegNumber
    scan_count: NonNegInt
    terminated_agent: bool
    triggered: bool
    violations: Annotated[list[GuardViolation], Meta(max_length=4096)]
    configured_ignore_patterns: TextList | UnsetType = UNSET
    incomplete_scan_count: NonNegInt | UnsetType = UNSET
    line_measurement_complete: bool | UnsetType = UNSET
    line_measurement_error: Text | None | UnsetType = UNSET
    line_measurement_skipped_files: NonNegInt | UnsetType = UNSET
    live_lines_added: NonNegInt | UnsetType = UNSET
    live_lines_deleted: NonNegInt | UnsetType = UNSET
    scan_complete: bool | UnsetType = UNSET
    scan_error: Text | None | UnsetType = UNSET
    watcher_event_error: Text | None | UnsetType = UNSET
    watcher_event_limit_exceeded: bool | UnsetType = UNSET
    watcher_events: Annotated[list[WatcherEvent], Meta(max_length=4096)] | UnsetType = UNSET
    watcher_events_observed: NonNegInt | UnsetType = UNSET
    watcher_mode: Literal["auto", "polling", "disabled"] | UnsetType = UNSET


LINE_GROUP = (
    "live_lines_added",
    "live_lines_deleted",
    "line_measurement_complete",
    "line_measurement_skipped_files",
    "line_measurement_error",
)
SCAN_GROUP = ("scan_complete", "incomplete_scan_count", "scan_error")


class CommandViolation(Closed, frozen=True):
    """A command guard violation."""

    action: Text
    command_text: Text
    matched_patterns: Annotated[list[Text], Meta(max_length=64)]
    message: Text
    violation_type: Text


class CommandGuardSummary(Closed, frozen=True):
    """The command guard's summary."""

    event_file: Text | None
    events_observed: NonNegInt
    kill_required: bool
    mode: Text
    monitor_duration_seconds: NonNegNumber
    scan_count: NonNegInt
    terminated_agent: bool
    triggered: bool
    violations: Annotated[list[CommandViolation], Meta(max_length=4096)]


class GuardMetrics(Closed, frozen=True):
    """Counters across both guards (upstream does not validate them; we do)."""

    command_guard_violations: NonNegInt
    filesystem_guard_violations: NonNegInt
    guard_blocked: bool
    guard_violations_total: NonNegInt
    time_to_block_ms: NonNegNumber | None
    time_to_first_violation_ms: NonNegNumber | None


FileMode = Literal["100644", "100755", "120000"]


class FileChange(Closed, frozen=True):
    """One changed file; ``unified_diff`` and ``diff_truncated`` iff ``diff_included``."""

    change_type: Literal["added", "modified", "deleted", "symlink"]
    diff_included: bool
    lines_added: NonNegInt
    lines_deleted: NonNegInt
    new_content_sha256: Hex64 | None
    new_mode: FileMode | None
    old_content_sha256: Hex64 | None
    old_mode: FileMode | None
    path: Text
    symlink_target: Text | None
    diff_truncated: bool | UnsetType = UNSET
    unified_diff: Annotated[str, Meta(max_length=32768)] | None | UnsetType = UNSET


class TestTruncation(Closed, frozen=True):
    """Whether the test command text was cut."""

    command: bool


class TestResult(Closed, frozen=True):
    """The task's test run."""

    command: Text
    duration_seconds: NonNegNumber | None
    exit_code: AnyInt | None
    functional_pass: bool
    stderr: OutputIdentity
    stdout: OutputIdentity
    timed_out: bool
    truncation: TestTruncation
    docker_image: Text | None | UnsetType = UNSET
    process_cleanup: ProcessCleanup | UnsetType = UNSET


class CheckTruncation(Closed, frozen=True):
    """Whether a check's message or evidence was cut."""

    evidence: bool
    message: bool


class CheckResult(Closed, frozen=True):
    """One policy check's recorded outcome."""

    evidence: Annotated[list[Text], Meta(max_length=64)]
    message: Text
    name: Text
    passed: bool
    score_contribution: Annotated[int, Meta(ge=-MAX_SCORE_DEDUCTION, le=0)]
    severity: Severity
    truncation: CheckTruncation



class ModifiedFiles(Closed, frozen=True):
    """The completion's changed-file summary."""

    count: NonNegInt
    lines_added: NonNegInt
    lines_deleted: NonNegInt
    paths: Annotated[list[Text], Meta(max_length=4096)]
    truncated: bool


Score = Annotated[int, Meta(ge=0, le=100)] | Annotated[float, Meta(ge=0.0, le=100.0)]


class ExecutionCompleted(Closed, frozen=True):
    """The last event: the recorded verdict."""

    duration_seconds: NonNegNumber | None
    failed_checks: TextList
    modified_files: ModifiedFiles
    result: Literal["PASS", "FAIL"]
    score: Score
    source_manifest_sha256: Hex64 | None
    source_report_sha256: Hex64 | None
    warning_checks: TextList
