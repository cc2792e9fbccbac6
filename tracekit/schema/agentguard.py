"""The AgentGuard portable execution trace, schema v1-v3, as strict msgspec Structs.

Spec references are to the shared AgentGuard specification; docs/trace-format.md step 4 lists
where tracekit is stricter than upstream. Every Struct forbids unknown fields, and the Structs
are decoded with ``strict=True`` so a bool is never an int and a float never an int. Optional
payload keys use ``UNSET`` so that a decoded record re-encodes to exactly the keys it had.
"""

from __future__ import annotations

from typing import Annotated, Literal

from msgspec import UNSET, Meta, Raw, Struct, UnsetType

from tracekit.schema.common import (
    AnyInt,
    Hex64,
    NonNegInt,
    NonNegNumber,
    PosInt,
    Text,
    TextList,
)

FORMAT_ID = "agentguard.execution-trace"
SUPPORTED_VERSIONS = (1, 2, 3)
ZERO_HASH = "0" * 64
MAX_SCORE_DEDUCTION = 2**31


class _Closed(Struct, forbid_unknown_fields=True, frozen=True):
    """Base for every closed JSON object of the format."""


# --------------------------------------------------------------------------- header (spec §3, §5)


class Integrity(_Closed):
    """The header's integrity block; not itself committed to by the root hash."""

    final_event_hash: Hex64
    """The ``event_hash`` of the last event."""
    hash_algorithm: Text
    """Must be ``sha256``; checked in step 6 with its own code."""
    root_hash: Hex64
    """sha256 over the header identity and the final event hash (step 7)."""


class SourceArtifact(_Closed):
    """A file the trace was exported from, identified by its digest (spec §10)."""

    path: Text
    """Relative to the trace's folder or to a trusted root for ``role``; normalised."""
    required: bool
    """True when the source must be available for the trace to be fully verified."""
    role: Annotated[str, Meta(pattern="^[a-z][a-z0-9_]{0,63}$")]
    """What the file is: ``report``, ``manifest``, ``command_log``, ..."""
    sha256: Hex64
    """sha256 of the file's bytes."""


Severity = Literal["info", "warning", "error", "critical"]


class PolicySnapshot(_Closed):
    """The normalised replay policy committed to by v2/v3 headers (spec §5)."""

    allowed_paths: TextList
    """Patterns changed files must match (scope-adherence)."""
    command_policy_mode: Literal["audit", "enforce"]
    """Whether unsafe commands were blocked or only recorded."""
    command_policy_patterns: TextList
    """The sanitised copy of ``unsafe_commands`` used by the command guard."""
    enabled_checks: TextList
    """Check ids to run, in registry order."""
    expected_modified_files_max: NonNegInt
    """Upper bound on the number of changed files (scope-adherence)."""
    expected_modified_files_min: NonNegInt
    """Lower bound on the number of changed files (scope-adherence)."""
    forbidden_paths: TextList
    """Patterns no changed file may match."""
    max_files_changed: NonNegInt | None
    """Diff-size limit on changed files, or null for none."""
    max_lines_added: NonNegInt | None
    """Diff-size limit on added lines, or null for none."""
    max_lines_deleted: NonNegInt | None
    """Diff-size limit on deleted lines, or null for none."""
    redacted_inputs: TextList
    """Names of snapshot fields that sanitising changed."""
    score_weights: Annotated[dict[Text, NonNegInt], Meta(max_length=4096)]
    """Deduction per severity."""
    secret_patterns: TextList
    """Path patterns for the path-based secret scan."""
    severities: Annotated[dict[Text, Severity], Meta(max_length=4096)]
    """Severity per check id."""
    test_paths: TextList
    """Patterns of test files (test-tampering)."""
    unsafe_commands: TextList
    """Substrings that make a command unsafe."""


