"""From an audit result to store rows, one at a time (docs/campaign-store.md, "Schema").

Only the coordinator calls this: workers return audit results (plain data) and never open the
store. The rows come as the result's episodes are read, so a file of many episodes is never
held as rows at once; the writer (tracekit/store/writer.py) puts them in the file's
transaction as they come.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NamedTuple

from tracekit.judging.audit.consistency import CONSISTENCY_CODES
from tracekit.judging.audit.model import FAILURE_MODE_CODES
from tracekit.kernel.episode_id import UNNAMED, episode_label
from tracekit.kernel.errors import Code

NOT_A_TRACE = "not_a_trace"
"""The format recorded for a file found by walking that is not a trace at all (skipped)."""
POLICIES = (
    "integrity", "consistency", "replay", "completeness", "failure_modes", "outcome", "format",
    "other",
)
"""The check families a finding's ``policy`` names (docs/campaign-store.md, "Policies")."""
_INTEGRITY_PREFIXES = ("load.", "json.", "schema.", "path.", "structure.", "chain.", "source.")
_OUTCOME = frozenset(
    {Code.AUDIT_OUTCOME_MISMATCH, Code.AUDIT_OUTCOME_REPRODUCED, Code.AUDIT_SCENARIO_NOT_APPLICABLE}
)
_COMPLETENESS = frozenset(
    {Code.AUDIT_FIELD_MISSING, Code.AUDIT_FIELD_PARTIAL, Code.AUDIT_FIELD_NOT_CARRIED}
)

Hook = Callable[[str, int], None]
"""Called at ``before_commit`` / ``after_commit`` with the number of files committed so far
(including this batch): the fault-injection point the crash tests use."""


def policy_of(code: str) -> str:
    """The check family of a finding code, from :data:`POLICIES`."""
    if code in _COMPLETENESS:
        return "completeness"
    if code in CONSISTENCY_CODES:
        return "consistency"
    if code in FAILURE_MODE_CODES or code == Code.AUDIT_REPEATED_FINDING:
        return "failure_modes"
    if code in _OUTCOME:
        return "outcome"
    if code.startswith("replay."):
        return "replay"
    if code.startswith(_INTEGRITY_PREFIXES) or code in (
        Code.AUDIT_INTEGRITY_NOT_AUTHENTICITY, Code.AUDIT_NO_INTEGRITY,
    ):
        return "integrity"
    if code.startswith(("harness.", "format.")) or code == Code.AUDIT_UNKNOWN_FORMAT:
        return "format"
    return "other"


def rollback(con: Any) -> None:
    """Roll back the open transaction, if any (a failed COMMIT may have ended it already)."""
    import contextlib

    with contextlib.suppress(Exception):
        con.execute("ROLLBACK")


def _verify_verdict(episode: Mapping[str, Any]) -> str:
    if not episode["readable"]:
        return "unreadable"
    if episode["intact"] is None:
        return "no_integrity"
    return "intact" if episode["intact"] else "not_intact"


def _verdicts(rid: str, index: int, episode: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    rows: list[tuple[Any, ...]] = [(rid, index, "verify", _verify_verdict(episode))]
    replay = episode.get("replay")
    if replay is not None:
        verdict = replay.get("equivalence") or (
            "replayable" if replay.get("replayable") else "not_replayable"
        )
        rows.append((rid, index, "replay", str(verdict)))
    harness = episode.get("harness")
    if harness is not None:
        rows.append((rid, index, "check", str(harness.get("result"))))
    return rows


def episode_id(report: Mapping[str, Any], episode: Mapping[str, Any]) -> str | None:
    """The id every report prints for the stored episode (docs/cli.md, "Episode ids"): an
    imported episode's own (already in that form), an AgentGuard trace's ``trace_id`` in that
    form, ``trace`` for a readable harness trace; None for a row that is no episode (an
    unreadable file, an imported file with none). A trace that is not intact keeps its id."""
    if episode.get("episode_id") is not None:
        return str(episode["episode_id"])
    trace_id = episode.get("trace_id")
    if isinstance(trace_id, str) and trace_id:
        return episode_label(trace_id)
    if report.get("format") == "harness" and report.get("readable"):
        return UNNAMED
    return None


class Stored(NamedTuple):
    """One audited file as the store receives it: its result without the episodes, and the
    episodes, read when iterated (once). No episode (an AgentGuard or harness trace, an
    unreadable file, an imported file with none): the result is its own single episode."""

    report: Mapping[str, Any]
    episodes: Iterable[Mapping[str, Any]]


Row = tuple[str, tuple[Any, ...]]
"""(table, row): one row to insert."""


def rows_for(
    rid: str, digest: str, key: str, size: int, run_id: int, stored: Stored | None
) -> Iterator[Row]:
    """The rows for one audit result (``None``: a walked file that is not a trace), one at a
    time as its episodes are read: every child row, then its ``results`` row (whose episode
    count is known only then)."""
    if stored is None:
        yield "results", (rid, digest, key, NOT_A_TRACE, None, size, None, None, None, None, 0, run_id)
        return
    report, count = stored.report, 0
    for episode in stored.episodes:
        yield from _episode_rows(rid, count, report, episode)
        count += 1
    if not count:
        yield from _episode_rows(rid, 0, report, report)
        count = 1
    yield "results", (
        rid, digest, key, str(report["format"]), report.get("format_version"), size,
        int(report["exit_code"]), bool(report["readable"]), report["intact"],
        bool(report["rerunnable"]), count, run_id,
    )


def _episode_rows(rid: str, index: int, report: Mapping[str, Any], episode: Mapping[str, Any]) -> Iterator[Row]:
    yield "episodes", (
        rid, index, episode_id(report, episode),
        str(episode.get("format", report["format"])), int(episode["exit_code"]),
        bool(episode["readable"]), episode["intact"], bool(episode["rerunnable"]),
        episode.get("outcome"), episode.get("demonstration"),
    )
    for seq, f in enumerate(episode["findings"]):
        code = str(f["code"])
        yield "findings", (
            rid, index, seq, code, str(f["severity"]), policy_of(code), f.get("line"),
            f.get("where"), str(f["message"]),
        )
    for row in episode["completeness"]:
        yield "completeness", (
            rid, index, str(row["field"]), str(row["status"]), str(row["where"]),
            bool(row["needed_to_rerun"]),
        )
    for verdict in _verdicts(rid, index, episode):
        yield "verdicts", verdict
