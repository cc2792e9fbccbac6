"""Audit third-party traces: can a trace prove its finding? (docs/audit.md)

``audit_agentguard`` and ``audit_harness`` answer, per trace and without the operator: is it
intact, is it internally consistent, does the verdict follow from it, and could a colleague rerun
the finding from it alone. ``sniff`` picks the format from a file's first bytes and
``summarise`` sums a campaign up. Everything here is pure; only ``tracekit.cli.audit_cmd`` reads
files.
"""

from __future__ import annotations

from tracekit.audit.campaign import summarise, worst_exit
from tracekit.audit.engine import audit_agentguard, audit_harness, load_harness, unreadable
from tracekit.audit.model import AuditFinding, AuditReport, FieldStatus
from tracekit.audit.sniff import SNIFF_BYTES, Sniffed, sniff

__all__ = [
    "SNIFF_BYTES",
    "AuditFinding",
    "AuditReport",
    "FieldStatus",
    "Sniffed",
    "audit_agentguard",
    "audit_harness",
    "load_harness",
    "sniff",
    "summarise",
    "unreadable",
    "worst_exit",
]
