"""``forbidden-paths``: no changed file may match a ``forbidden_paths`` pattern
(docs/replay.md, "The seven checks").

Evidence lists each matching path once, in changed-file order (modified + added + deleted). The
failure message names the paths, as upstream's does.
"""

from __future__ import annotations

from dataclasses import dataclass

from tracekit.formats.agentguard.schema.agentguard import PolicySnapshot
from tracekit.judging.replay.checks.base import Decision, Work, decided
from tracekit.judging.replay.evidence import Evidence
from tracekit.judging.replay.matching import PathPatterns

PASS_MESSAGE = "No forbidden paths were modified."
FAIL_PREFIX = "Forbidden paths modified: "


@dataclass(frozen=True, slots=True)
class ForbiddenPaths:
    id: str = "forbidden-paths"
    name: str = "Forbidden paths"
    default_severity: str = "critical"

    def evaluate(
        self, evidence: Evidence, policy: PolicySnapshot, work: Work | None = None
    ) -> Decision:
        work = work or Work()
        patterns = PathPatterns(policy.forbidden_paths, work.meter)
        matches = [path for path in evidence.changed_files if patterns.any(path, work.meter)]
        if not matches:
            return Decision(True, PASS_MESSAGE)
        return decided(False, FAIL_PREFIX + ", ".join(matches), matches, work)


CHECK = ForbiddenPaths()
