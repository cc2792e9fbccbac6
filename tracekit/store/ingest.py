"""From an audit result to store rows, and the batched, atomic writer (docs/campaign-store.md,
"Schema" and "Fault safety").

Only the coordinator calls this: workers return audit results (plain data) and never open the
store. A file's rows (its result, episodes, findings, completeness, verdicts and its ``files``
row) always go into the same transaction, so a file is recorded whole or not at all; several
whole files may share one transaction (a commit costs a disk sync), which a kill loses together
and the next run reads again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

from tracekit.judging.audit.consistency import CONSISTENCY_CODES
from tracekit.judging.audit.model import FAILURE_MODE_CODES
from tracekit.kernel.episode_id import UNNAMED, episode_label
from tracekit.kernel.errors import Code
from tracekit.store.schema import insert_rows

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


class FileRows(msgspec.Struct, frozen=True):
    """Every row one audited file contributes, ready to insert."""

    result: tuple[Any, ...]
    episodes: tuple[tuple[Any, ...], ...]
    findings: tuple[tuple[Any, ...], ...]
    completeness: tuple[tuple[Any, ...], ...]
    verdicts: tuple[tuple[Any, ...], ...]


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


def episodes_of(report: Mapping[str, Any]) -> Sequence[Mapping[str, Any]]:
    """The episodes of one audit result: its ``episodes`` list when the format holds several,
    else the report itself as the single episode (AgentGuard, harness)."""
    episodes = report.get("episodes")
    return episodes if isinstance(episodes, list) and episodes else [report]


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


def rows_for(
    rid: str, digest: str, key: str, size: int, run_id: int, report: Mapping[str, Any] | None
) -> FileRows:
    """The rows for one audit result (``None``: a walked file that is not a trace)."""
    if report is None:
        skipped: tuple[Any, ...] = (
            rid, digest, key, NOT_A_TRACE, None, size, None, None, None, None, 0, run_id,
        )
        return FileRows(skipped, (), (), (), ())
    episodes = episodes_of(report)
    result = (
        rid, digest, key, str(report["format"]), report.get("format_version"), size,
        int(report["exit_code"]), bool(report["readable"]), report["intact"],
        bool(report["rerunnable"]), len(episodes), run_id,
    )
    ep_rows: list[tuple[Any, ...]] = []
    found: list[tuple[Any, ...]] = []
    complete: list[tuple[Any, ...]] = []
    verdicts: list[tuple[Any, ...]] = []
    for index, episode in enumerate(episodes):
        ep_rows.append((
            rid, index, episode_id(report, episode),
            str(episode.get("format", report["format"])), int(episode["exit_code"]),
            bool(episode["readable"]), episode["intact"], bool(episode["rerunnable"]),
            episode.get("outcome"), episode.get("demonstration"),
        ))
        for seq, f in enumerate(episode["findings"]):
            code = str(f["code"])
            found.append((
                rid, index, seq, code, str(f["severity"]), policy_of(code), f.get("line"),
                f.get("where"), str(f["message"]),
            ))
        for row in episode["completeness"]:
            complete.append((
                rid, index, str(row["field"]), str(row["status"]), str(row["where"]),
                bool(row["needed_to_rerun"]),
            ))
        verdicts += _verdicts(rid, index, episode)
    return FileRows(result, tuple(ep_rows), tuple(found), tuple(complete), tuple(verdicts))


class Writer:
    """Buffers whole files and commits them together, at most ``batch_files`` files or
    ``batch_seconds`` after the first buffered one, whichever comes first."""

    def __init__(
        self, con: Any, run_id: int, *, batch_files: int = 64, batch_seconds: float = 1.0,
        hook: Hook | None = None,
    ) -> None:
        self.con, self.run_id, self.hook = con, run_id, hook
        self.batch_files, self.batch_seconds = max(1, batch_files), batch_seconds
        self.committed = 0
        self._files: list[tuple[Any, ...]] = []
        self._rows: list[FileRows] = []
        self._since = 0.0

    def add(self, files: Sequence[tuple[str, int, str, str, str]], rows: FileRows | None) -> None:
        """Buffer one result (``rows``, None when it is already stored) and the ``files`` rows
        (path, size, digest, format, result_id) of every path holding that content."""
        if not self._files:
            self._since = time.monotonic()
        self._files += [(self.run_id, *f, False) for f in files]
        if rows is not None:
            self._rows.append(rows)
        if (
            len(self._files) >= self.batch_files
            or time.monotonic() - self._since >= self.batch_seconds
        ):
            self.flush()

    def flush(self) -> None:
        """Commit everything buffered in one transaction (nothing of it on any failure)."""
        if not self._files:
            return
        total = self.committed + len(self._files)
        self.con.execute("BEGIN TRANSACTION")
        try:
            insert_rows(self.con, "results", [r.result for r in self._rows])
            for table in ("episodes", "findings", "completeness", "verdicts"):
                insert_rows(self.con, table, [x for r in self._rows for x in getattr(r, table)])
            insert_rows(self.con, "files", self._files)
            self.con.execute(
                "UPDATE runs SET files_audited = files_audited + ? WHERE run_id = ?",
                [len(self._files), self.run_id],
            )
            if self.hook is not None:
                self.hook("before_commit", total)
            self.con.execute("COMMIT")
        except BaseException:
            rollback(self.con)
            raise
        self.committed = total
        self._files, self._rows = [], []
        if self.hook is not None:
            self.hook("after_commit", total)
