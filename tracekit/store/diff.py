"""``db diff``: the files whose content or verdicts changed between two runs, with their new,
fixed, changed, not re-evaluated and gone findings (docs/campaign-store.md, "Queries", diff).

Files are matched by path relative to the campaign root. A file linked to the same result in
both runs is unchanged and never looked at again, so the work is bounded by the changed files.
A finding is identified within its file by (episode, code, where, occurrence): the n-th finding
with that code at that location. It is *new* when only the later run has it and *changed* when
both do with another severity or line. A finding only the earlier run has is *fixed* only when
the later run re-evaluated that episode (it was read and, where the format has integrity,
intact); it is *not re-evaluated* when the later run could not judge it (unreadable, not
intact, no longer a trace), and *gone* when its episode or its file is no longer there. Tampering
therefore never reads as a fix.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import msgspec

from tracekit.kernel.errors import Code, TracekitError, finding
from tracekit.store.queries import _known, complete_runs


class FindingRef(msgspec.Struct, frozen=True):
    episode: int
    """The episode's 0-based position in the file: what identifies the finding."""
    code: str
    severity: str
    policy: str
    line: int | None
    where: str | None
    episode_id: str | None = None
    """The episode's id as every report prints it (docs/cli.md, "Episode ids"), shown only."""


class FindingChange(msgspec.Struct, frozen=True):
    before: FindingRef
    after: FindingRef


class FileDiff(msgspec.Struct, frozen=True):
    path: str
    change: str
    """``added``, ``removed``, ``content`` (the bytes changed) or ``verdict`` (same bytes,
    another result: a new tracekit version or changed options)."""
    exit_before: int | None
    """None when the file was not in the earlier run or is no trace (``state_before``)."""
    exit_after: int | None
    new: list[FindingRef]
    fixed: list[FindingRef]
    """Re-evaluated and no longer raised."""
    changed: list[FindingChange]
    not_reevaluated: list[FindingRef] = []
    """No longer raised because the later run could not judge the episode."""
    gone: list[FindingRef] = []
    """No longer raised because the episode or the file is no longer there."""
    state_before: str = "judged"
    """``judged``, ``absent`` (no such file) or ``not_a_trace``."""
    state_after: str = "judged"


class Diff(msgspec.Struct, frozen=True):
    base_run: int
    head_run: int
    unchanged: int
    files: list[FileDiff]
    same_root: bool = True
    """False when the two runs audited different campaign folders (``audit --new-root``)."""


def _linked(con: Any, run_id: int) -> dict[str, tuple[str, str]]:
    rows = con.execute(
        "SELECT path, result_id, digest FROM files WHERE run_id = ?", [run_id]
    ).fetchall()
    return {str(p): (str(r), str(d)) for p, r, d in rows}


class Judged(msgspec.Struct, frozen=True):
    """One side of a file's comparison: what the run stored for it."""

    state: str
    exit_code: int | None
    refs: list[FindingRef]
    verdicts: list[Any]
    judged: frozenset[int]
    """Episodes the run could judge (read and, where the format has integrity, intact)."""
    episodes: frozenset[int]


ABSENT = Judged("absent", None, [], [], frozenset(), frozenset())


def _result(con: Any, rid: str | None) -> Judged:
    if rid is None:
        return ABSENT
    row = con.execute("SELECT exit_code FROM results WHERE result_id = ?", [rid]).fetchone()
    states = con.execute(
        "SELECT episode, readable AND coalesce(intact, true) FROM episodes WHERE result_id = ?",
        [rid],
    ).fetchall()
    refs = [
        FindingRef(*r)
        for r in con.execute(
            'SELECT f.episode, f.code, f.severity, f.policy, f.line, f."where", e.episode_id '
            "FROM findings f LEFT JOIN episodes e "
            "ON e.result_id = f.result_id AND e.episode = f.episode "
            "WHERE f.result_id = ? ORDER BY f.episode, f.seq",
            [rid],
        ).fetchall()
    ]
    verdicts = con.execute(
        "SELECT episode, kind, verdict FROM verdicts WHERE result_id = ? ORDER BY 1, 2", [rid]
    ).fetchall()
    exit_code = row[0] if row else None
    return Judged(
        "judged" if exit_code is not None else "not_a_trace", exit_code, refs, verdicts,
        frozenset(int(e) for e, ok in states if ok), frozenset(int(e) for e, _ in states),
    )


