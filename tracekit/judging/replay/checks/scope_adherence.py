"""``scope-adherence``: the number of changed files lies in [min, max] and every changed file
matches an ``allowed_paths`` pattern (docs/replay.md, "The seven checks").

Evidence order: the lower bound, the upper bound, then one line per file outside the allowed
paths in changed-file order. An empty ``allowed_paths`` allows nothing, as upstream.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from tracekit.formats.agentguard.schema.agentguard import PolicySnapshot
from tracekit.judging.replay.checks.base import Decision, Work, decided
from tracekit.judging.replay.evidence import Evidence
from tracekit.judging.replay.matching import PathPatterns

PASS_MESSAGE = "Changed files stayed within the configured scope."
FAIL_MESSAGE = "Changed files did not fully match the configured scope."


@dataclass(frozen=True, slots=True)
class ScopeAdherence:
    id: str = "scope-adherence"
    name: str = "Scope adherence"
    default_severity: str = "warning"

    def evaluate(
        self, evidence: Evidence, policy: PolicySnapshot, work: Work | None = None
    ) -> Decision:
        work = work or Work()
        allowed = PathPatterns(policy.allowed_paths, work.meter)
        changed = evidence.changed_files
        count = len(changed)
        lines: list[str] = []
        if count < policy.expected_modified_files_min:
            lines.append(
                f"Modified {count} files; expected at least {policy.expected_modified_files_min}."
            )
        if count > policy.expected_modified_files_max:
            lines.append(
                f"Modified {count} files; expected at most {policy.expected_modified_files_max}."
            )
        outside = (
            f"Outside allowed paths: {path}"
            for path in changed
            if not allowed.any(path, work.meter)
        )
        found = decided(False, FAIL_MESSAGE, itertools.chain(lines, outside), work)
        return found if found.evidence else Decision(True, PASS_MESSAGE)


CHECK = ScopeAdherence()
