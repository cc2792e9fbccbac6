"""Findings, severities and the stable diagnostic codes.

Every diagnostic tracekit prints is a :class:`Finding`: a stable :class:`Code`, a severity, an
optional line number and a message built only from fixed text, counts, limits and names from our
own schema (docs/trace-format.md, "Diagnostics"). Nothing taken from the input ever reaches a
message: that is a security property, tested with canaries (tests/property/test_no_echo.py).

Codes never change meaning. ``docs/error-codes.md`` is generated from this module
(``python -m tracekit.kernel.docgen``) and a test checks that the file is current.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, NamedTuple, TypeVar

import msgspec

if TYPE_CHECKING:
    _T = TypeVar("_T")
    _CodeClass = enum.StrEnum

    def _code_enum(cls: _T) -> _T:
        return cls

else:
    # The same StrEnum, built by the stdlib's own fast builder for its large enums
    # (``http.HTTPStatus``): the metaclass's way compares each new member with every one before
    # it, ~25M instructions for these ~330 codes against ~13M (docs/performance.md, "Start-up").
    # tests/unit/test_error_codes.py checks it against the class built the usual way.
    _CodeClass = object
    _code_enum = enum._simple_enum(enum.StrEnum)


class Severity(enum.StrEnum):
    """How much a finding weighs; the CLI maps severities to exit codes."""

    ERROR = "error"  # the trace is malformed, corrupt, tampered or unsupported: exit 2
    WARNING = "warning"  # intact, but something the user must act on (a changed source): exit 1
    NOTICE = "notice"  # accepted as upstream accepts it, but not as tracekit would write it
    INFO = "info"  # a fact worth reporting (a source that matched)


@_code_enum
class Code(_CodeClass):
    """Stable diagnostic codes. The value is the code; the member name is for Python only."""

    # -- loading (docs/trace-format.md step 1) -------------------------------------------------
    LOAD_UNREADABLE = "load.unreadable"
    LOAD_TOTAL_TOO_LARGE = "load.total_too_large"
    LOAD_TOO_MANY_EVENTS = "load.too_many_events"
    LOAD_LINE_TOO_LONG = "load.line_too_long"
    LOAD_MISSING_FINAL_NEWLINE = "load.missing_final_newline"
    LOAD_BOM = "load.bom"
    LOAD_INVALID_UTF8 = "load.invalid_utf8"
    LOAD_EMPTY_LINE = "load.empty_line"
    LOAD_NO_EVENTS = "load.no_events"
    # -- JSON syntax and generic bounds (step 2) ------------------------------------------------
    JSON_INVALID = "json.invalid"
    JSON_NOT_AN_OBJECT = "json.not_an_object"
    JSON_TOO_DEEP = "json.too_deep"
    JSON_TOO_MANY_VALUES = "json.too_many_values"
    JSON_DUPLICATE_KEY = "json.duplicate_key"
    JSON_NON_FINITE_NUMBER = "json.non_finite_number"
    JSON_LONE_SURROGATE = "json.lone_surrogate"
    JSON_STRING_TOO_LONG = "json.string_too_long"
    JSON_LIST_TOO_LONG = "json.list_too_long"
    JSON_KEY_TOO_LONG = "json.key_too_long"
    # -- canonical form (step 3) ----------------------------------------------------------------
    CANONICAL_NON_CANONICAL_LINE = "canonical.non_canonical_line"
    CANONICAL_CRLF = "canonical.crlf_line_ending"
    # -- schema (step 4) -------------------------------------------------------------------------
    SCHEMA_UNKNOWN_FIELD = "schema.unknown_field"
    SCHEMA_MISSING_FIELD = "schema.missing_field"
    SCHEMA_WRONG_TYPE = "schema.wrong_type"
    SCHEMA_INVALID_VALUE = "schema.invalid_value"
    SCHEMA_WRONG_RECORD_TYPE = "schema.wrong_record_type"
    SCHEMA_UNSUPPORTED_FORMAT = "schema.unsupported_format"
    SCHEMA_UNSUPPORTED_VERSION = "schema.unsupported_version"
    SCHEMA_UNSUPPORTED_EXECUTION_TYPE = "schema.unsupported_execution_type"
    SCHEMA_UNSUPPORTED_HASH_ALGORITHM = "schema.unsupported_hash_algorithm"
    SCHEMA_POLICY_SNAPSHOT_FORBIDDEN = "schema.policy_snapshot_forbidden"
    SCHEMA_POLICY_SNAPSHOT_REQUIRED = "schema.policy_snapshot_required"
    SCHEMA_UNKNOWN_EVENT_TYPE = "schema.unknown_event_type"
    SCHEMA_EVENT_NOT_IN_VERSION = "schema.event_not_in_version"
    SCHEMA_INCOMPLETE_GROUP = "schema.incomplete_group"
    # -- paths (step 5) --------------------------------------------------------------------------
    PATH_EMPTY = "path.empty"
    PATH_ABSOLUTE = "path.absolute"
    PATH_DRIVE_LETTER = "path.drive_letter"
    PATH_UNC = "path.unc"
    PATH_PARENT_REFERENCE = "path.parent_reference"
    PATH_BACKSLASH = "path.backslash"
    PATH_NOT_NORMALISED = "path.not_normalised"
    PATH_CONTROL_CHARACTER = "path.control_character"
    # -- structure: counts, sequences, ordering (step 6) -----------------------------------------
    STRUCTURE_EVENT_COUNT_MISMATCH = "structure.event_count_mismatch"
    STRUCTURE_SEQUENCE_GAP = "structure.sequence_gap"
    STRUCTURE_SEQUENCE_DUPLICATE = "structure.sequence_duplicate"
    STRUCTURE_START_COMPLETION_ORDER = "structure.start_completion_order"
    STRUCTURE_MULTIPLICITY = "structure.event_multiplicity"
    STRUCTURE_EVENT_ORDER = "structure.event_order"
    STRUCTURE_CONTAINMENT_POSITION = "structure.containment_position"
    STRUCTURE_DUPLICATE_FILE_CHANGE = "structure.duplicate_file_change_path"
    # -- integrity (step 7) ----------------------------------------------------------------------
    CHAIN_BROKEN = "chain.broken"
    CHAIN_EVENT_HASH_MISMATCH = "chain.event_hash_mismatch"
    CHAIN_FINAL_HASH_MISMATCH = "chain.final_event_hash_mismatch"
    CHAIN_ROOT_HASH_MISMATCH = "chain.root_hash_mismatch"
    CHAIN_TRACE_ID_MISMATCH = "chain.trace_id_mismatch"
    CHAIN_POLICY_SNAPSHOT_HASH_MISMATCH = "chain.policy_snapshot_hash_mismatch"
    # -- source artifacts (step 8) ---------------------------------------------------------------
    SOURCE_NONE_RECORDED = "source.none_recorded"
    SOURCE_MATCH = "source.match"
    SOURCE_CHANGED = "source.changed"
    SOURCE_UNAVAILABLE = "source.unavailable"
    SOURCE_REQUIRED_UNAVAILABLE = "source.required_unavailable"
    SOURCE_ESCAPES_ROOT = "source.escapes_root"
    SOURCE_DUPLICATE = "source.duplicate"
    # -- harness (check) -------------------------------------------------------------------------
    HARNESS_SCENARIO_UNREADABLE = "harness.scenario_unreadable"
    HARNESS_SCENARIO_TOO_LARGE = "harness.scenario_too_large"
    HARNESS_SCENARIO_SUFFIX = "harness.scenario_suffix"
    HARNESS_YAML_INVALID = "harness.yaml_invalid"
    HARNESS_YAML_ALIAS = "harness.yaml_alias"
    HARNESS_YAML_TAG = "harness.yaml_tag"
    HARNESS_YAML_DUPLICATE_KEY = "harness.yaml_duplicate_key"
    HARNESS_YAML_TOO_DEEP = "harness.yaml_too_deep"
    HARNESS_YAML_TOO_MANY_NODES = "harness.yaml_too_many_nodes"
    HARNESS_YAML_SCALAR_TOO_LONG = "harness.yaml_scalar_too_long"
    HARNESS_SCENARIO_INVALID = "harness.scenario_invalid"
    HARNESS_TRACE_UNREADABLE = "harness.trace_unreadable"
    HARNESS_TRACE_TOO_LARGE = "harness.trace_too_large"
    HARNESS_TRACE_NOT_UTF8 = "harness.trace_not_utf8"
    HARNESS_TRACE_INVALID = "harness.trace_invalid"
    HARNESS_TRACE_MISSING = "harness.trace_missing"
    HARNESS_TRACE_DIR_MISSING = "harness.trace_dir_missing"
    HARNESS_DUPLICATE_SCENARIO_ID = "harness.duplicate_scenario_id"
    HARNESS_OUTPUT_NAME_COLLISION = "harness.output_name_collision"
    # -- replay ----------------------------------------------------------------------------------
    REPLAY_TRACE_INVALID = "replay.trace_invalid"
    REPLAY_NOT_REPLAYABLE_V1 = "replay.not_replayable_v1"
    REPLAY_MISSING_POLICY_SNAPSHOT = "replay.missing_policy_snapshot"
    REPLAY_REDACTED_INPUTS = "replay.redacted_inputs"
    REPLAY_COMMAND_PATTERNS_DIFFER = "replay.command_patterns_differ"
    REPLAY_UNKNOWN_CHECK = "replay.unknown_check"
    REPLAY_MISSING_SEVERITY = "replay.missing_severity"
    REPLAY_SCORE_WEIGHTS = "replay.score_weights"
    REPLAY_TRUNCATED_EVIDENCE = "replay.truncated_evidence"
    REPLAY_TRUNCATED_MODIFIED_FILES = "replay.truncated_modified_files"
    REPLAY_STRICT_SOURCES = "replay.strict_sources"
    REPLAY_MISSING_EVIDENCE = "replay.missing_evidence"
    REPLAY_INCONSISTENT_FILE_CHANGES = "replay.inconsistent_file_changes"
    REPLAY_DUPLICATE_FILE_CHANGE = "replay.duplicate_file_change"
    REPLAY_SECRET_SCAN_NOT_RECOMPUTABLE = "replay.secret_scan_not_recomputable"
    REPLAY_INCONSISTENT_LINE_TOTALS = "replay.inconsistent_line_totals"
    REPLAY_UNKNOWN_WORKING_DIRECTORY_ROLE = "replay.unknown_working_directory_role"
    REPLAY_NON_MONOTONIC_OFFSETS = "replay.non_monotonic_offsets"
    REPLAY_REPLAYABLE = "replay.replayable"
    REPLAY_EXACT = "replay.exact"
    REPLAY_SEMANTIC = "replay.semantic"
    REPLAY_DIVERGENT = "replay.divergent"
    # -- audit -----------------------------------------------------------------------------------
    AUDIT_UNKNOWN_FORMAT = "audit.unknown_format"
    AUDIT_INTEGRITY_NOT_AUTHENTICITY = "audit.integrity_not_authenticity"
    AUDIT_NO_INTEGRITY = "audit.no_integrity"
    AUDIT_SCENARIO_NOT_APPLICABLE = "audit.scenario_not_applicable"
    AUDIT_HEADER_IDS_MISMATCH = "audit.header_ids_mismatch"
    AUDIT_FUNCTIONAL_PASS_MISMATCH = "audit.functional_pass_mismatch"
    AUDIT_SCORE_CONTRIBUTION_MISMATCH = "audit.score_contribution_mismatch"
    AUDIT_FAILED_CHECKS_MISMATCH = "audit.failed_checks_mismatch"
    AUDIT_WARNING_CHECKS_MISMATCH = "audit.warning_checks_mismatch"
    AUDIT_MODIFIED_COUNT_MISMATCH = "audit.modified_count_mismatch"
    AUDIT_MODIFIED_PATHS_MISMATCH = "audit.modified_paths_mismatch"
    AUDIT_LINE_TOTALS_MISMATCH = "audit.line_totals_mismatch"
    AUDIT_SCORE_MISMATCH = "audit.score_mismatch"
    AUDIT_RESULT_MISMATCH = "audit.result_mismatch"
    AUDIT_DUPLICATE_CHECK_NAME = "audit.duplicate_check_name"
    AUDIT_SEVERITY_MISMATCH = "audit.severity_mismatch"
    AUDIT_NON_MONOTONIC_OFFSETS = "audit.non_monotonic_offsets"
    AUDIT_UNKNOWN_WORKING_DIRECTORY_ROLE = "audit.unknown_working_directory_role"
    AUDIT_FIELD_MISSING = "audit.field_missing"
    AUDIT_FIELD_PARTIAL = "audit.field_partial"
    AUDIT_FIELD_NOT_CARRIED = "audit.field_not_carried"
    AUDIT_ARGUMENTS_STRINGIFIED = "audit.arguments_stringified"
    AUDIT_RESULT_TRUNCATED = "audit.result_truncated"
    AUDIT_PARALLEL_CALLS_FLATTENED = "audit.parallel_calls_flattened"
    AUDIT_VERDICT_WITHOUT_PAYLOADS = "audit.verdict_without_payloads"
    AUDIT_REPEATED_FINDING = "audit.repeated_finding"
    AUDIT_OUTCOME_MISMATCH = "audit.outcome_mismatch"
    AUDIT_OUTCOME_REPRODUCED = "audit.outcome_reproduced"
    # -- metamorphic -----------------------------------------------------------------------------
    METAMORPHIC_UNKNOWN_TRANSFORM = "metamorphic.unknown_transform"
    METAMORPHIC_DUPLICATE_TRANSFORM = "metamorphic.duplicate_transform"
    METAMORPHIC_SOURCE_INVALID = "metamorphic.source_invalid"
    METAMORPHIC_SOURCE_NOT_REPLAYABLE = "metamorphic.source_not_replayable"
    METAMORPHIC_RELATIONS_FAILED = "metamorphic.relations_failed"
    METAMORPHIC_STDIN_UNSUPPORTED = "metamorphic.stdin_unsupported"
    METAMORPHIC_SCHEDULER_NEEDS_DASK = "metamorphic.scheduler_needs_dask"
    METAMORPHIC_DASK_UNAVAILABLE = "metamorphic.dask_unavailable"
    METAMORPHIC_DASK_CONNECTION_FAILED = "metamorphic.dask_connection_failed"
    METAMORPHIC_NOTHING_SWEPT = "metamorphic.nothing_swept"
    # -- sealed bundles (docs/bundle-format.md) ---------------------------------------------------
    BUNDLE_BAD_MAGIC = "bundle.bad_magic"
    BUNDLE_TRUNCATED = "bundle.truncated"
    BUNDLE_FRAME_TOO_LARGE = "bundle.frame_too_large"
    BUNDLE_TOO_LARGE = "bundle.too_large"
    BUNDLE_TOO_MANY_FRAMES = "bundle.too_many_frames"
    BUNDLE_UNKNOWN_FRAME = "bundle.unknown_frame"
    BUNDLE_FRAME_ORDER = "bundle.frame_order"
    BUNDLE_TRAILING_DATA = "bundle.trailing_data"
    BUNDLE_FRAME_COUNT_MISMATCH = "bundle.frame_count_mismatch"
    BUNDLE_TOO_DEEP = "bundle.too_deep"
    BUNDLE_JSON_INVALID = "bundle.json_invalid"
    BUNDLE_NOT_CANONICAL = "bundle.not_canonical"
    BUNDLE_UNSUPPORTED_VERSION = "bundle.unsupported_version"
    BUNDLE_UNKNOWN_ALGORITHM = "bundle.unknown_algorithm"
    BUNDLE_BLOB_DIGEST_MISMATCH = "bundle.blob_digest_mismatch"
    BUNDLE_BLOB_ORDER = "bundle.blob_order"
    BUNDLE_BLOB_MISSING = "bundle.blob_missing"
    BUNDLE_BLOB_LENGTH_MISMATCH = "bundle.blob_length_mismatch"
    BUNDLE_BLOB_UNREFERENCED = "bundle.blob_unreferenced"
    BUNDLE_RECORD_INVALID = "bundle.record_invalid"
    BUNDLE_RECORD_ORDER = "bundle.record_order"
    BUNDLE_RECORD_DUPLICATE = "bundle.record_duplicate"
    BUNDLE_ORIGINAL_MISMATCH = "bundle.original_mismatch"
    BUNDLE_PROOF_INVALID = "bundle.proof_invalid"
    BUNDLE_TOO_MANY_FINDINGS = "bundle.too_many_findings"
    BUNDLE_PAYLOAD_TYPE = "bundle.payload_type"
    BUNDLE_STATEMENT_INVALID = "bundle.statement_invalid"
    BUNDLE_ROOT_MISMATCH = "bundle.root_mismatch"
    BUNDLE_SIGNATURE_INVALID = "bundle.signature_invalid"
    BUNDLE_KEY_MISMATCH = "bundle.key_mismatch"
    BUNDLE_BAD_SIGNATURE = "bundle.bad_signature"
    BUNDLE_UNSIGNED = "bundle.unsigned"
    BUNDLE_UNTRUSTED_KEY = "bundle.untrusted_key"
    BUNDLE_BLOBS_WITHHELD = "bundle.blobs_withheld"
    BUNDLE_TRUSTED_KEY_INVALID = "bundle.trusted_key_invalid"
    BUNDLE_KEY_INVALID = "bundle.key_invalid"
    BUNDLE_INPUT_UNREADABLE = "bundle.input_unreadable"
    BUNDLE_NO_SUCH_FINDING = "bundle.no_such_finding"
    BUNDLE_NO_SUCH_BLOB = "bundle.no_such_blob"
    BUNDLE_NOTHING_TO_REDACT = "bundle.nothing_to_redact"
    REDACT_WORK_BUDGET_EXCEEDED = "redact.work_budget_exceeded"
    # -- campaign store --------------------------------------------------------------------------
    STORE_UNAVAILABLE = "store.unavailable"
    STORE_LOCKED = "store.locked"
    STORE_NEWER_SCHEMA = "store.newer_schema"
    STORE_NOT_A_STORE = "store.not_a_store"
    STORE_NOT_FOUND = "store.not_found"
    STORE_NO_RUNS = "store.no_runs"
    STORE_UNKNOWN_RUN = "store.unknown_run"
    STORE_CAMPAIGN_ROOT = "store.campaign_root"
    # -- command line and internal ---------------------------------------------------------------
    CLI_USAGE = "cli.usage"
    CLI_NO_INPUT = "cli.no_input"
    CLI_OUTPUT_EXISTS = "cli.output_exists"
    CLI_OUTPUT_UNSAFE = "cli.output_unsafe"
    CLI_INTERRUPTED = "cli.interrupted"
    INTERNAL_ERROR = "internal.error"
    # -- format layer: detection, reading, AgentGuard/harness/Inspect importers (docs/formats.md)
    FORMAT_UNKNOWN = "format.unknown"
    FORMAT_UNKNOWN_NAME = "format.unknown_name"
    FORMAT_UNREADABLE = "format.unreadable"
    FORMAT_TOO_LARGE = "format.too_large"
    INSPECT_NOT_UTF8 = "inspect.not_utf8"
    INSPECT_JSON_INVALID = "inspect.json_invalid"
    INSPECT_TOO_DEEP = "inspect.too_deep"
    INSPECT_DUPLICATE_KEY = "inspect.duplicate_key"
    INSPECT_SCHEMA = "inspect.schema"
    INSPECT_UNSUPPORTED_VERSION = "inspect.unsupported_version"
    INSPECT_BAD_ARCHIVE = "inspect.bad_archive"
    INSPECT_UNSUPPORTED_COMPRESSION = "inspect.unsupported_compression"
    INSPECT_ZSTD_UNAVAILABLE = "inspect.zstd_unavailable"
    INSPECT_UNSAFE_MEMBER_NAME = "inspect.unsafe_member_name"
    INSPECT_TOO_MANY_MEMBERS = "inspect.too_many_members"
    INSPECT_MEMBER_TOO_LARGE = "inspect.member_too_large"
    INSPECT_TOTAL_TOO_LARGE = "inspect.total_too_large"
    INSPECT_ZIP_BOMB = "inspect.zip_bomb"
    INSPECT_MISSING_MEMBER = "inspect.missing_member"
    INSPECT_DANGLING_REFERENCE = "inspect.dangling_reference"
    INSPECT_TOO_MANY_EPISODES = "inspect.too_many_episodes"
    INSPECT_TOO_MANY_ITEMS = "inspect.too_many_items"
    HARNESS_FORMAT_TOO_MANY_ITEMS = "harness.too_many_items"
    # -- evidence consistency and findings (docs/findings.md) ------------------------------------
    EVIDENCE_DUPLICATE_CALL_ID = "evidence.duplicate_call_id"
    EVIDENCE_DANGLING_CALL_ID = "evidence.dangling_call_id"
    EVIDENCE_RESULT_BEFORE_CALL = "evidence.result_before_call"
    FINDINGS_NO_EPISODE = "findings.no_episode"
    # -- third-party importers: OTel GenAI, AgentDojo, garak (docs/formats.md) --------------------
    OTEL_TOO_LARGE = "otel.too_large"
    OTEL_DOCUMENT_TOO_LARGE = "otel.document_too_large"
    OTEL_INVALID_JSON = "otel.invalid_json"
    OTEL_TOO_DEEP = "otel.too_deep"
    OTEL_SCHEMA = "otel.schema"
    OTEL_TOO_MANY_EPISODES = "otel.too_many_episodes"
    OTEL_TOO_MANY_ITEMS = "otel.too_many_items"
    OTEL_EMPTY = "otel.empty"
    OTEL_DUPLICATE_KEY = "otel.duplicate_key"
    AGENTDOJO_TOO_LARGE = "agentdojo.too_large"
    AGENTDOJO_DOCUMENT_TOO_LARGE = "agentdojo.document_too_large"
    AGENTDOJO_INVALID_JSON = "agentdojo.invalid_json"
    AGENTDOJO_TOO_DEEP = "agentdojo.too_deep"
    AGENTDOJO_SCHEMA = "agentdojo.schema"
    AGENTDOJO_TOO_MANY_EPISODES = "agentdojo.too_many_episodes"
    AGENTDOJO_TOO_MANY_ITEMS = "agentdojo.too_many_items"
    AGENTDOJO_EMPTY = "agentdojo.empty"
    AGENTDOJO_DUPLICATE_KEY = "agentdojo.duplicate_key"
    GARAK_TOO_LARGE = "garak.too_large"
    GARAK_DOCUMENT_TOO_LARGE = "garak.document_too_large"
    GARAK_INVALID_JSON = "garak.invalid_json"
    GARAK_TOO_DEEP = "garak.too_deep"
    GARAK_SCHEMA = "garak.schema"
    GARAK_TOO_MANY_EPISODES = "garak.too_many_episodes"
    GARAK_TOO_MANY_ITEMS = "garak.too_many_items"
    GARAK_EMPTY = "garak.empty"
    GARAK_DUPLICATE_KEY = "garak.duplicate_key"
    GARAK_ATTEMPT_CONFLICT = "garak.attempt_conflict"
    GARAK_NOT_A_REPORT = "garak.not_a_report"
    # -- work budget (docs/threat-model.md, "Work budget") --------------------------------------
    SOURCE_TOO_LARGE = "source.too_large"
    REPLAY_EVIDENCE_CAPPED = "replay.evidence_capped"
    REPLAY_WORK_BUDGET_EXCEEDED = "replay.work_budget_exceeded"
    HARNESS_WORK_BUDGET_EXCEEDED = "harness.work_budget_exceeded"
    HARNESS_YAML_NON_FINITE = "harness.yaml_non_finite"
    HARNESS_YAML_BOM = "harness.yaml_bom"
    # -- command pipeline: inputs, usage and the output sink (docs/cli.md) -----------------------
    CLI_WALK_TOO_DEEP = "cli.walk_too_deep"
    CLI_NOT_A_FILE = "cli.not_a_file"
    CLI_STDIN_TWICE = "cli.stdin_twice"
    CLI_MISSING_ARGUMENT = "cli.missing_argument"
    CLI_OPTION_CONFLICT = "cli.option_conflict"
    CLI_OPTION_NEEDS = "cli.option_needs"
    CLI_TRUSTED_ROOT_SYNTAX = "cli.trusted_root_syntax"
    CLI_TRUSTED_ROOT_NAME = "cli.trusted_root_name"
    CLI_TRUSTED_ROOT_MISSING = "cli.trusted_root_missing"
    CLI_FOLDER_MISSING = "cli.folder_missing"
    CLI_OUTPUT_PARENT_MISSING = "cli.output_parent_missing"
    CLI_OUTPUT_IS_FOLDER = "cli.output_is_folder"
    CLI_OUTPUT_NOT_REGULAR = "cli.output_not_regular"
    CLI_OUTPUT_UNWRITABLE = "cli.output_unwritable"
    CLI_OUTPUT_IS_INPUT = "cli.output_is_input"
    CLI_UNKNOWN_CODE = "cli.unknown_code"
    CLI_NOTHING_CHECKED = "cli.nothing_checked"
    # -- bundle and store commands on the pipeline (docs/cli.md) ----------------------------------
    CLI_BAD_VALUE = "cli.bad_value"
    BUNDLE_NOT_A_CAMPAIGN = "bundle.not_a_campaign"
    # -- every format at the command line (docs/formats.md, "Using it from the command line") ---
    VERIFY_NO_INTEGRITY = "verify.no_integrity"
    REPLAY_FORMAT_NOT_REPLAYABLE = "replay.format_not_replayable"
    AUDIT_FORMAT_NO_INTEGRITY = "audit.format_no_integrity"
    AUDIT_EXPORTER_LOSS = "audit.exporter_loss"
    # -- metamorphic work budget (phase 3, meta) --
    METAMORPHIC_WORK_BUDGET_EXCEEDED = "metamorphic.work_budget_exceeded"
    # -- agent session transcripts (docs/formats.md, "Claude Code", "Codex CLI", "ATIF") --
    CLAUDE_CODE_TOO_LARGE = "claude_code.too_large"
    CLAUDE_CODE_DOCUMENT_TOO_LARGE = "claude_code.document_too_large"
    CLAUDE_CODE_INVALID_JSON = "claude_code.invalid_json"
    CLAUDE_CODE_TOO_DEEP = "claude_code.too_deep"
    CLAUDE_CODE_SCHEMA = "claude_code.schema"
    CLAUDE_CODE_TOO_MANY_EPISODES = "claude_code.too_many_episodes"
    CLAUDE_CODE_TOO_MANY_ITEMS = "claude_code.too_many_items"
    CLAUDE_CODE_EMPTY = "claude_code.empty"
    CLAUDE_CODE_DUPLICATE_KEY = "claude_code.duplicate_key"
    CODEX_TOO_LARGE = "codex.too_large"
    CODEX_DOCUMENT_TOO_LARGE = "codex.document_too_large"
    CODEX_INVALID_JSON = "codex.invalid_json"
    CODEX_TOO_DEEP = "codex.too_deep"
    CODEX_SCHEMA = "codex.schema"
    CODEX_TOO_MANY_EPISODES = "codex.too_many_episodes"
    CODEX_TOO_MANY_ITEMS = "codex.too_many_items"
    CODEX_EMPTY = "codex.empty"
    CODEX_DUPLICATE_KEY = "codex.duplicate_key"
    ATIF_TOO_LARGE = "atif.too_large"
    ATIF_DOCUMENT_TOO_LARGE = "atif.document_too_large"
    ATIF_INVALID_JSON = "atif.invalid_json"
    ATIF_TOO_DEEP = "atif.too_deep"
    ATIF_SCHEMA = "atif.schema"
    ATIF_TOO_MANY_EPISODES = "atif.too_many_episodes"
    ATIF_TOO_MANY_ITEMS = "atif.too_many_items"
    ATIF_EMPTY = "atif.empty"
    ATIF_DUPLICATE_KEY = "atif.duplicate_key"
    # -- run status of imported files (docs/formats.md, "Run status") --
    AUDIT_RUN_NOT_FINISHED = "audit.run_not_finished"
    AUDIT_RUN_SAMPLES_MISSING = "audit.run_samples_missing"
    AUDIT_RUN_TOTALS_CONTRADICT = "audit.run_totals_contradict"
    # -- in-toto attestations (docs/attest.md) --------------------------------------------------
    ATTEST_TOO_LARGE = "attest.too_large"
    ATTEST_MALFORMED = "attest.malformed"
    ATTEST_BAD_SIGNATURE = "attest.bad_signature"
    ATTEST_UNSIGNED = "attest.unsigned"
    ATTEST_UNTRUSTED_KEY = "attest.untrusted_key"
    ATTEST_RESULT_NOT_PASSED = "attest.result_not_passed"
    # -- campaign store integrity (docs/threat-model.md, "The campaign store") ---------------------
    STORE_CORRUPT = "store.corrupt"
    STORE_OTHER_ROOT = "store.other_root"
    STORE_SEAL_MISMATCH = "store.seal_mismatch"
    # -- the input walker (docs/cli.md, "Inputs and folders") ----------------------------------
    CLI_BUNDLE_INPUT = "cli.bundle_input"
    FORMAT_FORCED_OTHER = "format.forced_other"
    # -- judging modes (docs/cli.md, "Verdicts and modes") --
    HARNESS_COMPATIBLE_NOT_RUN = "harness.compatible_not_run"
    # -- Inspect archives bounded in memory and checked header by header (docs/formats.md) --
    INSPECT_LOCAL_HEADER_MISMATCH = "inspect.local_header_mismatch"
    INSPECT_FILE_TOO_MANY_ITEMS = "inspect.file_too_many_items"
    # -- one code per input mistake, in every command (docs/cli.md, "One code per mistake") ----
    FORMAT_EMPTY = "format.empty"
    # -- one episode id everywhere (docs/cli.md, "Episode ids") --
    STORE_OLDER_SCHEMA = "store.older_schema"
    # -- redaction of bundles sealed before original subject statements (bundle format section 8)
    BUNDLE_ORIGINAL_DIGESTS_PUBLISHED = "bundle.original_digests_published"
    # -- the campaign store bounded in memory (docs/campaign-store.md, "Memory") --
    STORE_MEMORY_LIMIT = "store.memory_limit"
    STORE_MEMORY_SETTING = "store.memory_setting"


class CodeInfo(NamedTuple):
    """The documentation of one code: its default severity and fixed message."""

    severity: Severity
    message: str


_E, _W, _N, _I = Severity.ERROR, Severity.WARNING, Severity.NOTICE, Severity.INFO

#: Fixed text for every code. ``{placeholders}`` take only integers or our own schema names.
CODE_INFO: dict[Code, CodeInfo] = {
    Code.LOAD_UNREADABLE: CodeInfo(_E, "The trace could not be read."),
    Code.LOAD_TOTAL_TOO_LARGE: CodeInfo(_E, "Trace exceeds the {limit}-byte limit."),
    Code.LOAD_TOO_MANY_EVENTS: CodeInfo(_E, "Trace exceeds the {limit}-event limit."),
    Code.LOAD_LINE_TOO_LONG: CodeInfo(_E, "Trace line exceeds the {limit}-byte limit."),
    Code.LOAD_MISSING_FINAL_NEWLINE: CodeInfo(_E, "Trace is truncated: final newline is missing."),
    Code.LOAD_BOM: CodeInfo(_E, "Trace starts with a byte order mark."),
    Code.LOAD_INVALID_UTF8: CodeInfo(_E, "Trace line is not valid UTF-8."),
    Code.LOAD_EMPTY_LINE: CodeInfo(_E, "Trace line is empty."),
    Code.LOAD_NO_EVENTS: CodeInfo(_E, "Trace must contain a header and events."),
    Code.JSON_INVALID: CodeInfo(_E, "Trace line is not valid JSON."),
    Code.JSON_NOT_AN_OBJECT: CodeInfo(_E, "Trace line must be a JSON object."),
    Code.JSON_TOO_DEEP: CodeInfo(_E, "Trace line nests deeper than {limit} levels."),
    Code.JSON_TOO_MANY_VALUES: CodeInfo(_E, "Trace line holds more than {limit} JSON values."),
    Code.JSON_DUPLICATE_KEY: CodeInfo(_E, "Trace line repeats a key inside one object."),
    Code.JSON_NON_FINITE_NUMBER: CodeInfo(_E, "Trace line holds NaN, Infinity or an overflowing number."),
    Code.JSON_LONE_SURROGATE: CodeInfo(_E, "Trace line holds a string with a lone surrogate."),
    Code.JSON_STRING_TOO_LONG: CodeInfo(_E, "A string at depth {depth} exceeds {limit} characters."),
    Code.JSON_LIST_TOO_LONG: CodeInfo(_E, "A list at depth {depth} exceeds {limit} items."),
    Code.JSON_KEY_TOO_LONG: CodeInfo(_E, "An object key at depth {depth} exceeds {limit} characters."),
    Code.CANONICAL_NON_CANONICAL_LINE: CodeInfo(
        _N, "Trace line is valid but not in canonical form (spacing, key order or escapes)."
    ),
    Code.CANONICAL_CRLF: CodeInfo(_N, "Trace line ends in CRLF, not LF."),
    Code.SCHEMA_UNKNOWN_FIELD: CodeInfo(_E, "Record holds a field the schema does not define."),
    Code.SCHEMA_MISSING_FIELD: CodeInfo(_E, "Record is missing a required field."),
    Code.SCHEMA_WRONG_TYPE: CodeInfo(_E, "A field has the wrong JSON type."),
    Code.SCHEMA_INVALID_VALUE: CodeInfo(_E, "A field holds a value outside its allowed range or set."),
    Code.SCHEMA_WRONG_RECORD_TYPE: CodeInfo(_E, "Record type is not the one expected on this line."),
    Code.SCHEMA_UNSUPPORTED_FORMAT: CodeInfo(_E, "Invalid trace schema identifier."),
    Code.SCHEMA_UNSUPPORTED_VERSION: CodeInfo(_E, "Unsupported trace schema version."),
    Code.SCHEMA_UNSUPPORTED_EXECUTION_TYPE: CodeInfo(_E, "Unsupported trace source execution type."),
    Code.SCHEMA_UNSUPPORTED_HASH_ALGORITHM: CodeInfo(_E, "Unsupported trace hash algorithm."),
    Code.SCHEMA_POLICY_SNAPSHOT_FORBIDDEN: CodeInfo(_E, "Trace v1 cannot contain a policy snapshot."),
    Code.SCHEMA_POLICY_SNAPSHOT_REQUIRED: CodeInfo(_E, "Trace v{version} requires a policy snapshot."),
    Code.SCHEMA_UNKNOWN_EVENT_TYPE: CodeInfo(_E, "Event has an unsupported event type."),
    Code.SCHEMA_EVENT_NOT_IN_VERSION: CodeInfo(
        _E, "Event type containment_evidence is not allowed before schema version 3."
    ),
    Code.SCHEMA_INCOMPLETE_GROUP: CodeInfo(_E, "An optional field group is only partly present."),
    Code.PATH_EMPTY: CodeInfo(_E, "A path is empty."),
    Code.PATH_ABSOLUTE: CodeInfo(_E, "A path must be relative (rejected a {length}-character path)."),
    Code.PATH_DRIVE_LETTER: CodeInfo(_E, "A path carries a drive letter (rejected a {length}-character path)."),
    Code.PATH_UNC: CodeInfo(_E, "A path is a UNC path (rejected a {length}-character path)."),
    Code.PATH_PARENT_REFERENCE: CodeInfo(_E, "A path climbs out with '..' (rejected a {length}-character path)."),
    Code.PATH_BACKSLASH: CodeInfo(_E, "A path uses backslashes (rejected a {length}-character path)."),
    Code.PATH_NOT_NORMALISED: CodeInfo(
        _E, "A path is not in normalised form (rejected a {length}-character path)."
    ),
    Code.PATH_CONTROL_CHARACTER: CodeInfo(
        _E, "A path holds a control character (rejected a {length}-character path)."
    ),
    Code.STRUCTURE_EVENT_COUNT_MISMATCH: CodeInfo(_E, "Trace event count does not match the file."),
    Code.STRUCTURE_SEQUENCE_GAP: CodeInfo(_E, "Trace event sequence is not contiguous from 1."),
    Code.STRUCTURE_SEQUENCE_DUPLICATE: CodeInfo(_E, "Trace event sequence repeats a number."),
    Code.STRUCTURE_START_COMPLETION_ORDER: CodeInfo(_E, "Trace start/completion event ordering is invalid."),
    Code.STRUCTURE_MULTIPLICITY: CodeInfo(_E, "Trace must hold exactly one {event_type} event."),
    Code.STRUCTURE_EVENT_ORDER: CodeInfo(_E, "Trace event type ordering is invalid."),
    Code.STRUCTURE_CONTAINMENT_POSITION: CodeInfo(
        _E, "containment_evidence must appear at most once, directly after execution_started."
    ),
    Code.STRUCTURE_DUPLICATE_FILE_CHANGE: CodeInfo(_E, "Two file_change events name the same path."),
    Code.CHAIN_BROKEN: CodeInfo(_E, "Trace hash chain is broken at event {sequence}."),
    Code.CHAIN_EVENT_HASH_MISMATCH: CodeInfo(_E, "Trace event {sequence} hash is invalid."),
    Code.CHAIN_FINAL_HASH_MISMATCH: CodeInfo(_E, "Trace final event hash does not match the last event."),
    Code.CHAIN_ROOT_HASH_MISMATCH: CodeInfo(_E, "Trace root hash does not match the header and events."),
    Code.CHAIN_TRACE_ID_MISMATCH: CodeInfo(_E, "Trace id does not equal the root hash."),
    Code.CHAIN_POLICY_SNAPSHOT_HASH_MISMATCH: CodeInfo(_E, "Trace policy snapshot hash is invalid."),
    Code.SOURCE_NONE_RECORDED: CodeInfo(_I, "Source artifacts unavailable: none were recorded."),
    Code.SOURCE_MATCH: CodeInfo(_I, "Source artifact {index} matches its recorded digest."),
    Code.SOURCE_CHANGED: CodeInfo(_W, "Source artifact {index} changed since the trace was written."),
    Code.SOURCE_UNAVAILABLE: CodeInfo(_N, "Source artifact {index} is unavailable."),
    Code.SOURCE_REQUIRED_UNAVAILABLE: CodeInfo(_W, "Required source artifact {index} is unavailable."),
    Code.SOURCE_ESCAPES_ROOT: CodeInfo(_E, "Source artifact {index} resolves outside its root."),
    Code.SOURCE_DUPLICATE: CodeInfo(_E, "Two source artifacts name the same role."),
    # -- harness (check) -------------------------------------------------------------------------
    Code.HARNESS_SCENARIO_UNREADABLE: CodeInfo(_E, "The scenario file could not be read."),
    Code.HARNESS_SCENARIO_TOO_LARGE: CodeInfo(_E, "Scenario exceeds the {limit}-byte limit."),
    Code.HARNESS_SCENARIO_SUFFIX: CodeInfo(_E, "Scenario file name must end in .yaml or .yml."),
    Code.HARNESS_YAML_INVALID: CodeInfo(_E, "Scenario is not valid UTF-8 YAML holding one document."),
    Code.HARNESS_YAML_ALIAS: CodeInfo(_E, "Scenario uses a YAML anchor or alias; tracekit refuses them."),
    Code.HARNESS_YAML_TAG: CodeInfo(_E, "Scenario uses a YAML tag outside the JSON-compatible core schema."),
    Code.HARNESS_YAML_DUPLICATE_KEY: CodeInfo(_E, "Scenario repeats a key inside one mapping."),
    Code.HARNESS_YAML_TOO_DEEP: CodeInfo(_E, "Scenario nests deeper than {limit} levels."),
    Code.HARNESS_YAML_TOO_MANY_NODES: CodeInfo(_E, "Scenario holds more than {limit} YAML nodes."),
    Code.HARNESS_YAML_SCALAR_TOO_LONG: CodeInfo(_E, "A scenario scalar exceeds {limit} characters."),
    Code.HARNESS_SCENARIO_INVALID: CodeInfo(_E, "Scenario breaks the harness schema: {rule}."),
    Code.HARNESS_TRACE_UNREADABLE: CodeInfo(_E, "The harness trace file could not be read."),
    Code.HARNESS_TRACE_TOO_LARGE: CodeInfo(_E, "Harness trace exceeds the {limit}-byte limit."),
    Code.HARNESS_TRACE_NOT_UTF8: CodeInfo(_E, "Harness trace is not valid UTF-8."),
    Code.HARNESS_TRACE_INVALID: CodeInfo(_E, "Harness trace breaks the trace format: {rule}."),
    Code.HARNESS_TRACE_MISSING: CodeInfo(_E, "No trace file was found for a scenario."),
    Code.HARNESS_TRACE_DIR_MISSING: CodeInfo(_E, "The --trace-dir folder does not exist."),
    Code.HARNESS_DUPLICATE_SCENARIO_ID: CodeInfo(_E, "Two scenarios in the suite share one id."),
    Code.HARNESS_OUTPUT_NAME_COLLISION: CodeInfo(
        _E, "A scenario id would overwrite summary.json in --output-dir."
    ),
    # -- replay ----------------------------------------------------------------------------------
    Code.REPLAY_TRACE_INVALID: CodeInfo(_E, "The trace did not verify; it cannot be replayed."),
    Code.REPLAY_NOT_REPLAYABLE_V1: CodeInfo(
        _W,
        "Trace schema v1 did not capture normalized policy inputs; current defaults are not "
        "inferred for historical traces.",
    ),
    Code.REPLAY_MISSING_POLICY_SNAPSHOT: CodeInfo(_W, "Trace has no policy snapshot."),
    Code.REPLAY_REDACTED_INPUTS: CodeInfo(
        _W, "Policy inputs were redacted ({count} field(s)) and cannot be replayed exactly."
    ),
    Code.REPLAY_COMMAND_PATTERNS_DIFFER: CodeInfo(
        _W, "Command-policy and unsafe-command patterns are inconsistent."
    ),
    Code.REPLAY_UNKNOWN_CHECK: CodeInfo(
        _W, "Policy snapshot enables {count} unregistered check identifier(s)."
    ),
    Code.REPLAY_MISSING_SEVERITY: CodeInfo(
        _W, "Enabled check {check} has no severity in the policy snapshot."
    ),
    Code.REPLAY_SCORE_WEIGHTS: CodeInfo(
        _W, "Policy snapshot score_weights must name exactly critical, error, warning and info."
    ),
    Code.REPLAY_TRUNCATED_EVIDENCE: CodeInfo(
        _W, "Policy-relevant {event_type} evidence was truncated ({count} event(s))."
    ),
    Code.REPLAY_TRUNCATED_MODIFIED_FILES: CodeInfo(_W, "Modified-file evidence was truncated."),
    Code.REPLAY_STRICT_SOURCES: CodeInfo(_W, "Strict source verification failed."),
    Code.REPLAY_MISSING_EVIDENCE: CodeInfo(
        _W, "Replay needs exactly one {event_type} event."
    ),
    Code.REPLAY_INCONSISTENT_FILE_CHANGES: CodeInfo(
        _W, "Trace file-change events are inconsistent with completion evidence."
    ),
    Code.REPLAY_DUPLICATE_FILE_CHANGE: CodeInfo(
        _W, "The changed-file evidence names one path more than once."
    ),
    Code.REPLAY_SECRET_SCAN_NOT_RECOMPUTABLE: CodeInfo(
        _W,
        "The recorded secret scan reports content-based or incomplete scanning, which the trace "
        "cannot reproduce; tracekit does not trust the recorded result.",
    ),
    Code.REPLAY_INCONSISTENT_LINE_TOTALS: CodeInfo(
        _N,
        "Completion line totals differ from the file_change events; replay uses the completion "
        "totals, as upstream does.",
    ),
    Code.REPLAY_UNKNOWN_WORKING_DIRECTORY_ROLE: CodeInfo(
        _N, "{count} agent_command event(s) name a working_directory_role outside the known set."
    ),
    Code.REPLAY_NON_MONOTONIC_OFFSETS: CodeInfo(
        _N, "relative_offset_seconds decreases at {count} event(s)."
    ),
    Code.REPLAY_REPLAYABLE: CodeInfo(_I, "Trace is replayable."),
    Code.REPLAY_EXACT: CodeInfo(_I, "Replay is exact: the recorded verdict follows from the evidence."),
    Code.REPLAY_SEMANTIC: CodeInfo(
        _W, "Replay is semantic: only check message text differs from the recomputation."
    ),
    Code.REPLAY_DIVERGENT: CodeInfo(
        _W, "Replay is divergent: the recorded verdict does not follow from the evidence."
    ),
    # -- audit (docs/audit.md) -------------------------------------------------------------------
    Code.AUDIT_UNKNOWN_FORMAT: CodeInfo(
        _E, "The file's first bytes are neither an AgentGuard trace nor an OWASP harness trace."
    ),
    Code.AUDIT_INTEGRITY_NOT_AUTHENTICITY: CodeInfo(
        _I,
        "Integrity is not authenticity: the hashes are unkeyed, so anyone can edit a trace and "
        "re-hash it; an intact chain shows the file is self-consistent, not who wrote it or that "
        "the run happened.",
    ),
    Code.AUDIT_NO_INTEGRITY: CodeInfo(
        _I,
        "The harness format carries no hashes or signatures: nothing in the file shows it is "
        "unedited or who wrote it.",
    ),
    Code.AUDIT_SCENARIO_NOT_APPLICABLE: CodeInfo(
        _N, "--scenario applies to harness traces only; it was not used for this trace."
    ),
    Code.AUDIT_HEADER_IDS_MISMATCH: CodeInfo(
        _E, "The header's {field} differs from the execution_started event's."
    ),
    Code.AUDIT_FUNCTIONAL_PASS_MISMATCH: CodeInfo(
        _E, "test_result.functional_pass contradicts its exit_code and timed_out."
    ),
    Code.AUDIT_SCORE_CONTRIBUTION_MISMATCH: CodeInfo(
        _E,
        "{count} check_result event(s) record a score_contribution that does not follow from "
        "passed, severity and the score weights.",
    ),
    Code.AUDIT_FAILED_CHECKS_MISMATCH: CodeInfo(
        _E, "execution_completed.failed_checks does not list exactly the failed check_result events."
    ),
    Code.AUDIT_WARNING_CHECKS_MISMATCH: CodeInfo(
        _E,
        "execution_completed.warning_checks does not list exactly the failed warning-severity "
        "check_result events.",
    ),
    Code.AUDIT_MODIFIED_COUNT_MISMATCH: CodeInfo(
        _W, "modified_files.count ({count}) does not match its {paths} listed path(s)."
    ),
    Code.AUDIT_MODIFIED_PATHS_MISMATCH: CodeInfo(
        _W, "modified_files.paths does not match the file_change events ({count} event(s))."
    ),
    Code.AUDIT_LINE_TOTALS_MISMATCH: CodeInfo(
        _W, "modified_files line totals differ from the sums over the file_change events."
    ),
    Code.AUDIT_SCORE_MISMATCH: CodeInfo(
        _E, "execution_completed.score does not follow from the failed checks and the score weights."
    ),
    Code.AUDIT_RESULT_MISMATCH: CodeInfo(
        _E, "execution_completed.result does not follow from the failed checks' severities."
    ),
    Code.AUDIT_DUPLICATE_CHECK_NAME: CodeInfo(
        _W, "{count} check name(s) are recorded by more than one check_result event."
    ),
    Code.AUDIT_SEVERITY_MISMATCH: CodeInfo(
        _W,
        "{count} check_result event(s) record a severity other than the policy snapshot's.",
    ),
    Code.AUDIT_NON_MONOTONIC_OFFSETS: CodeInfo(
        _W, "relative_offset_seconds decreases at {count} event(s)."
    ),
    Code.AUDIT_UNKNOWN_WORKING_DIRECTORY_ROLE: CodeInfo(
        _W, "{count} agent_command event(s) name a working_directory_role outside the known set."
    ),
    Code.AUDIT_FIELD_MISSING: CodeInfo(_W, "Evidence field {field} is missing ({where})."),
    Code.AUDIT_FIELD_PARTIAL: CodeInfo(_W, "Evidence field {field} is only partly recorded ({where})."),
    Code.AUDIT_FIELD_NOT_CARRIED: CodeInfo(
        _I, "Evidence field {field} cannot be carried by this trace format ({where})."
    ),
    Code.AUDIT_ARGUMENTS_STRINGIFIED: CodeInfo(
        _W,
        "{count} tool call(s) record their arguments as a string, not an object: types and exact "
        "values are lost (first: {where}).",
    ),
    Code.AUDIT_RESULT_TRUNCATED: CodeInfo(
        _W,
        "{count} recorded result(s) look truncated ({reason}); what the agent read is unknown "
        "(first: {where}).",
    ),
    Code.AUDIT_PARALLEL_CALLS_FLATTENED: CodeInfo(
        _W,
        "{count} tool calls cannot be told apart ({reason}): parallel calls may have been "
        "flattened into an order the run never had.",
    ),
    Code.AUDIT_VERDICT_WITHOUT_PAYLOADS: CodeInfo(
        _W,
        "The trace records a verdict but not the payloads behind it ({count} item(s) without "
        "payload, first: {where}).",
    ),
    Code.AUDIT_REPEATED_FINDING: CodeInfo(
        _W,
        "{count} recorded finding(s) carry only {distinct} distinct payload(s): identical payloads "
        "are one demonstration, not several.",
    ),
    Code.AUDIT_OUTCOME_MISMATCH: CodeInfo(
        _W, "The recorded outcome differs from the scenario's assertions evaluated on this trace."
    ),
    Code.AUDIT_OUTCOME_REPRODUCED: CodeInfo(
        _I, "The recorded outcome equals the scenario's assertions evaluated on this trace."
    ),
    # -- metamorphic -----------------------------------------------------------------------------
    Code.METAMORPHIC_UNKNOWN_TRANSFORM: CodeInfo(
        _E, "A --transform name is not a registered metamorphic transform."
    ),
    Code.METAMORPHIC_DUPLICATE_TRANSFORM: CodeInfo(_E, "A --transform name is given more than once."),
    Code.METAMORPHIC_SOURCE_INVALID: CodeInfo(
        _N, "A source trace did not verify; no transform was applied to it."
    ),
    Code.METAMORPHIC_SOURCE_NOT_REPLAYABLE: CodeInfo(
        _N, "A source trace is not replayable; no transform was applied to it."
    ),
    Code.METAMORPHIC_RELATIONS_FAILED: CodeInfo(
        _W, "{failed} of {total} metamorphic relation(s) did not hold."
    ),
    Code.METAMORPHIC_STDIN_UNSUPPORTED: CodeInfo(
        _E, "metamorphic reads trace files; standard input is not supported."
    ),
    Code.METAMORPHIC_SCHEDULER_NEEDS_DASK: CodeInfo(_E, "--scheduler needs --executor dask."),
    Code.METAMORPHIC_DASK_UNAVAILABLE: CodeInfo(
        _E, "The dask executor needs dask.distributed; install tracekit[dask]."
    ),
    Code.METAMORPHIC_NOTHING_SWEPT: CodeInfo(
        _E, "No source could be swept: every one was invalid or not replayable ({skipped} skipped)."
    ),
    Code.METAMORPHIC_DASK_CONNECTION_FAILED: CodeInfo(
        _E, "Could not connect to the Dask scheduler."
    ),
    # -- sealed bundles --------------------------------------------------------------------------
    Code.BUNDLE_BAD_MAGIC: CodeInfo(_E, "Not a tracekit bundle: the file does not start with the bundle magic."),
    Code.BUNDLE_TRUNCATED: CodeInfo(_E, "The bundle is truncated: it ends inside frame {frame} or before its end frame."),
    Code.BUNDLE_FRAME_TOO_LARGE: CodeInfo(_E, "Frame {frame} declares a length over the {limit}-byte limit."),
    Code.BUNDLE_TOO_LARGE: CodeInfo(_E, "The bundle exceeds the {limit}-byte limit."),
    Code.BUNDLE_TOO_MANY_FRAMES: CodeInfo(_E, "The bundle holds more than {limit} frames."),
    Code.BUNDLE_UNKNOWN_FRAME: CodeInfo(_E, "Frame {frame} has an unknown kind."),
    Code.BUNDLE_FRAME_ORDER: CodeInfo(_E, "Frame {frame} is out of the bundle's frame order."),
    Code.BUNDLE_TRAILING_DATA: CodeInfo(_E, "Bytes follow the bundle's end frame."),
    Code.BUNDLE_FRAME_COUNT_MISMATCH: CodeInfo(_E, "The end frame's count differs from the frames read."),
    Code.BUNDLE_TOO_DEEP: CodeInfo(_E, "Frame {frame} nests JSON deeper than {limit} levels."),
    Code.BUNDLE_JSON_INVALID: CodeInfo(_E, "Frame {frame} is not valid JSON (or repeats a key)."),
    Code.BUNDLE_NOT_CANONICAL: CodeInfo(_E, "Frame {frame} is not in RFC 8785 canonical form."),
    Code.BUNDLE_UNSUPPORTED_VERSION: CodeInfo(_E, "The bundle header names an unsupported bundle version or kind."),
    Code.BUNDLE_UNKNOWN_ALGORITHM: CodeInfo(_E, "The bundle names a hash, canonicalisation or signature algorithm tracekit does not support."),
    Code.BUNDLE_BLOB_DIGEST_MISMATCH: CodeInfo(_E, "Blob frame {frame} does not hash to its declared digest."),
    Code.BUNDLE_BLOB_ORDER: CodeInfo(_E, "Blob frame {frame} is out of digest order or repeats a blob."),
    Code.BUNDLE_BLOB_MISSING: CodeInfo(_E, "A record references a blob the bundle neither holds nor withholds (record frame {frame})."),
    Code.BUNDLE_BLOB_LENGTH_MISMATCH: CodeInfo(_E, "A blob's length differs from the length its record declares (record frame {frame})."),
    Code.BUNDLE_BLOB_UNREFERENCED: CodeInfo(_E, "The bundle holds {count} blob(s) no record references."),
    Code.BUNDLE_RECORD_INVALID: CodeInfo(_E, "Record frame {frame} breaks the record schema: {rule}."),
    Code.BUNDLE_RECORD_ORDER: CodeInfo(_E, "Record frame {frame} is out of sequence."),
    Code.BUNDLE_RECORD_DUPLICATE: CodeInfo(_E, "Record frame {frame} repeats an earlier record's sequence number."),
    Code.BUNDLE_ORIGINAL_MISMATCH: CodeInfo(_E, "The original file's blob does not match its recorded length or SHA-256."),
    Code.BUNDLE_PROOF_INVALID: CodeInfo(_E, "The campaign inclusion proof is malformed or does not lead to the signed root."),
    Code.BUNDLE_TOO_MANY_FINDINGS: CodeInfo(_E, "The bundle holds more than {limit} findings."),
    Code.BUNDLE_PAYLOAD_TYPE: CodeInfo(_E, "The DSSE envelope's payload type is not an in-toto statement."),
    Code.BUNDLE_STATEMENT_INVALID: CodeInfo(_E, "The signed statement is not a tracekit in-toto Statement v1: {rule}."),
    Code.BUNDLE_ROOT_MISMATCH: CodeInfo(_E, "The signed statement names another root or original file than the bundle holds."),
    Code.BUNDLE_SIGNATURE_INVALID: CodeInfo(_E, "The signature frame is malformed: {rule}."),
    Code.BUNDLE_KEY_MISMATCH: CodeInfo(_E, "A public key in the bundle does not match its keyid (a substituted key)."),
    Code.BUNDLE_BAD_SIGNATURE: CodeInfo(_E, "A signature does not verify over the envelope's PAE."),
    Code.BUNDLE_UNSIGNED: CodeInfo(_W, "The bundle is intact but not signed."),
    Code.BUNDLE_UNTRUSTED_KEY: CodeInfo(_W, "The bundle is intact and signed, but by no trusted key."),
    Code.BUNDLE_BLOBS_WITHHELD: CodeInfo(_W, "The bundle is intact but {count} blob(s) are withheld."),
    Code.BUNDLE_TRUSTED_KEY_INVALID: CodeInfo(_E, "A trusted key file is unreadable or holds no valid Ed25519 public key."),
    Code.BUNDLE_KEY_INVALID: CodeInfo(_E, "The signing key file is unreadable or not an Ed25519 private key."),
    Code.BUNDLE_INPUT_UNREADABLE: CodeInfo(_E, "An input file could not be read or imported ({rule})."),
    Code.BUNDLE_NO_SUCH_FINDING: CodeInfo(_E, "The campaign has no finding with that index."),
    Code.BUNDLE_NO_SUCH_BLOB: CodeInfo(_E, "The bundle holds no blob with that digest."),
    Code.BUNDLE_NOTHING_TO_REDACT: CodeInfo(_N, "No blob matched the redaction criteria; the output equals the input."),
    Code.REDACT_WORK_BUDGET_EXCEEDED: CodeInfo(
        _E,
        "Redaction would spend more than {limit} units of work scanning blob data (its work budget; "
        "a unit is about a byte of text for --match, and --secrets charges what its detectors may "
        "cost), so it cannot tell which blobs to withhold: nothing was written. Raise it with "
        "--work-budget, or name blobs with --blob.",
    ),
    Code.STORE_UNAVAILABLE: CodeInfo(
        _E, "The campaign store needs DuckDB, which did not import; reinstall tracekit."
    ),
    Code.STORE_LOCKED: CodeInfo(
        _E, "The campaign store is in use by another tracekit process; try again when it ends."
    ),
    Code.STORE_NEWER_SCHEMA: CodeInfo(
        _E, "The campaign store has schema version {found}; this tracekit reads up to {supported}."
    ),
    Code.STORE_NOT_A_STORE: CodeInfo(_E, "The file is not a tracekit campaign store."),
    Code.STORE_NOT_FOUND: CodeInfo(_E, "The campaign store does not exist."),
    Code.STORE_NO_RUNS: CodeInfo(_E, "The campaign store holds no completed run to compare."),
    Code.STORE_UNKNOWN_RUN: CodeInfo(_E, "The campaign store holds no completed run {run}."),
    Code.STORE_CAMPAIGN_ROOT: CodeInfo(
        _E, "--db audits one campaign: name exactly one folder."
    ),
    Code.CLI_USAGE: CodeInfo(_E, "The command line is not valid."),
    Code.CLI_NO_INPUT: CodeInfo(_E, "No input traces were found."),
    Code.CLI_OUTPUT_EXISTS: CodeInfo(_E, "The output already exists; pass --force to replace it."),
    Code.CLI_OUTPUT_UNSAFE: CodeInfo(_E, "The output location is a symlink or not a plain directory."),
    Code.CLI_INTERRUPTED: CodeInfo(_E, "Interrupted; no output was written."),
    Code.INTERNAL_ERROR: CodeInfo(_E, "Internal error; this is a tracekit bug."),
    # -- format layer (docs/formats.md) ----------------------------------------------------------
    Code.FORMAT_UNKNOWN: CodeInfo(
        _E, "The file matches no supported trace format (supported: {formats})."
    ),
    Code.FORMAT_UNKNOWN_NAME: CodeInfo(
        _E, "--input-format names no supported format (supported: {formats})."
    ),
    Code.FORMAT_UNREADABLE: CodeInfo(
        _E, "The input is missing or cannot be read as a regular file or standard input."
    ),
    Code.FORMAT_TOO_LARGE: CodeInfo(_E, "The input exceeds {limit} bytes."),
    Code.INSPECT_NOT_UTF8: CodeInfo(_E, "An Inspect log document is not valid UTF-8 ({member})."),
    Code.INSPECT_JSON_INVALID: CodeInfo(_E, "An Inspect log document is not valid JSON ({member})."),
    Code.INSPECT_TOO_DEEP: CodeInfo(
        _E, "An Inspect log document nests deeper than {limit} levels ({member})."
    ),
    Code.INSPECT_DUPLICATE_KEY: CodeInfo(
        _E, "An Inspect log document repeats a key in one object ({member})."
    ),
    Code.INSPECT_SCHEMA: CodeInfo(
        _E, "An Inspect log breaks its schema: {rule} ({member})."
    ),
    Code.INSPECT_UNSUPPORTED_VERSION: CodeInfo(
        _E, "The Inspect log version is not supported (supported: 1 to 3)."
    ),
    Code.INSPECT_BAD_ARCHIVE: CodeInfo(_E, "The .eval archive's zip structure is broken: {rule}."),
    Code.INSPECT_UNSUPPORTED_COMPRESSION: CodeInfo(
        _E, "A .eval member uses a compression method other than stored, deflate or zstd."
    ),
    Code.INSPECT_ZSTD_UNAVAILABLE: CodeInfo(
        _E, "Reading zstd members of a .eval archive needs the zstandard package."
    ),
    Code.INSPECT_UNSAFE_MEMBER_NAME: CodeInfo(
        _E, "A .eval member name is absolute, holds '..', a backslash or a control character."
    ),
    Code.INSPECT_TOO_MANY_MEMBERS: CodeInfo(_E, "The .eval archive holds more than {limit} members."),
    Code.INSPECT_MEMBER_TOO_LARGE: CodeInfo(
        _E, "A .eval member or Inspect document decompresses to more than {limit} bytes."
    ),
    Code.INSPECT_TOTAL_TOO_LARGE: CodeInfo(
        _E, "The .eval archive decompresses to more than {limit} bytes in all."
    ),
    Code.INSPECT_ZIP_BOMB: CodeInfo(
        _E, "A .eval member expands more than {limit} times its compressed size."
    ),
    Code.INSPECT_MISSING_MEMBER: CodeInfo(_E, "The .eval archive has no {member} member."),
    Code.INSPECT_DANGLING_REFERENCE: CodeInfo(
        _E, "An Inspect sample refers to a missing {kind} ({member})."
    ),
    Code.INSPECT_TOO_MANY_EPISODES: CodeInfo(_E, "The Inspect log holds more than {limit} episodes."),
    Code.INSPECT_TOO_MANY_ITEMS: CodeInfo(
        _E, "An Inspect sample holds more than {limit} messages, events and calls ({member})."
    ),
    Code.HARNESS_FORMAT_TOO_MANY_ITEMS: CodeInfo(
        _E, "The harness trace holds more than {limit} messages, calls and events."
    ),
    Code.EVIDENCE_DUPLICATE_CALL_ID: CodeInfo(_E, "Two tool calls of one episode share a call id."),
    Code.EVIDENCE_DANGLING_CALL_ID: CodeInfo(
        _E, "A tool result answers a call id that no tool call of the episode has."
    ),
    Code.EVIDENCE_RESULT_BEFORE_CALL: CodeInfo(
        _E, "A tool result is recorded before the message that carries its call."
    ),
    Code.FINDINGS_NO_EPISODE: CodeInfo(
        _E,
        "No episode of the file has the requested id; `tracekit show FILE` lists the episode "
        "ids (the ids every report prints).",
    ),
    Code.OTEL_TOO_LARGE: CodeInfo(_E, "The OTLP/JSON file exceeds the {limit}-byte limit."),
    Code.OTEL_DOCUMENT_TOO_LARGE: CodeInfo(_E, "A JSON document in the OTLP/JSON file exceeds the {limit}-byte limit."),
    Code.OTEL_INVALID_JSON: CodeInfo(_E, "The OTLP/JSON file holds text that is not valid UTF-8 JSON."),
    Code.OTEL_TOO_DEEP: CodeInfo(_E, "The OTLP/JSON file nests JSON deeper than {limit} levels."),
    Code.OTEL_SCHEMA: CodeInfo(_E, "The OTLP/JSON file does not match the {format} schema at {field}."),
    Code.OTEL_TOO_MANY_EPISODES: CodeInfo(_E, "The OTLP/JSON file holds more than {limit} episodes."),
    Code.OTEL_TOO_MANY_ITEMS: CodeInfo(_E, "An episode of the OTLP/JSON file holds more than {limit} items."),
    Code.OTEL_EMPTY: CodeInfo(_E, "The OTLP/JSON file holds no records."),
    Code.OTEL_DUPLICATE_KEY: CodeInfo(_E, "A JSON object in the OTLP/JSON file repeats a key; readers would disagree on its value."),
    Code.AGENTDOJO_TOO_LARGE: CodeInfo(_E, "The AgentDojo trace exceeds the {limit}-byte limit."),
    Code.AGENTDOJO_DOCUMENT_TOO_LARGE: CodeInfo(_E, "A JSON document in the AgentDojo trace exceeds the {limit}-byte limit."),
    Code.AGENTDOJO_INVALID_JSON: CodeInfo(_E, "The AgentDojo trace holds text that is not valid UTF-8 JSON."),
    Code.AGENTDOJO_TOO_DEEP: CodeInfo(_E, "The AgentDojo trace nests JSON deeper than {limit} levels."),
    Code.AGENTDOJO_SCHEMA: CodeInfo(_E, "The AgentDojo trace does not match the {format} schema at {field}."),
    Code.AGENTDOJO_TOO_MANY_EPISODES: CodeInfo(_E, "The AgentDojo trace holds more than {limit} episodes."),
    Code.AGENTDOJO_TOO_MANY_ITEMS: CodeInfo(_E, "An episode of the AgentDojo trace holds more than {limit} items."),
    Code.AGENTDOJO_EMPTY: CodeInfo(_E, "The AgentDojo trace holds no records."),
    Code.AGENTDOJO_DUPLICATE_KEY: CodeInfo(_E, "A JSON object in the AgentDojo trace repeats a key; readers would disagree on its value."),
    Code.GARAK_TOO_LARGE: CodeInfo(_E, "The garak report exceeds the {limit}-byte limit."),
    Code.GARAK_DOCUMENT_TOO_LARGE: CodeInfo(_E, "A JSON document in the garak report exceeds the {limit}-byte limit."),
    Code.GARAK_INVALID_JSON: CodeInfo(_E, "The garak report holds text that is not valid UTF-8 JSON."),
    Code.GARAK_TOO_DEEP: CodeInfo(_E, "The garak report nests JSON deeper than {limit} levels."),
    Code.GARAK_SCHEMA: CodeInfo(_E, "The garak report does not match the {format} schema at {field}."),
    Code.GARAK_TOO_MANY_EPISODES: CodeInfo(_E, "The garak report holds more than {limit} episodes."),
    Code.GARAK_TOO_MANY_ITEMS: CodeInfo(_E, "An episode of the garak report holds more than {limit} items."),
    Code.GARAK_EMPTY: CodeInfo(_E, "The garak report holds no records."),
    Code.GARAK_DUPLICATE_KEY: CodeInfo(_E, "A JSON object in the garak report repeats a key; readers would disagree on its value."),
    Code.GARAK_ATTEMPT_CONFLICT: CodeInfo(_E, "The two records of one garak attempt disagree on {field}."),
    Code.GARAK_NOT_A_REPORT: CodeInfo(_E, "A line of the garak file is neither a report entry nor a hit-log entry."),
    # -- work budget (docs/threat-model.md, "Work budget") --------------------------------------
    Code.SOURCE_TOO_LARGE: CodeInfo(
        _W, "Source artifact {index} exceeds the hashing bound; it was not hashed."
    ),
    Code.REPLAY_EVIDENCE_CAPPED: CodeInfo(
        _N,
        "The {check} check found more evidence than a trace line can record; the report keeps "
        "the first {kept} evidence lines (the check's verdict is complete).",
    ),
    Code.REPLAY_WORK_BUDGET_EXCEEDED: CodeInfo(
        _W,
        "Replaying the {check} check needs more pattern matching than the budget of {limit} units; "
        "the trace is not replayed.",
    ),
    Code.HARNESS_WORK_BUDGET_EXCEEDED: CodeInfo(
        _E, "Searching the trace needs more than {limit} units of work; the assertion is not decided."
    ),
    Code.HARNESS_YAML_NON_FINITE: CodeInfo(
        _E, "Scenario holds NaN or an infinite number; tracekit refuses them."
    ),
    Code.HARNESS_YAML_BOM: CodeInfo(_E, "Scenario starts with a byte order mark; tracekit refuses it."),
    Code.CLI_WALK_TOO_DEEP: CodeInfo(
        _W,
        "{count} folder(s) nested deeper than {limit} levels below an input folder were not "
        "searched; the traces above them were checked.",
    ),
    Code.CLI_NOT_A_FILE: CodeInfo(_E, "This argument names one file; a folder was given."),
    Code.CLI_STDIN_TWICE: CodeInfo(_E, "Standard input (-) can be read only once per command."),
    Code.CLI_MISSING_ARGUMENT: CodeInfo(_E, "Missing {what}."),
    Code.CLI_OPTION_CONFLICT: CodeInfo(_E, "{option} cannot be used with {other}."),
    Code.CLI_OPTION_NEEDS: CodeInfo(_E, "{option} needs {other}."),
    Code.CLI_TRUSTED_ROOT_SYNTAX: CodeInfo(_E, "--trusted-root takes NAME=DIR."),
    Code.CLI_TRUSTED_ROOT_NAME: CodeInfo(
        _E, "--trusted-root: unknown NAME; known names: {names}."
    ),
    Code.CLI_TRUSTED_ROOT_MISSING: CodeInfo(
        _E, "--trusted-root {name}: the folder does not exist or is not a folder."
    ),
    Code.CLI_FOLDER_MISSING: CodeInfo(_E, "{option}: the folder does not exist."),
    Code.CLI_OUTPUT_PARENT_MISSING: CodeInfo(
        _E, "The output's parent folder does not exist; tracekit creates no parent folders."
    ),
    Code.CLI_OUTPUT_IS_FOLDER: CodeInfo(_E, "The output names an existing folder, not a file."),
    Code.CLI_OUTPUT_NOT_REGULAR: CodeInfo(
        _E,
        "The output exists and is not a regular file (a FIFO, device or socket); tracekit never "
        "replaces one, even with --force.",
    ),
    Code.CLI_NOTHING_CHECKED: CodeInfo(
        _E, "No scenario had a trace to check ({count} missing_trace); nothing was checked."
    ),
    Code.VERIFY_NO_INTEGRITY: CodeInfo(
        _W,
        "The file is valid in the {format} format ({episodes} episode(s)), but that format carries "
        "no hashes or signatures: whether it is intact cannot be established.",
    ),
    Code.REPLAY_FORMAT_NOT_REPLAYABLE: CodeInfo(
        _E,
        "Replay recomputes AgentGuard policy verdicts; this file is in the {format} format, which "
        "carries no policy snapshot to replay (tracekit audit reads it).",
    ),
    Code.AUDIT_FORMAT_NO_INTEGRITY: CodeInfo(
        _I,
        "The {format} format carries no hashes or signatures: nothing in the file shows it is "
        "unedited or who wrote it.",
    ),
    Code.AUDIT_EXPORTER_LOSS: CodeInfo(
        _I,
        "The {format} exporter loses evidence by design here ({loss}); the fields it touches are "
        "partial or not carried, not the operator's gap.",
    ),
    Code.CLI_OUTPUT_UNWRITABLE: CodeInfo(
        _E,
        "The output could not be written (permission denied, read-only or special file system, "
        "or no space); no output file was changed.",
    ),
    Code.CLI_OUTPUT_IS_INPUT: CodeInfo(
        _E,
        "The output names a file this command reads; an input is never replaced, even with "
        "--force. Write the report elsewhere.",
    ),
    Code.CLI_UNKNOWN_CODE: CodeInfo(
        _E, "No such code; `tracekit explain --list` lists every code (docs/error-codes.md)."
    ),
    Code.CLI_BAD_VALUE: CodeInfo(_E, "{option} takes {expected}."),
    Code.BUNDLE_NOT_A_CAMPAIGN: CodeInfo(
        _E, "Only a campaign bundle (sealed from a folder) holds findings to prove."
    ),
    # -- metamorphic work budget (phase 3, meta) -------------------------------------------------
    Code.METAMORPHIC_WORK_BUDGET_EXCEEDED: CodeInfo(
        _W,
        "The metamorphic work budget ({limit} bytes of transformed traces per source) was reached: "
        "{cases} case(s) of {sources} source(s) were not run.",
    ),
    # -- agent session transcripts (docs/formats.md, "Claude Code", "Codex CLI", "ATIF") --
    Code.CLAUDE_CODE_TOO_LARGE: CodeInfo(_E, "The Claude Code transcript exceeds the {limit}-byte limit."),
    Code.CLAUDE_CODE_DOCUMENT_TOO_LARGE: CodeInfo(_E, "A JSON document in the Claude Code transcript exceeds the {limit}-byte limit."),
    Code.CLAUDE_CODE_INVALID_JSON: CodeInfo(_E, "The Claude Code transcript holds text that is not valid UTF-8 JSON."),
    Code.CLAUDE_CODE_TOO_DEEP: CodeInfo(_E, "The Claude Code transcript nests JSON deeper than {limit} levels."),
    Code.CLAUDE_CODE_SCHEMA: CodeInfo(_E, "The Claude Code transcript does not match the {format} schema at {field}."),
    Code.CLAUDE_CODE_TOO_MANY_EPISODES: CodeInfo(_E, "The Claude Code transcript holds more than {limit} episodes."),
    Code.CLAUDE_CODE_TOO_MANY_ITEMS: CodeInfo(_E, "An episode of the Claude Code transcript holds more than {limit} items."),
    Code.CLAUDE_CODE_EMPTY: CodeInfo(_E, "The Claude Code transcript holds no records."),
    Code.CLAUDE_CODE_DUPLICATE_KEY: CodeInfo(_E, "A JSON object in the Claude Code transcript repeats a key; readers would disagree on its value."),
    Code.CODEX_TOO_LARGE: CodeInfo(_E, "The Codex rollout exceeds the {limit}-byte limit."),
    Code.CODEX_DOCUMENT_TOO_LARGE: CodeInfo(_E, "A JSON document in the Codex rollout exceeds the {limit}-byte limit."),
    Code.CODEX_INVALID_JSON: CodeInfo(_E, "The Codex rollout holds text that is not valid UTF-8 JSON."),
    Code.CODEX_TOO_DEEP: CodeInfo(_E, "The Codex rollout nests JSON deeper than {limit} levels."),
    Code.CODEX_SCHEMA: CodeInfo(_E, "The Codex rollout does not match the {format} schema at {field}."),
    Code.CODEX_TOO_MANY_EPISODES: CodeInfo(_E, "The Codex rollout holds more than {limit} episodes."),
    Code.CODEX_TOO_MANY_ITEMS: CodeInfo(_E, "An episode of the Codex rollout holds more than {limit} items."),
    Code.CODEX_EMPTY: CodeInfo(_E, "The Codex rollout holds no records."),
    Code.CODEX_DUPLICATE_KEY: CodeInfo(_E, "A JSON object in the Codex rollout repeats a key; readers would disagree on its value."),
    Code.ATIF_TOO_LARGE: CodeInfo(_E, "The ATIF trajectory exceeds the {limit}-byte limit."),
    Code.ATIF_DOCUMENT_TOO_LARGE: CodeInfo(_E, "A JSON document in the ATIF trajectory exceeds the {limit}-byte limit."),
    Code.ATIF_INVALID_JSON: CodeInfo(_E, "The ATIF trajectory holds text that is not valid UTF-8 JSON."),
    Code.ATIF_TOO_DEEP: CodeInfo(_E, "The ATIF trajectory nests JSON deeper than {limit} levels."),
    Code.ATIF_SCHEMA: CodeInfo(_E, "The ATIF trajectory does not match the {format} schema at {field}."),
    Code.ATIF_TOO_MANY_EPISODES: CodeInfo(_E, "The ATIF trajectory holds more than {limit} episodes."),
    Code.ATIF_TOO_MANY_ITEMS: CodeInfo(_E, "An episode of the ATIF trajectory holds more than {limit} items."),
    Code.ATIF_EMPTY: CodeInfo(_E, "The ATIF trajectory holds no records."),
    Code.ATIF_DUPLICATE_KEY: CodeInfo(_E, "A JSON object in the ATIF trajectory repeats a key; readers would disagree on its value."),
    # -- run status of imported files (docs/formats.md, "Run status") ----------------------------
    Code.AUDIT_RUN_NOT_FINISHED: CodeInfo(
        _E,
        "The {format} run did not finish: the tool recorded its status as {status}. What the file "
        "holds is not a complete run, and a sample it does not hold is neither an episode nor "
        "rerunnable.",
    ),
    Code.AUDIT_RUN_SAMPLES_MISSING: CodeInfo(
        _E,
        "The {format} file claims {claimed} sample(s) or attempt(s) in {where} but holds {held}: "
        "the missing ones are not episodes and cannot be rerun from this file.",
    ),
    Code.AUDIT_RUN_TOTALS_CONTRADICT: CodeInfo(
        _E,
        "The {format} file's own totals at {where} contradict its records: the totals count "
        "{claimed}, the records {held} (an edited or spliced file shows up here).",
    ),
    # -- in-toto attestations (docs/attest.md) ---------------------------------------------------
    Code.ATTEST_TOO_LARGE: CodeInfo(_E, "The attestation file exceeds its limit ({limit})."),
    Code.ATTEST_MALFORMED: CodeInfo(
        _E, "Line {line_no} is not an envelope tracekit writes ({rule}; docs/attest.md, verification step {step})."
    ),
    Code.ATTEST_BAD_SIGNATURE: CodeInfo(
        _E, "Line {line_no}: a signature by a trusted key does not verify: the envelope was changed or forged."
    ),
    Code.ATTEST_UNSIGNED: CodeInfo(_W, "{count} envelope(s) carry no signature."),
    Code.ATTEST_UNTRUSTED_KEY: CodeInfo(_W, "{count} envelope(s) are signed by no trusted key."),
    Code.ATTEST_RESULT_NOT_PASSED: CodeInfo(
        _W, "{count} Test Result(s) are not PASSED ({failed} FAILED, {warned} WARNED)."
    ),
    # -- campaign store integrity (docs/threat-model.md, "The campaign store") ---------------------
    Code.STORE_CORRUPT: CodeInfo(
        _E,
        "The campaign store is damaged (truncated, or rows that do not fit its schema); nothing "
        "in it was trusted. Audit into a new store.",
    ),
    Code.STORE_OTHER_ROOT: CodeInfo(
        _E,
        "The campaign store records another campaign folder; audit that folder, use another "
        "store, or pass --new-root to record this folder in it.",
    ),
    Code.STORE_SEAL_MISMATCH: CodeInfo(
        _W,
        "{count} stored result(s) did not match their seal (edited, or written without this "
        "store's key); those files were read and judged again.",
    ),
    Code.CLI_BUNDLE_INPUT: CodeInfo(
        _E,
        "The file is a sealed evidence bundle, not a trace; read it with tracekit verify "
        "or tracekit bundle show.",
    ),
    Code.FORMAT_FORCED_OTHER: CodeInfo(
        _W,
        "Read as the format --input-format names, but the file's first bytes show the {detected} "
        "format: what that format records beyond the forced one (its own verdict, its run facts) "
        "was not read.",
    ),
    Code.HARNESS_COMPATIBLE_NOT_RUN: CodeInfo(
        _I, "{count} assertion(s) did not run: compatible mode reproduces upstream, which does not "
        "implement them; --strict runs them."
    ),
    # -- Inspect archives bounded in memory and checked header by header -------------------------
    Code.INSPECT_LOCAL_HEADER_MISMATCH: CodeInfo(
        _E,
        "A .eval member's local header disagrees with the central directory ({rule}); another "
        "zip reader could see a different member.",
    ),
    Code.INSPECT_FILE_TOO_MANY_ITEMS: CodeInfo(
        _E, "The Inspect log holds more than {limit} messages, events and calls in all."
    ),
    # -- one code per input mistake (docs/cli.md, "One code per mistake") ------------------------
    Code.FORMAT_EMPTY: CodeInfo(_E, "The input is empty (0 bytes)."),
    Code.STORE_OLDER_SCHEMA: CodeInfo(
        _E,
        "The campaign store was written by an older tracekit (schema version {found}; this "
        "tracekit reads {supported}); run `tracekit audit DIR --db FILE` once to upgrade it.",
    ),
    Code.BUNDLE_ORIGINAL_DIGESTS_PUBLISHED: CodeInfo(
        _W,
        "The bundle is of version {version}: {count} withheld original(s) keep their plain SHA-256 "
        "in the signed statement, which confirms a guess of the whole file; seal the trace again "
        "to redact it fully.",
    ),
    # -- the campaign store bounded in memory (docs/campaign-store.md, "Memory") -----------------
    Code.STORE_MEMORY_LIMIT: CodeInfo(
        _E,
        "The campaign store needed more memory than tracekit lets it use ({limit} MiB); what "
        "was committed before is kept. Set TRACEKIT_STORE_MEMORY to more MiB and run again.",
    ),
    Code.STORE_MEMORY_SETTING: CodeInfo(
        _E, "TRACEKIT_STORE_MEMORY must be a whole number of MiB, at least {minimum}."
    ),
}

#: Codes no command emits any more, each with the code that now says the same thing (docs/cli.md,
#: "One code per mistake"). They stay in the catalogue, with their meaning, so that an old report
#: can still be explained; docs/error-codes.md marks them.
RETIRED: dict[Code, Code] = {
    Code.LOAD_UNREADABLE: Code.FORMAT_UNREADABLE,
    Code.HARNESS_SCENARIO_UNREADABLE: Code.FORMAT_UNREADABLE,
    Code.HARNESS_TRACE_UNREADABLE: Code.FORMAT_UNREADABLE,
    Code.BUNDLE_INPUT_UNREADABLE: Code.FORMAT_UNREADABLE,
    Code.STORE_NOT_FOUND: Code.FORMAT_UNREADABLE,
}


class Finding(msgspec.Struct, frozen=True):
    """One diagnostic: a stable code, its severity, the line it concerns and fixed text."""

    code: Code
    severity: Severity
    message: str
    line: int | None = None

    def as_dict(self) -> dict[str, object]:
        """Return the JSON form used by every report."""
        return {
            "code": self.code.value,
            "severity": self.severity.value,
            "line": self.line,
            "message": self.message,
        }


def finding(
    code: Code, line: int | None = None, severity: Severity | None = None, /, **params: int | str
) -> Finding:
    """Build a finding from a code's fixed text.

    ``params`` fill the code's placeholders. Callers pass only integers and names from our own
    schema, never text taken from the input (docs/threat-model.md, "No echo").
    """
    info = CODE_INFO[code]
    message = info.message.format(**params) if params else info.message
    return Finding(code, severity or info.severity, message, line)


class ExitCode(enum.IntEnum):
    """The one exit-code table (README "Exit codes", docs/cli.md): 0 ok, 1 needs action, 2
    malformed, tampered, usage, output or internal error, 130 interrupted."""

    OK = 0
    FAIL = 1
    ERROR = 2
    INTERRUPTED = 130


def worst(*codes: int) -> ExitCode:
    """The worst of several exit codes: 2 beats 1 beats 0 (130 is never combined)."""
    return ExitCode(max((int(c) for c in codes), default=0))


class TracekitError(Exception):
    """Raised when tracekit cannot proceed; carries the finding that explains why."""

    def __init__(self, found: Finding) -> None:
        super().__init__(found.message)
        self.finding = found

    def __reduce__(self) -> tuple[type[TracekitError], tuple[Finding]]:
        """Pickled with its finding, so that an error raised in a worker process arrives whole."""
        return (type(self), (self.finding,))
