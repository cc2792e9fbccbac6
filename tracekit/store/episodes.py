"""Store results for the imported formats (Inspect, OTel, AgentDojo, garak): the report plain
``tracekit audit`` gives the file, kept as one episode row per episode of its evidence
(docs/campaign-store.md, "Episodes").

Pure: runs plain ``audit``'s streaming audit over the file's episodes as the format layer reads
them (with the run's scenario) and returns the plain result workers send back, without its
episodes, and what turns each episode's audit into its plain row, one at a time (the worker
spools them: tracekit/cli/store_io.py). Never are a file's episodes all held:

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
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

import msgspec

from tracekit.formats.base import EpisodeStream
from tracekit.judging.audit.imported import recorded_outcome
from tracekit.judging.audit.model import (
    AuditFinding,
    AuditReport,
    EpisodeAudit,
    audit_report,
    note,
)
from tracekit.kernel.errors import Code
from tracekit.kernel.evidence import Episode

_EPISODE_AT = re.compile(r"episodes\[(\d+)\]")


_encode = msgspec.json.Encoder().encode

MADE_HELD = 1024
"""Distinct (completeness, findings, extra findings) an imported file's episodes share, whose
store JSON is remembered at once (:meth:`StreamedResult.episodes`)."""


def _plain(value: object) -> list[Any]:
    """A tuple of Structs as the JSON value the store keeps (lists of objects)."""
    return msgspec.json.decode(_encode(value), type=list[Any])


Made = dict[tuple[Any, ...], tuple[Any, ...]]
"""Per file: (ids of the episode's completeness and findings, its extra findings) -> (those two
objects, held so that their ids stay theirs; exit code; rerunnable; findings and completeness
as the store's JSON; the detail's number in the file)."""


def _judged(audited: EpisodeAudit, extra: list[AuditFinding], made: Made) -> tuple[Any, ...]:
    """What an episode's audit makes of its findings and completeness: made once per distinct
    pair (a file's episodes share a few, each the same objects: cli/audit_spool.py)."""
    key = (id(audited.completeness), id(audited.findings), tuple(extra))
    kept = made.get(key)
    if kept is None:
        number = made.get(_COUNT, (0,))[0]
        if len(made) > MADE_HELD:
            made.clear()
        made[_COUNT] = (number + 1,)
        report = audit_report(
            "", "unknown", readable=True, intact=None,
            findings=(note(Code.AUDIT_NO_INTEGRITY), *audited.findings, *extra),
            completeness=audited.completeness,
        )
        kept = made[key] = (
            audited.completeness, audited.findings, report.exit_code, report.rerunnable,
            msgspec.Raw(_encode(report.findings)), msgspec.Raw(_encode(report.completeness)),
            number,
        )
        return (*kept, True)
    return (*kept, False)


_COUNT = ("count",)
"""The key under which a file's :data:`Made` counts its details."""


def _episode(
    outcome: str | None, audited: EpisodeAudit, fmt: str, extra: list[AuditFinding],
    verdict: str | None, made: Made,
) -> dict[str, Any]:
    """An episode's store row: its findings and completeness as JSON (``msgspec.Raw``) and the
    number of that detail in the file (``detail``), or, when an earlier episode of the file
    had the same and :data:`MADE_HELD` did not forget it since, that number alone (the
    reader, cli/store_io.py, hands the store the same JSON again)."""
    kept = _judged(audited, extra, made)
    out = {
        "episode_id": audited.id,
        "format": fmt,
        "exit_code": kept[2],
        "readable": True,
        "intact": None,
        "rerunnable": kept[3],
        "outcome": outcome,
        "demonstration": None,
        "detail": kept[6],
    }
    if kept[7]:
        out["findings"], out["completeness"] = kept[4], kept[5]
    if verdict is not None:
        out["harness"] = {"result": verdict}
    return out


def _file_level(report: AuditReport, held: set[str], count: int) -> list[list[AuditFinding]]:
    """The report's file-level findings that no episode holds (``held``: every code the
    episodes hold), by the episode they go to."""
    out: list[list[AuditFinding]] = [[] for _ in range(max(count, 1))]
    for found in report.findings:
        if found.code in held:
            continue
        at = _EPISODE_AT.match(found.where or "")
        index = int(at.group(1)) if at and int(at.group(1)) < count else 0
        out[index].append(found)
    return out


Audit = Callable[[EpisodeStream, Callable[[EpisodeAudit], None]], tuple[AuditReport, list[int]]]
"""Plain ``audit``'s streaming audit (``audit_stream``): each episode's audit handed to the sink
as it is made; the report without them, and the order to put them in."""


class StreamedResult(NamedTuple):
    """An imported file's store result without its episodes, and what makes each episode's
    row from its audit (:meth:`episodes`)."""

    result: dict[str, Any]
    order: list[int]
    """The sink's episodes' positions as they came, in the file's order."""
    outcomes: list[str | None]
    """Each episode's recorded outcome, as they came."""
    extras: list[list[AuditFinding]]
    verdicts: tuple[str, ...] | None
    fmt: str

    def episodes(self, audits: Iterable[EpisodeAudit]) -> Iterator[dict[str, Any]]:
        """Each episode of the store result, from its audit (``audits``: the sink's, in the
        file's order, read one at a time)."""
        verdicts, made = self.verdicts, Made()
        for i, audited in enumerate(audits):
            verdict = verdicts[i] if verdicts is not None and i < len(verdicts) else None
            yield _episode(
                self.outcomes[self.order[i]], audited, self.fmt, self.extras[i], verdict, made
            )


def stream_result(stream: EpisodeStream, audit: Audit, keep: Callable[[EpisodeAudit], None]) -> StreamedResult:
    """The store result of a file read one episode at a time (docs/formats.md, "Streaming
    episodes"): ``audit`` (plain ``audit``'s) consumes the stream and hands each episode's audit
    to ``keep`` as it is made; only each episode's recorded outcome and the codes its findings
    hold are kept here."""
    outcomes: list[str | None] = []
    held: set[str] = set()

    def noted(pairs: Iterable[tuple[Any, Episode]]) -> Iterator[tuple[Any, Episode]]:
        for key, episode in pairs:
            outcomes.append(recorded_outcome(episode))
            yield key, episode

    def sink(audited: EpisodeAudit) -> None:
        held.update(f.code for f in audited.findings)
        keep(audited)

    noting = EpisodeStream(stream.format, stream.format_version, noted(stream.pairs), stream.run_problems)
    report, order = audit(noting, sink)
    count = len(order)
    extras = _file_level(report, held, count)
    judged = report.harness.episodes if report.harness and report.harness.episodes else None
    result: dict[str, Any] = {
        "format": stream.format,
        "format_version": stream.format_version,
        "exit_code": report.exit_code,
        "readable": True,
        "intact": None,
        "rerunnable": report.rerunnable,
        "findings": [],
        "completeness": [],
    }
    if not count:
        # No episode to hold them: the file's own findings are its one row (ingest.rows_for).
        result["findings"] = _plain(extras[0])
        result["completeness"] = _plain(report.completeness)
    verdicts = tuple(str(j.result) for j in judged) if judged is not None else None
    return StreamedResult(result, order, outcomes, extras, verdicts, stream.format)
