"""Offline replay of AgentGuard policy checks (docs/replay.md).

``replay(verify_report)`` rebuilds the evidence from a verified trace, decides whether the trace
is replayable, reruns the seven registered checks with the trace's policy snapshot, scores them
and compares the result with what the trace recorded. Nothing is executed and nothing is read but
the trace.
"""

from __future__ import annotations

from tracekit.judging.replay.document import (
    ReplayabilityDocument,
    ReplayDocument,
    ReplaySummary,
    replay_document,
    replay_summary,
    replayability_document,
)
from tracekit.judging.replay.engine import REPORT_VERSION, ReplayReport, evaluate, replay
from tracekit.judging.replay.equivalence import CheckComparison, Difference, Equivalence
from tracekit.judging.replay.replayability import Replayability
from tracekit.judging.replay.results import CheckOutcome, Verdict

__all__ = [
    "REPORT_VERSION",
    "CheckComparison",
    "CheckOutcome",
    "Difference",
    "Equivalence",
    "ReplayDocument",
    "ReplayReport",
    "ReplaySummary",
    "Replayability",
    "ReplayabilityDocument",
    "Verdict",
    "evaluate",
    "replay",
    "replay_document",
    "replay_summary",
    "replayability_document",
]
