"""From an audit result to store rows, one at a time (docs/campaign-store.md, "Schema").

Only the coordinator calls this: workers return audit results (plain data) and never open the
store. The rows come as the result's episodes are read, so a file of many episodes is never
held as rows at once; the writer (tracekit/store/writer.py) puts them in the file's
transaction as they come.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NamedTuple

import msgspec

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

_encode = msgspec.json.Encoder().encode

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


def _verdicts(episode: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The episode's verdicts as (kind, verdict), in the order they are stored."""
    rows = [("verify", _verify_verdict(episode))]
    replay = episode.get("replay")
    if replay is not None:
        verdict = replay.get("equivalence") or (
            "replayable" if replay.get("replayable") else "not_replayable"
        )
        rows.append(("replay", str(verdict)))
    harness = episode.get("harness")
    if harness is not None:
        rows.append(("check", str(harness.get("result"))))
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
    unreadable file, an imported file with none): the result is its own single episode.
    An episode's ``findings`` and ``completeness`` are lists of objects, or those lists as
    JSON (``msgspec.Raw``, as a worker sent them: decoded only for a detail not seen yet)."""

    report: Mapping[str, Any]
    episodes: Iterable[Mapping[str, Any]]


Row = tuple[str, tuple[Any, ...]]
"""(table, row): one row to insert."""

DETAILS_HELD = 4096
"""Distinct details of a file remembered at once (with :data:`DETAIL_BYTES_HELD`): past either,
they are forgotten, and a detail seen again is written again under a new number."""
DETAIL_BYTES_HELD = 4 * 1024 * 1024
"""The bytes of remembered details' keys a file may hold at once."""


class _Details:
    """A file's distinct details (findings, completeness and verdicts lists), numbered as they
    are first seen; bounded (:data:`DETAILS_HELD`), so a file of N distinct episodes costs
    N detail rows, never N held."""

    __slots__ = ("_numbers", "_bytes", "_next")

    def __init__(self) -> None:
        self._numbers: dict[bytes | tuple[Any, ...], int] = {}
        self._bytes = 0
        self._next = 0

    def number(self, key: bytes | tuple[Any, ...]) -> tuple[int, bool]:
        """The number of the detail ``key`` names (its JSON, or a worker's number for it and
        its verdicts), and whether it is new (to be written)."""
        known = self._numbers.get(key)
        if known is not None:
            return known, False
        size = len(key) if isinstance(key, bytes) else 64
        if len(self._numbers) >= DETAILS_HELD or self._bytes + size > DETAIL_BYTES_HELD:
            self._numbers.clear()
            self._bytes = 0
        number, self._next = self._next, self._next + 1
        self._numbers[key] = number
        self._bytes += size
        return number, True


def rows_for(
    rid: str, digest: str, key: str, size: int, run_id: int, stored: Stored | None
) -> Iterator[Row]:
    """The rows for one audit result (``None``: a walked file that is not a trace), one at a
    time as its episodes are read: each episode's row (after its detail's, when that is new),
    then its ``results`` row (whose episode count is known only then)."""
    if stored is None:
        yield "results", (rid, digest, key, NOT_A_TRACE, None, size, None, None, None, None, 0, run_id)
        return
    report, count, details = stored.report, 0, _Details()
    for episode in stored.episodes:
        yield from _episode_rows(rid, count, report, episode, details)
        count += 1
    if not count:
        yield from _episode_rows(rid, 0, report, report, details)
        count = 1
    yield "results", (
        rid, digest, key, str(report["format"]), report.get("format_version"), size,
        int(report["exit_code"]), bool(report["readable"]), report["intact"],
        bool(report["rerunnable"]), count, run_id,
    )


def _json(value: Any) -> bytes:
    return bytes(value) if isinstance(value, msgspec.Raw) else _encode(value)


def _listed(value: Any) -> list[Mapping[str, Any]]:
    return msgspec.json.decode(value) if isinstance(value, msgspec.Raw) else list(value)


def _detail(found: Any, complete: Any, verdicts: list[tuple[str, str]]) -> tuple[str, str, str]:
    """The detail's three JSON lists, each element an array of its view's columns in order
    (tracekit/store/schema.py, ``view_body``)."""
    findings = [
        (str(f["code"]), str(f["severity"]), policy_of(str(f["code"])), f.get("line"),
         f.get("where"), str(f["message"]))
        for f in _listed(found)
    ]
    completeness = [
        (str(c["field"]), str(c["status"]), str(c["where"]), bool(c["needed_to_rerun"]))
        for c in _listed(complete)
    ]
    return (
        _encode(findings).decode(), _encode(completeness).decode(), _encode(verdicts).decode()
    )


def _episode_rows(
    rid: str, index: int, report: Mapping[str, Any], episode: Mapping[str, Any],
    details: _Details,
) -> Iterator[Row]:
    verdicts = _verdicts(episode)
    found, complete = episode["findings"], episode["completeness"]
    token = episode.get("detail")  # a worker's number for the same findings and completeness
    number, new = details.number(
        (token, *verdicts) if token is not None
        else b"\n".join((_json(found), _json(complete), _encode(verdicts)))
    )
    if new:
        yield "episode_details", (rid, number, *_detail(found, complete, verdicts))
    yield "episode_rows", (
        rid, index, episode_id(report, episode),
        str(episode.get("format", report["format"])), int(episode["exit_code"]),
        bool(episode["readable"]), episode["intact"], bool(episode["rerunnable"]),
        episode.get("outcome"), episode.get("demonstration"), number,
    )
