"""``diff-size``: no non-null limit on files changed, lines added or lines deleted is exceeded
(docs/replay.md, "The seven checks"). Files are counted from the reconstructed changed files;
lines come from the
completion summary's totals. A limit equal to the value passes (the test is ``>``).
"""

from __future__ import annotations

from dataclasses import dataclass

from tracekit.formats.agentguard.schema.agentguard import PolicySnapshot
from tracekit.judging.replay.checks.base import Decision, Work
from tracekit.judging.replay.evidence import Evidence

PASS_MESSAGE = "Diff size stayed within configured limits."
FAIL_MESSAGE = "Diff size exceeded configured limits."


@dataclass(frozen=True, slots=True)
class DiffSize:
    id: str = "diff-size"
    name: str = "Diff size"
    default_severity: str = "warning"

    def evaluate(
        self, evidence: Evidence, policy: PolicySnapshot, work: Work | None = None
    ) -> Decision:
        del work  # no pattern matching, and at most three evidence lines
        files = len(evidence.changed_files)
        lines: list[str] = []
        if policy.max_files_changed is not None and files > policy.max_files_changed:
            lines.append(f"Changed {files} files; limit is {policy.max_files_changed}.")
        if policy.max_lines_added is not None and evidence.lines_added > policy.max_lines_added:
            lines.append(f"Added {evidence.lines_added} lines; limit is {policy.max_lines_added}.")
        if (
            policy.max_lines_deleted is not None
            and evidence.lines_deleted > policy.max_lines_deleted
        ):
            lines.append(
                f"Deleted {evidence.lines_deleted} lines; limit is {policy.max_lines_deleted}."
            )
        if not lines:
            return Decision(True, PASS_MESSAGE)
        return Decision(False, FAIL_MESSAGE, tuple(lines))


CHECK = DiffSize()
