"""Audit third-party traces: can a trace prove its finding? (docs/audit.md)

``audit_agentguard`` and ``audit_harness`` answer, per trace and without the operator: is it
intact, is it internally consistent, does the verdict follow from it, and could a colleague rerun
the finding from it alone; ``audit_evidence`` (tracekit/audit/imported.py) audits a file of an
imported format per episode; ``summarise`` sums a campaign up. The format is decided once, for
every command, by tracekit.formats.registry (docs/formats.md, "Detection"). Everything here is
pure; only ``tracekit.cli.audit_io`` reads files.
"""

from __future__ import annotations

from tracekit.audit.campaign import summarise, worst_exit
from tracekit.audit.engine import audit_agentguard, audit_harness, load_harness, unreadable
from tracekit.audit.model import AuditFinding, AuditReport, FieldStatus

__all__ = [
    "AuditFinding",
    "AuditReport",
    "FieldStatus",
    "audit_agentguard",
    "audit_harness",
    "load_harness",
    "summarise",
    "unreadable",
    "worst_exit",
]
