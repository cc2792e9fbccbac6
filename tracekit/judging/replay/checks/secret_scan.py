"""``secret-scan``: no changed file may match a ``secret_patterns`` pattern
(docs/replay.md, "The seven checks").

Only the path-based scan can be replayed: the snapshot never records the secret-*content*
patterns, and the trace never holds file content. Evidence is one line per (path, pattern) pair,
paths in changed-file order and patterns in snapshot order.

Upstream replay substitutes the *recorded* Secret scan result whenever its message mentions
"content-based" or "scan was incomplete", so a forged message bypasses recomputation
(docs/threat-model.md, "replayability and replay"). tracekit does not: such a trace is not
replayable (``replay.secret_scan_not_recomputable``,
replayability.py), and this check only ever reports what it computed.
"""

from __future__ import annotations

from dataclasses import dataclass

from tracekit.formats.agentguard.schema.agentguard import PolicySnapshot
from tracekit.judging.replay.checks.base import Decision, Work, decided
from tracekit.judging.replay.evidence import Evidence
from tracekit.judging.replay.matching import PathPatterns

PASS_MESSAGE = "No path-based secret patterns appeared in the diff."
FAIL_MESSAGE = "Path-based secret pattern appeared in the diff."
UNRECOMPUTABLE_MARKERS = ("content-based", "scan was incomplete")
"""Lower-case substrings of a recorded message that mark a scan replay cannot reproduce."""


def recorded_message_unrecomputable(message: str) -> bool:
    """True when a recorded Secret scan message reports content-based or incomplete scanning."""
    lowered = message.lower()
    return any(marker in lowered for marker in UNRECOMPUTABLE_MARKERS)


@dataclass(frozen=True, slots=True)
class SecretScan:
    id: str = "secret-scan"
    name: str = "Secret scan"
    default_severity: str = "critical"

    def evaluate(
        self, evidence: Evidence, policy: PolicySnapshot, work: Work | None = None
    ) -> Decision:
        work = work or Work()
        patterns = PathPatterns(policy.secret_patterns, work.meter)
        lines = (
            f"{path} matched pattern {pattern}"
            for path in evidence.changed_files
            for pattern in patterns.matching(path, work.meter)
        )
        found = decided(False, FAIL_MESSAGE, lines, work)
        return found if found.evidence else Decision(True, PASS_MESSAGE)


CHECK = SecretScan()