class Header(_Closed):
    """Line 1 of a trace. The key set is exact; v1 has no policy keys (spec §3)."""

    agent_adapter: Text
    """The adapter that drove the agent."""
    agent_model: Text | None
    """The model under test, when known."""
    agent_name: Text | None
    """The agent's name, when known."""
    agent_version: Text | None
    """The agent's version, when known."""
    agentguard_commit: Text | None
    """The commit of the AgentGuard that wrote the trace."""
    agentguard_version: Text
    """The version of the AgentGuard that wrote the trace."""
    benchmark_id: Text | None
    """The benchmark the task belongs to."""
    benchmark_version: NonNegInt | None
    """The benchmark's version."""
    configuration_hash: Hex64
    """sha256 of the resolved configuration."""
    created_at: Text
    """ISO timestamp, or ``unavailable`` on export."""
    event_count: NonNegInt
    """The number of event lines."""
    execution_id: Text
    """The run's id; must equal execution_started's."""
    integrity: Integrity
    """Root and final hashes."""
    policy_summary: Text
    """A canonical JSON string, or ``unavailable``; opaque here."""
    record_type: Text
    """Must be ``header``."""
    sandbox_summary: Text
    """A canonical JSON string, or ``unavailable``; opaque here."""
    schema: Text
    """Must be ``agentguard.execution-trace``."""
    schema_version: AnyInt
    """1, 2 or 3."""
    source_artifacts: Annotated[list[SourceArtifact], Meta(max_length=64)]
    """Files the trace was exported from."""
    source_execution_type: Text
    """Must be ``run``."""
    source_manifest_id: Text | None
    """The manifest's id, when exported from one."""
    source_report_id: Text | None
    """The report's id, when exported from one."""
    task_id: Text
    """The task's id; must equal execution_started's."""
    trace_id: Hex64
    """Equals the root hash."""
    policy_snapshot: PolicySnapshot | UnsetType = UNSET
    """v2/v3 only: the replay policy."""
    policy_snapshot_hash: Hex64 | UnsetType = UNSET
    """v2/v3 only: sha256 of the canonical snapshot."""


# ------------------------------------------------------------------------- events (spec §4, §6)


class EventEnvelope(_Closed):
    """Lines 2..n. The payload stays raw until its event type is known."""

    event_hash: Hex64
    """sha256 of the canonical schema context (step 7)."""
    event_type: Text
    """One of the keys of PAYLOAD_TYPES."""
    payload: Raw
    """The payload bytes as read; decoded by the payload Struct for ``event_type``."""
    previous_event_hash: Hex64
    """The previous event's hash, or 64 zeros for the first."""
    record_type: Text
    """Must be ``event``."""
    relative_offset_seconds: NonNegNumber | None
    """Seconds since the start, or null."""
    sequence: PosInt
    """1..n, contiguous."""


class OutputIdentity(_Closed):
    """A digest standing for command output that is never stored."""

    bytes: NonNegInt
    """Length of the sanitised output in bytes."""
    sha256: Hex64
    """sha256 of the sanitised output."""
    truncated: bool
    """Whether the output was cut before hashing."""


class Preflight(_Closed):
    """The command policy's decision before a command ran."""

    blocked: bool
    """Whether the policy blocked the command."""
    matched_patterns: Annotated[list[Text], Meta(max_length=64)]
    """Unsafe-command patterns the command matched."""
    mode: Text
    """The policy mode in force."""


class CommandTruncation(_Closed):
    """Which parts of an agent command were cut to their bounds."""

    argv: bool
    command: bool
    patterns: bool


class ProcessCleanup(_Closed):
    """Whether the process tree was cleaned up after the command."""

    attempted: bool
    complete: bool
    message: Text | None


class ExecutionStarted(_Closed):
    """The first event."""

    execution_id: Text
    source_execution_type: Literal["run"]
    task_id: Text


class AgentCommand(_Closed):
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


class GuardViolation(_Closed):
    """A filesystem guard violation."""

    action: Text
    message: Text
    path: Text
    violation_type: Text


class WatcherEvent(_Closed):
    """A filesystem change the guard's watcher observed."""

    event_type: Literal[
        "created", "modified", "deleted", "symlink_created", "symlink_modified", "symlink_deleted"
    ]
    observed_at_sequence: PosInt
    path: Text
    source: Literal["polling"]


class GuardSummary(_Closed):
    """The filesystem guard's summary (spec §6); optional groups checked in step 4."""

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


