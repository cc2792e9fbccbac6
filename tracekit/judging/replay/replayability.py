"""Can this verified trace be replayed offline? Every reason, with a stable code
(docs/replay.md, "Replayability").

A trace is replayable when no policy input is missing and no reason stands against it. The rules,
in the order they are reported:

1. schema v1 is never replayable (it has no policy snapshot; defaults are not inferred);
2. a v2/v3 header without a snapshot misses ``policy_snapshot``;
3. non-empty ``redacted_inputs``;
4. ``command_policy_patterns`` differing from ``unsafe_commands``;
5. enabled checks that are not registered;
6. an enabled, registered check without a severity misses ``severity:<id>``;
7. ``score_weights`` whose key set is not exactly {critical, error, warning, info};
8. a truthy truncation flag in an agent_command, test_result or check_result event, or a
   truncated ``modified_files`` summary;
9. (tracekit) a recorded Secret scan that reports content-based or incomplete scanning: it cannot
   be recomputed from the trace, and tracekit will not substitute the recorded result;
10. (tracekit) evidence that cannot be reconstructed consistently (evidence.py);
11. with ``--strict-sources``, a verify exit code of 1.

Messages are fixed text with counts and our own schema names only; an id appears in a message or
in ``missing_inputs`` only when it is one of the registered check ids (no echo of the input).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
from msgspec import UNSET

from tracekit.formats.agentguard.records import EventRecord
from tracekit.formats.agentguard.schema import agentguard as ag
from tracekit.judging.replay.checks import BY_ID, CHECK_IDS
from tracekit.judging.replay.checks.secret_scan import recorded_message_unrecomputable
from tracekit.judging.replay.evidence import Reconstruction
from tracekit.judging.replay.grouping import TRUNCATION_EVENTS, EventGroups, grouped
from tracekit.judging.replay.scorer import SEVERITIES
from tracekit.kernel.errors import Code, Finding, finding

V1_MISSING_INPUTS = (
    "policy_snapshot",
    "enabled_checks",
    "check_severities",
    "score_weights",
    "path_patterns",
    "diff_thresholds",
    "expected_modified_file_bounds",
)
"""What a v1 trace lacks, in upstream's words."""



class Replayability(msgspec.Struct, frozen=True):
    """The replayability verdict: replayable iff no missing input and no reason."""

    missing_inputs: tuple[str, ...]
    reasons: tuple[Finding, ...]
    supported_checks: tuple[str, ...] = CHECK_IDS

    @property
    def replayable(self) -> bool:
        """True when no input is missing and no reason stands against replaying."""
        return not self.missing_inputs and not self.reasons


def assess(
    header: ag.Header,
    events: Sequence[EventRecord] | EventGroups,
    reconstruction: Reconstruction,
    *,
    verify_exit_code: int,
    strict_sources: bool,
) -> Replayability:
    """Decide replayability from a verified trace's header, typed events (or those events
    grouped by type) and reconstruction."""
    groups = grouped(events)
    if header.schema_version == 1:
        return Replayability(V1_MISSING_INPUTS, (finding(Code.REPLAY_NOT_REPLAYABLE_V1, 1),))
    missing: list[str] = []
    reasons: list[Finding] = []
    snapshot = header.policy_snapshot
    if snapshot is UNSET:
        missing.append("policy_snapshot")
        reasons.append(finding(Code.REPLAY_MISSING_POLICY_SNAPSHOT, 1))
    else:
        _snapshot_reasons(snapshot, missing, reasons)
    reasons.extend(_truncation_reasons(groups))
    secret = [
        e
        for e in groups.of("check_result")
        if isinstance(e.payload, ag.CheckResult)
        and e.payload.name in ("secret-scan", BY_ID["secret-scan"].name)
        and recorded_message_unrecomputable(e.payload.message)
    ]
    if secret:
        reasons.append(finding(Code.REPLAY_SECRET_SCAN_NOT_RECOMPUTABLE, secret[0].line))
    reasons.extend(reconstruction.blocking)
    if strict_sources and verify_exit_code == 1:
        reasons.append(finding(Code.REPLAY_STRICT_SOURCES))
    return Replayability(tuple(missing), tuple(reasons))


def _snapshot_reasons(
    snapshot: ag.PolicySnapshot, missing: list[str], reasons: list[Finding]
) -> None:
    if snapshot.redacted_inputs:
        reasons.append(finding(Code.REPLAY_REDACTED_INPUTS, 1, count=len(snapshot.redacted_inputs)))
    if snapshot.command_policy_patterns != snapshot.unsafe_commands:
        reasons.append(finding(Code.REPLAY_COMMAND_PATTERNS_DIFFER, 1))
    unknown = set(snapshot.enabled_checks) - set(CHECK_IDS)
    if unknown:
        reasons.append(finding(Code.REPLAY_UNKNOWN_CHECK, 1, count=len(unknown)))
    for check_id in CHECK_IDS:  # registry order, so the report order is stable
        if check_id in snapshot.enabled_checks and check_id not in snapshot.severities:
            missing.append(f"severity:{check_id}")
            reasons.append(finding(Code.REPLAY_MISSING_SEVERITY, 1, check=check_id))
    if set(snapshot.score_weights) != SEVERITIES:
        missing.append("score_weights")
        reasons.append(finding(Code.REPLAY_SCORE_WEIGHTS, 1))


def _truncation_reasons(groups: EventGroups) -> list[Finding]:
    found = []
    for kind in TRUNCATION_EVENTS:
        hit = groups.truncated[kind].hit()
        if hit is not None:
            found.append(
                finding(Code.REPLAY_TRUNCATED_EVIDENCE, hit[0], event_type=kind, count=hit[1])
            )
    for event in groups.of("execution_completed"):
        payload = event.payload
        if isinstance(payload, ag.ExecutionCompleted) and payload.modified_files.truncated:
            found.append(finding(Code.REPLAY_TRUNCATED_MODIFIED_FILES, event.line))
    return found
