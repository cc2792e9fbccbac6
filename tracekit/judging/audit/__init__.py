"""Audit third-party traces: can a trace prove its finding? (docs/audit.md)

``audit_agentguard`` and ``audit_harness`` answer, per trace and without the operator: is it
intact, is it internally consistent, does the verdict follow from it, and could a colleague rerun
the finding from it alone; ``audit_evidence`` (tracekit/judging/audit/imported.py) audits a file of an
imported format per episode; ``Tally`` sums a campaign up as reports arrive. The format is
decided once, for every command, by tracekit.formats.registry (docs/formats.md, "Detection").
Everything here is pure; only ``tracekit.cli.audit_io`` reads files.

The names below load on first use, so that importing one module of the package (the report
model, say) does not load the engine, replay and the harness package with it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tracekit.judging.audit.campaign import CampaignSummary, Tally, summarise
    from tracekit.judging.audit.engine import (
        audit_agentguard,
        audit_harness,
        load_harness,
        unreadable,
    )
    from tracekit.judging.audit.model import AuditFinding, AuditReport, FieldStatus, with_episodes

_WHERE = {
    "CampaignSummary": "campaign",
    "Tally": "campaign",
    "summarise": "campaign",
    "audit_agentguard": "engine",
    "audit_harness": "engine",
    "load_harness": "engine",
    "unreadable": "engine",
    "AuditFinding": "model",
    "AuditReport": "model",
    "FieldStatus": "model",
    "with_episodes": "model",
}

__all__ = [
    "AuditFinding",
    "AuditReport",
    "CampaignSummary",
    "FieldStatus",
    "Tally",
    "audit_agentguard",
    "audit_harness",
    "load_harness",
    "summarise",
    "unreadable",
    "with_episodes",
]


def __getattr__(name: str) -> object:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(name)
    value = getattr(importlib.import_module(f"tracekit.judging.audit.{module}"), name)
    globals()[name] = value  # found directly from now on: a campaign imports it once per file
    return value
