"""Store results for the imported formats (Inspect, OTel, AgentDojo, garak): one episode row
per episode of the file's evidence (docs/campaign-store.md, "Episodes").

Pure: takes the :class:`~tracekit.evidence.EvidenceFile` the format layer loaded and returns the
same plain result shape as an audit report (what workers send back), with an ``episodes`` list.
Each episode gets the tool-using completeness profile (tracekit/audit/completeness/episode.py),
its gap findings and the no-integrity note: these formats carry no hashes.

Nothing read from the file is kept as text: the episode's own id is stored as its BLAKE3 digest
(an auditor who knows the id can compute it), and an outcome only when it is one of the fixed
verdict words below.
"""

from __future__ import annotations

from typing import Any

from tracekit.audit.completeness.episode import assess_episode
from tracekit.audit.model import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_UNREADABLE,
    SEVERITY_RANK,
    AuditFinding,
    gap_findings,
    note,
)
from tracekit.errors import Code, Finding, Severity
from tracekit.evidence import Episode, EvidenceFile

OUTCOMES = frozenset({"pass", "fail", "PASS", "FAIL", "error", "hit", "success", "failure"})
"""Recorded outcomes kept verbatim; any other text is stored as None."""


def _id_digest(text: str) -> str:
    from blake3 import blake3

    return blake3(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _episode(episode: Episode, fmt: str) -> dict[str, Any]:
    rows = assess_episode(episode, fmt)
    found: list[AuditFinding] = [note(Code.AUDIT_NO_INTEGRITY), *gap_findings(rows)]
    worst = max((SEVERITY_RANK[f.severity] for f in found), default=0)
    outcome = episode.facts.outcome
    return {
        "episode_id": _id_digest(episode.id),
        "format": fmt,
        "exit_code": EXIT_FINDINGS if worst >= SEVERITY_RANK[Severity.WARNING] else EXIT_OK,
        "readable": True,
        "intact": None,
        "rerunnable": all(r.status == "present" for r in rows if r.needed_to_rerun),
        "outcome": outcome if outcome in OUTCOMES else None,
        "demonstration": None,
        "findings": [f.as_dict() for f in found],
        "completeness": [r.as_dict() for r in rows],
    }


def evidence_result(evidence: EvidenceFile) -> dict[str, Any]:
    """The store result of an imported file: file-level verdict (worst episode) and episodes."""
    episodes = [_episode(ep, evidence.format) for ep in evidence.episodes]
    return {
        "format": evidence.format,
        "format_version": evidence.format_version,
        "exit_code": max((e["exit_code"] for e in episodes), default=EXIT_OK),
        "readable": True,
        "intact": None,
        "rerunnable": bool(episodes) and all(e["rerunnable"] for e in episodes),
        "episodes": episodes,
        "findings": [],
        "completeness": [],
    }


def format_error_result(fmt: str, found: Finding) -> dict[str, Any]:
    """The store result of a file its detected format refuses (exit 2, one finding)."""
    return {
        "format": fmt,
        "exit_code": EXIT_UNREADABLE,
        "readable": False,
        "intact": None,
        "rerunnable": False,
        "findings": [{**found.as_dict(), "where": None}],
        "completeness": [],
    }
