"""Metamorphic robustness sweeps (docs/metamorphic.md).

A transform rewrites a verified trace's typed records (re-chaining them with the verifier's own
hashing); the transformed trace is verified and replayed, and the case passes when the relation
the transform declares holds: preserving transforms keep the recomputed outcome, changing
transforms move a named check, invalid transforms are rejected by verify.
"""

from __future__ import annotations

from tracekit.judging.metamorphic.base import (
    Klass,
    NotApplicable,
    Relation,
    RelationKind,
    Transform,
)
from tracekit.judging.metamorphic.cases import (
    CaseResult,
    SkippedSource,
    StudyConfig,
    TraceResult,
    TraceTask,
    run_trace,
)
from tracekit.judging.metamorphic.registry import BY_NAME, NAMES, REGISTRY, select
from tracekit.judging.metamorphic.report import StudyReport
from tracekit.judging.metamorphic.runner import run_study
from tracekit.judging.metamorphic.study import Tally, study_id, study_path

__all__ = [
    "BY_NAME",
    "NAMES",
    "REGISTRY",
    "CaseResult",
    "Klass",
    "NotApplicable",
    "Relation",
    "RelationKind",
    "SkippedSource",
    "StudyConfig",
    "StudyReport",
    "Tally",
    "TraceResult",
    "TraceTask",
    "Transform",
    "run_study",
    "run_trace",
    "select",
    "study_id",
    "study_path",
]