def _keyed(refs: list[FindingRef]) -> dict[tuple[Any, ...], FindingRef]:
    seen: Counter[tuple[Any, ...]] = Counter()
    out = {}
    for ref in refs:
        base = (ref.episode, ref.code, ref.where)
        out[(*base, seen[base])] = ref
        seen[base] += 1
    return out


def compare_findings(
    before: list[FindingRef], after: list[FindingRef]
) -> tuple[list[FindingRef], list[FindingRef], list[FindingChange]]:
    """(new, no longer raised, changed) between two finding lists of one file; what is no
    longer raised is split by :func:`classify_lost`."""
    old, cur = _keyed(before), _keyed(after)
    new = [ref for key, ref in cur.items() if key not in old]
    fixed = [ref for key, ref in old.items() if key not in cur]
    changed = [
        FindingChange(old[key], ref)
        for key, ref in cur.items()
        if key in old and (old[key].severity, old[key].line) != (ref.severity, ref.line)
    ]
    return new, fixed, changed


def classify_lost(
    lost: list[FindingRef], after: Judged
) -> tuple[list[FindingRef], list[FindingRef], list[FindingRef]]:
    """Findings only the earlier run has, as (fixed, not re-evaluated, gone) against the later
    run's side ``after``."""
    fixed, unjudged, gone = [], [], []
    for ref in lost:
        if ref.episode not in after.episodes:
            gone.append(ref)
        elif ref.episode in after.judged:
            fixed.append(ref)
        else:
            unjudged.append(ref)
    return fixed, unjudged, gone


def _file(path: str, change: str, old: Judged, cur: Judged) -> FileDiff:
    new, lost, changed = compare_findings(old.refs, cur.refs)
    fixed, unjudged, gone = classify_lost(lost, cur)
    return FileDiff(
        path, change, old.exit_code, cur.exit_code, new, fixed, changed, unjudged, gone,
        old.state, cur.state,
    )


def _roots(con: Any, base: int, head: int) -> bool:
    rows = con.execute(
        "SELECT DISTINCT root FROM runs WHERE run_id IN (?, ?)", [base, head]
    ).fetchall()
    return len(rows) <= 1


def diff(con: Any, since: int | None = None) -> Diff:
    """Changes from run ``since`` (default: the completed run before the latest) to the latest
    completed run. Raises TracekitError(store.no_runs / store.unknown_run)."""
    runs = complete_runs(con)
    if since is None and len(runs) < 2:
        raise TracekitError(finding(Code.STORE_NO_RUNS))
    if not runs:
        raise TracekitError(finding(Code.STORE_NO_RUNS))
    head = runs[0]
    base = runs[1] if since is None else _known(con, since)
    before, after = _linked(con, base), _linked(con, head)
    files = []
    unchanged = 0
    for path in sorted(before.keys() | after.keys()):
        old, cur = before.get(path), after.get(path)
        if old is not None and cur is not None and old[0] == cur[0]:
            unchanged += 1
            continue
        was, now = _result(con, old[0] if old else None), _result(con, cur[0] if cur else None)
        if old is None or cur is None:
            change = "added" if old is None else "removed"
        elif old[1] != cur[1]:
            change = "content"
        else:
            change = "verdict"
        item = _file(path, change, was, now)
        if change == "verdict" and not (
            item.new or item.fixed or item.changed or item.not_reevaluated or item.gone
            or was.exit_code != now.exit_code or was.verdicts != now.verdicts
        ):
            unchanged += 1
            continue
        files.append(item)
    return Diff(base, head, unchanged, files, _roots(con, base, head))
