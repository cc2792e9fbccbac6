"""Store results for the imported formats (Inspect, OTel, AgentDojo, garak): the report plain
``tracekit audit`` gives the file, kept as one episode row per episode of its evidence
(docs/campaign-store.md, "Episodes").

Pure: takes the :class:`~tracekit.kernel.evidence.EvidenceFile` the format layer loaded and the
:class:`~tracekit.judging.audit.model.AuditReport` that ``audit`` built from it (with the run's
scenario), and returns the plain result shape workers send back, with an ``episodes`` list:

* the file's exit code, readability and rerunnability are the report's, so a stored run exits
  as plain ``audit`` does;
* each episode holds the report's per-episode completeness and findings, plus
  ``audit.no_integrity`` (these formats carry no hashes) and, with a scenario, the episode's
  ``check`` verdict;
* a file-level finding of the report that no episode holds (a scenario disagreement, an
  exporter loss, the format note) is kept on the episode it is located at (``episodes[i]``),
  else on episode 0, so the store holds every code plain ``audit`` reports.

Nothing read from the file is kept as free text: the episode's id is the one every report prints
(docs/cli.md, "Episode ids": the format's own id only when it is at most 64 characters of
``[A-Za-z0-9._:-]``, else a short digest of it), and an outcome only when it is one of the audit's
fixed verdict words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import msgspec

from tracekit.formats.base import EpisodeStream, in_order
from tracekit.judging.audit.imported import recorded_outcome
from tracekit.judging.audit.model import (
    AuditFinding,
    AuditReport,
    EpisodeAudit,
    audit_report,
    note,
)
from tracekit.kernel.errors import Code
from tracekit.kernel.evidence import Episode, EvidenceFile

_EPISODE_AT = re.compile(r"episodes\[(\d+)\]")


def _plain(value: object) -> list[Any]:
    """A tuple of Structs as the JSON value the store keeps (lists of objects)."""
    return msgspec.json.decode(msgspec.json.encode(value), type=list[Any])


def _episode(
    outcome: str | None, audited: EpisodeAudit, fmt: str, extra: list[AuditFinding],
    verdict: str | None,
) -> dict[str, Any]:
    report = audit_report(
        "", "unknown", readable=True, intact=None,
        findings=(note(Code.AUDIT_NO_INTEGRITY), *audited.findings, *extra),
        completeness=audited.completeness,
    )
    out = {
        "episode_id": audited.id,
        "format": fmt,
        "exit_code": report.exit_code,
        "readable": True,
        "intact": None,
        "rerunnable": report.rerunnable,
        "outcome": outcome,
        "demonstration": None,
        "findings": _plain(report.findings),
        "completeness": _plain(report.completeness),
    }
    if verdict is not None:
        out["harness"] = {"result": verdict}
    return out


def _file_level(report: AuditReport, count: int) -> list[list[AuditFinding]]:
    """The report's file-level findings that no episode holds, by the episode they go to."""
    held = {f.code for e in report.episodes for f in e.findings}
    out: list[list[AuditFinding]] = [[] for _ in range(max(count, 1))]
    for found in report.findings:
        if found.code in held:
            continue
        at = _EPISODE_AT.match(found.where or "")
        index = int(at.group(1)) if at and int(at.group(1)) < count else 0
        out[index].append(found)
    return out


def evidence_result(evidence: EvidenceFile, report: AuditReport) -> dict[str, Any]:
    """The store result of an imported file: ``report`` (plain ``audit``'s, from ``evidence``)
    with one row per episode."""
    outcomes = [recorded_outcome(e) for e in evidence.episodes]
    return _result(evidence.format, evidence.format_version, outcomes, report)


def stream_result(stream: EpisodeStream, audit: Callable[[EpisodeStream], AuditReport]) -> dict[str, Any]:
    """:func:`evidence_result` of a file read one episode at a time (docs/formats.md,
    "Streaming episodes"): ``audit`` (plain ``audit``'s) consumes the stream, and only each
    episode's recorded outcome is kept beside it."""
    seen: list[tuple[Any, str | None]] = []

    def noted(pairs: Iterable[tuple[Any, Episode]]) -> Iterator[tuple[Any, Episode]]:
        for key, episode in pairs:
            seen.append((key, recorded_outcome(episode)))
            yield key, episode

    report = audit(EpisodeStream(stream.format, stream.format_version, noted(stream.pairs), stream.run_problems))
    return _result(stream.format, stream.format_version, in_order(seen), report)


def _result(fmt: str, version: str | None, outcomes: Sequence[str | None], report: AuditReport) -> dict[str, Any]:
    count = len(outcomes)
    extras = _file_level(report, count)
    judged = report.harness.episodes if report.harness and report.harness.episodes else None
    episodes = [
        _episode(
            outcome, audited, fmt, extras[i],
            str(judged[i].result) if judged is not None and i < len(judged) else None,
        )
        for i, (outcome, audited) in enumerate(zip(outcomes, report.episodes, strict=True))
    ]
    result: dict[str, Any] = {
        "format": fmt,
        "format_version": version,
        "exit_code": report.exit_code,
        "readable": True,
        "intact": None,
        "rerunnable": report.rerunnable,
        "episodes": episodes,
        "findings": [],
        "completeness": [],
    }
    if not episodes:
        # No episode to hold them: the file's own findings are its one row (ingest.episodes_of).
        result["findings"] = _plain(extras[0])
        result["completeness"] = _plain(report.completeness)
    return result
