"""v3 ``containment_evidence``: the canonical ``agentguard.containment-evidence`` v1 object.

Upstream's own validator bounds every string to 512 characters, lists and objects to 64 items,
nesting to 8, numbers to +/-1e12 and the serialised object to 32 KiB; tracekit enforces the same
bounds plus an exact key set per section (docs/trace-format.md step 4).
"""


from typing import Annotated, Any, Literal

from msgspec import UNSET, Meta, Struct, UnsetType

Short = Annotated[str, Meta(max_length=512)]
ShortList = Annotated[list[Short], Meta(max_length=64)]
Bounded = Annotated[int, Meta(ge=-(10**12), le=10**12)]
BoundedFloat = Annotated[float, Meta(ge=-1e12, le=1e12)]
Count = Annotated[int, Meta(ge=0, le=10**12)]
State = Literal["unknown", "unavailable", "not_applicable", "recorded"]
ClaimLevel = Literal[
    "linux-docker-engine", "docker-desktop-reduced", "none", "unknown", "not_applicable"
]
FreeObject = Annotated[dict[Short, Any], Meta(max_length=64)]

MAX_SERIALISED_BYTES = 32 * 1024
MAX_NESTING = 8


class _Section(Struct, forbid_unknown_fields=True, frozen=True):
    """Base for the evidence sections; every key but ``state`` may be absent."""


class PreflightEvidence(_Section, frozen=True):
    state: State
    status: Literal["supported", "experimental", "unavailable", "unsafe", "unknown", "not_applicable"]
    claim_level: ClaimLevel
    approved_boundary_constructible: bool | None | UnsetType = UNSET
    checks_passed: Count | None | UnsetType = UNSET
    checks_total: Count | None | UnsetType = UNSET
    reduced_claim: bool | None | UnsetType = UNSET


class ImageEvidence(_Section, frozen=True):
    state: State
    cache_status: Short | None | UnsetType = UNSET
    configured_reference: Annotated[str, Meta(max_length=256)] | None | UnsetType = UNSET
    container_bound_image_id: Short | None | UnsetType = UNSET
    local_image_id: Short | None | UnsetType = UNSET
    platform: Short | None | UnsetType = UNSET
    pull_policy: Short | None | UnsetType = UNSET
    registry_digest: Short | None | UnsetType = UNSET


class ControlsEvidence(_Section, frozen=True):
    state: State
    cap_drop_all: bool | None | UnsetType = UNSET
    cpu_limit: Bounded | BoundedFloat | None | UnsetType = UNSET
    device_exposure: bool | None | UnsetType = UNSET
    docker_socket_mount: bool | None | UnsetType = UNSET
    gid: Count | None | UnsetType = UNSET
    host_namespace_sharing: bool | None | UnsetType = UNSET
    host_network: bool | None | UnsetType = UNSET
    memory_limit: Short | None | UnsetType = UNSET
    network: Short | None | UnsetType = UNSET
    no_new_privileges: bool | None | UnsetType = UNSET
    pids_limit: Count | None | UnsetType = UNSET
    privileged: bool | None | UnsetType = UNSET
    read_only_root: bool | None | UnsetType = UNSET
    requested_resource_controls: FreeObject | None | UnsetType = UNSET
    resource_verification_state: State | None | UnsetType = UNSET
    tmpfs_paths: ShortList | UnsetType = UNSET
    uid: Count | None | UnsetType = UNSET
    verified_resource_controls: FreeObject | None | UnsetType = UNSET


class EnvironmentEvidence(_Section, frozen=True):
    state: State
    default_names: ShortList | UnsetType = UNSET
    missing_names: ShortList | UnsetType = UNSET
    sensitive_names: ShortList | UnsetType = UNSET
    supplied_names: ShortList | UnsetType = UNSET
    values_recorded: bool | UnsetType = UNSET


class WorkspaceEvidence(_Section, frozen=True):
    state: State
    agent_mount: Short | None | UnsetType = UNSET
    baseline_digest: Short | None | UnsetType = UNSET
    changed_files_count: Count | None | UnsetType = UNSET
    cleanup_complete: bool | None | UnsetType = UNSET
    cleanup_status: Short | None | UnsetType = UNSET
    current_digest: Short | None | UnsetType = UNSET
    evidence_mount: Short | None | UnsetType = UNSET
    lifecycle_schema_version: Count | None | UnsetType = UNSET
    source_kind: Short | None | UnsetType = UNSET
    writable_paths: ShortList | UnsetType = UNSET


class ExecutionEvidence(_Section, frozen=True):
    state: State
    status: Literal["executed", "policy_blocked", "preflight_blocked", "skipped", "unknown"]
    command: ShortList | UnsetType = UNSET
    duration_seconds: Annotated[float, Meta(ge=0.0, le=1e12)] | Count | None | UnsetType = UNSET
    exit_code: Bounded | None | UnsetType = UNSET
    stderr_truncated: bool | None | UnsetType = UNSET
    stdout_truncated: bool | None | UnsetType = UNSET
    timed_out: bool | None | UnsetType = UNSET


CleanupStatus = Literal[
    "not_created", "removed", "already_absent", "verification_unavailable", "cleanup_incomplete",
    "force_killed", "cleanly_terminated", "retained", "incomplete", "unknown", "not_applicable",
]


class CleanupEvidence(_Section, frozen=True):
    state: State
    container_attempted: bool | None | UnsetType = UNSET
    container_complete: bool | None | UnsetType = UNSET
    container_identity: Annotated[dict[Short, Short], Meta(max_length=64)] | None | UnsetType = UNSET
    container_status: CleanupStatus | None | UnsetType = UNSET
    liveness_verified: bool | None | UnsetType = UNSET
    overall_complete: bool | None | UnsetType = UNSET
    workspace_complete: bool | None | UnsetType = UNSET
    workspace_status: Short | None | UnsetType = UNSET


class ContainmentEvidence(Struct, forbid_unknown_fields=True, frozen=True):
    """The payload of a v3 ``containment_evidence`` event (exact root keys)."""

    cleanup: CleanupEvidence
    controls: ControlsEvidence
    environment: EnvironmentEvidence
    execution: ExecutionEvidence
    execution_mode: Literal["contained-run", "docker-sandbox", "local", "unknown"]
    image: ImageEvidence
    notes: ShortList
    preflight: PreflightEvidence
    requested: FreeObject
    schema: Literal["agentguard.containment-evidence"]
    schema_version: Literal[1]
    security_claim_level: ClaimLevel
    state: State
    workspace: WorkspaceEvidence