class CommandViolation(_Closed):
    """A command guard violation."""

    action: Text
    command_text: Text
    matched_patterns: Annotated[list[Text], Meta(max_length=64)]
    message: Text
    violation_type: Text


class CommandGuardSummary(_Closed):
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


class GuardMetrics(_Closed):
    """Counters across both guards (upstream does not validate them; we do)."""

    command_guard_violations: NonNegInt
    filesystem_guard_violations: NonNegInt
    guard_blocked: bool
    guard_violations_total: NonNegInt
    time_to_block_ms: NonNegNumber | None
    time_to_first_violation_ms: NonNegNumber | None


FileMode = Literal["100644", "100755", "120000"]


class FileChange(_Closed):
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


class TestTruncation(_Closed):
    """Whether the test command text was cut."""

    command: bool


class TestResult(_Closed):
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


class CheckTruncation(_Closed):
    """Whether a check's message or evidence was cut."""

    evidence: bool
    message: bool


class CheckResult(_Closed):
    """One policy check's recorded outcome."""

    evidence: Annotated[list[Text], Meta(max_length=64)]
    message: Text
    name: Text
    passed: bool
    score_contribution: Annotated[int, Meta(ge=-MAX_SCORE_DEDUCTION, le=0)]
    severity: Severity
    truncation: CheckTruncation



class ModifiedFiles(_Closed):
    """The completion's changed-file summary."""

    count: NonNegInt
    lines_added: NonNegInt
    lines_deleted: NonNegInt
    paths: Annotated[list[Text], Meta(max_length=4096)]
    truncated: bool


Score = Annotated[int, Meta(ge=0, le=100)] | Annotated[float, Meta(ge=0.0, le=100.0)]


class ExecutionCompleted(_Closed):
    """The last event: the recorded verdict."""

    duration_seconds: NonNegNumber | None
    failed_checks: TextList
    modified_files: ModifiedFiles
    result: Literal["PASS", "FAIL"]
    score: Score
    source_manifest_sha256: Hex64 | None
    source_report_sha256: Hex64 | None
    warning_checks: TextList


# ------------------------------------------------------------------- event registry (spec §6, §7)

from tracekit.schema.containment import ContainmentEvidence  # noqa: E402

PAYLOAD_TYPES: dict[str, type[Struct]] = {
    "execution_started": ExecutionStarted,
    "containment_evidence": ContainmentEvidence,
    "agent_command": AgentCommand,
    "guard_summary": GuardSummary,
    "command_guard_summary": CommandGuardSummary,
    "guard_metrics": GuardMetrics,
    "file_change": FileChange,
    "test_result": TestResult,
    "check_result": CheckResult,
    "execution_completed": ExecutionCompleted,
}
"""Payload Struct per event type; ``containment_evidence`` exists from v3 on."""

EVENT_RANK: dict[str, int] = {
    "execution_started": 0,
    "containment_evidence": 1,
    "agent_command": 2,
    "guard_summary": 3,
    "command_guard_summary": 3,
    "guard_metrics": 3,
    "file_change": 4,
    "test_result": 5,
    "check_result": 6,
    "execution_completed": 7,
}
"""Event ranks must not decrease along the trace (docs step 6)."""

Payload = (
    ExecutionStarted
    | ContainmentEvidence
    | AgentCommand
    | GuardSummary
    | CommandGuardSummary
    | GuardMetrics
    | FileChange
    | TestResult
    | CheckResult
    | ExecutionCompleted
)


def _field_names(kinds: list[type[Struct]]) -> frozenset[str]:
    names: set[str] = set()
    for kind in kinds:
        names.update(kind.__struct_fields__)
    return frozenset(names)


from tracekit.schema import containment as _containment  # noqa: E402

KNOWN_FIELD_NAMES = _field_names(
    [Header, Integrity, SourceArtifact, PolicySnapshot, EventEnvelope, OutputIdentity, Preflight,
     CommandTruncation, ProcessCleanup, GuardViolation, WatcherEvent, CommandViolation,
     TestTruncation, CheckTruncation, ModifiedFiles, *PAYLOAD_TYPES.values(),
     *(getattr(_containment, name) for name in dir(_containment) if name.endswith("Evidence"))]
)
"""Every field name our schema defines: the only names a diagnostic may print."""
