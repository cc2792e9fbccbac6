"""Store results for the imported formats (Inspect, OTel, AgentDojo, garak): one episode row
per episode of the file's evidence (docs/campaign-store.md, "Episodes").

Pure: takes the :class:`~tracekit.evidence.EvidenceFile` the format layer loaded and returns the
same plain result shape as an audit report (what workers send back), with an ``episodes`` list.
Each episode is converted once, by the audit's own per-episode step
(:func:`tracekit.audit.imported.audit_episode`: the tool-using completeness profile, the evidence
consistency findings and the gap findings), plus the no-integrity note: these formats carry no
hashes.

Nothing read from the file is kept as text: the episode's own id is stored as its BLAKE3 digest
(an auditor who knows the id can compute it), and an outcome only when it is one of the audit's
fixed verdict words.
"""

from __future__ import annotations

from typing import Any

import msgspec

from tracekit.audit.imported import audit_episode, recorded_outcome
from tracekit.audit.model import EXIT_OK, EXIT_UNREADABLE, audit_report, located, note
from tracekit.errors import Code, Finding
from tracekit.evidence import Episode, EvidenceFile


def _id_digest(text: str) -> str:
    from blake3 import blake3

    return blake3(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _plain(value: object) -> list[Any]:
    """A tuple of Structs as the JSON value the store keeps (lists of objects)."""
    return msgspec.json.decode(msgspec.json.encode(value), type=list[Any])


def _episode(episode: Episode, fmt: str) -> dict[str, Any]:
    audited, _ = audit_episode(episode, fmt)
    report = audit_report(
        "",
        "unknown",
        readable=True,
        intact=None,
        findings=(note(Code.AUDIT_NO_INTEGRITY), *audited.findings),
        completeness=audited.completeness,
    )
    return {
        "episode_id": _id_digest(episode.id),
        "format": fmt,
        "exit_code": report.exit_code,
        "readable": True,
        "intact": None,
        "rerunnable": report.rerunnable,
        "outcome": recorded_outcome(episode),
        "demonstration": None,
        "findings": _plain(report.findings),
        "completeness": _plain(report.completeness),
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
        "findings": _plain((located(found),)),
        "completeness": [],
    }
