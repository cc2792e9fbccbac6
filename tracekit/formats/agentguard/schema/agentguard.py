"""The AgentGuard portable execution trace, schema v1-v3, as strict msgspec Structs.

Comments cite the steps of docs/trace-format.md; step 4 lists
where tracekit is stricter than upstream. Every Struct forbids unknown fields, and the Structs
are decoded with ``strict=True`` so a bool is never an int and a float never an int. Optional
payload keys use ``UNSET`` so that a decoded record re-encodes to exactly the keys it had.
"""


from typing import Annotated, Literal

from msgspec import UNSET as UNSET
from msgspec import Meta, Raw, Struct, UnsetType

from tracekit.formats.agentguard.schema import containment as _containment
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
from tracekit.formats.agentguard.schema.payloads import (  # re-exported: one namespace for the whole format
    LINE_GROUP as LINE_GROUP,
)
from tracekit.formats.agentguard.schema.payloads import (
    MAX_SCORE_DEDUCTION as MAX_SCORE_DEDUCTION,
)
from tracekit.formats.agentguard.schema.payloads import (
    SCAN_GROUP as SCAN_GROUP,
)
from tracekit.formats.agentguard.schema.payloads import (
    AgentCommand as AgentCommand,
)
from tracekit.formats.agentguard.schema.payloads import (
    CheckResult as CheckResult,
)
from tracekit.formats.agentguard.schema.payloads import (
    CheckTruncation as CheckTruncation,
)
from tracekit.formats.agentguard.schema.payloads import (
    CommandGuardSummary as CommandGuardSummary,
)
from tracekit.formats.agentguard.schema.payloads import (
    CommandTruncation as CommandTruncation,
)
from tracekit.formats.agentguard.schema.payloads import (
    CommandViolation as CommandViolation,
)
from tracekit.formats.agentguard.schema.payloads import (
    ExecutionCompleted as ExecutionCompleted,
)
from tracekit.formats.agentguard.schema.payloads import (
    ExecutionStarted as ExecutionStarted,
)
from tracekit.formats.agentguard.schema.payloads import (
    FileChange as FileChange,
)
from tracekit.formats.agentguard.schema.payloads import (
    FileMode as FileMode,
)
from tracekit.formats.agentguard.schema.payloads import (
    GuardMetrics as GuardMetrics,
)
from tracekit.formats.agentguard.schema.payloads import (
    GuardSummary as GuardSummary,
)
from tracekit.formats.agentguard.schema.payloads import (
    GuardViolation as GuardViolation,
)
from tracekit.formats.agentguard.schema.payloads import (
    ModifiedFiles as ModifiedFiles,
)
from tracekit.formats.agentguard.schema.payloads import (
    OutputIdentity as OutputIdentity,
)
from tracekit.formats.agentguard.schema.payloads import (
    Preflight as Preflight,
)
from tracekit.formats.agentguard.schema.payloads import (
    ProcessCleanup as ProcessCleanup,
)
from tracekit.formats.agentguard.schema.payloads import (
    Score as Score,
)
from tracekit.formats.agentguard.schema.payloads import (
    Severity as Severity,
)
from tracekit.formats.agentguard.schema.payloads import (
    TestResult as TestResult,
)
from tracekit.formats.agentguard.schema.payloads import (
    TestTruncation as TestTruncation,
)
from tracekit.formats.agentguard.schema.payloads import (
    WatcherEvent as WatcherEvent,
)

FORMAT_ID = "agentguard.execution-trace"
SUPPORTED_VERSIONS = (1, 2, 3)
ZERO_HASH = "0" * 64


# ---------------------------------------------------- header (docs/trace-format.md steps 4.1-4.3)


class Integrity(Closed, frozen=True):
    """The header's integrity block; not itself committed to by the root hash."""

    final_event_hash: Hex64
    """The ``event_hash`` of the last event."""
    hash_algorithm: Text
    """Must be ``sha256``; checked in step 6 with its own code."""
    root_hash: Hex64
    """sha256 over the header identity and the final event hash (step 7)."""


class SourceArtifact(Closed, frozen=True):
    """A file the trace was exported from, identified by its digest (docs/trace-format.md
    step 8)."""

    path: Text
    """Relative to the trace's folder or to a trusted root for ``role``; normalised."""
    required: bool
    """True when the source must be available for the trace to be fully verified."""
    role: Annotated[str, Meta(pattern="^[a-z][a-z0-9_]{0,63}\\Z")]
    """What the file is: ``report``, ``manifest``, ``command_log``, ..."""
    sha256: Hex64
    """sha256 of the file's bytes."""


class PolicySnapshot(Closed, frozen=True):
    """The normalised replay policy committed to by v2/v3 headers
    (docs/trace-format.md step 4.3)."""

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


class Header(Closed, frozen=True):
    """Line 1 of a trace. The key set is exact; v1 has no policy keys
    (docs/trace-format.md step 4.1)."""

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


# -------------------------------------------------------- events (docs/trace-format.md step 4.4)


class EventEnvelope(Closed, frozen=True):
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


# ------------------------------------- event registry (docs/trace-format.md steps 4.4 and 6.6)


PAYLOAD_TYPES: dict[str, type[Struct]] = {
    "execution_started": ExecutionStarted,
    "containment_evidence": _containment.ContainmentEvidence,
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
    | _containment.ContainmentEvidence
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



KNOWN_FIELD_NAMES = _field_names(
    [Header, Integrity, SourceArtifact, PolicySnapshot, EventEnvelope, OutputIdentity, Preflight,
     CommandTruncation, ProcessCleanup, GuardViolation, WatcherEvent, CommandViolation,
     TestTruncation, CheckTruncation, ModifiedFiles, *PAYLOAD_TYPES.values(),
     *(getattr(_containment, name) for name in dir(_containment) if name.endswith("Evidence"))]
)
"""Every field name our schema defines: the only names a diagnostic may print."""
