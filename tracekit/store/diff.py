"""``db diff``: the files whose content or verdicts changed between two runs, with their new,
fixed and changed findings (docs/campaign-store.md, "Queries", diff).

Files are matched by path relative to the campaign root. A file linked to the same result in
both runs is unchanged and never looked at again, so the work is bounded by the changed files.
A finding is identified within its file by (episode, code, where, occurrence): the n-th finding
with that code at that location. It is *new* when only the later run has it, *fixed* when only
the earlier one does, and *changed* when both do with another severity or line.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import msgspec

from tracekit.errors import Code, TracekitError, finding
from tracekit.store.queries import _known, complete_runs


class FindingRef(msgspec.Struct, frozen=True):
    episode: int
    code: str
    severity: str
    policy: str
    line: int | None
    where: str | None


class FindingChange(msgspec.Struct, frozen=True):
    before: FindingRef
    after: FindingRef


class FileDiff(msgspec.Struct, frozen=True):
    path: str
    change: str
    """``added``, ``removed``, ``content`` (the bytes changed) or ``verdict`` (same bytes,
    another result: a new tracekit version or changed options)."""
    exit_before: int | None
    exit_after: int | None
    new: list[FindingRef]
    fixed: list[FindingRef]
    changed: list[FindingChange]


class Diff(msgspec.Struct, frozen=True):
    base_run: int
    head_run: int
    unchanged: int
    files: list[FileDiff]


def _linked(con: Any, run_id: int) -> dict[str, tuple[str, str]]:
    rows = con.execute(
        "SELECT path, result_id, digest FROM files WHERE run_id = ?", [run_id]
    ).fetchall()
    return {str(p): (str(r), str(d)) for p, r, d in rows}


def _result(con: Any, rid: str | None) -> tuple[int | None, list[FindingRef], list[Any]]:
    if rid is None:
        return None, [], []
    row = con.execute("SELECT exit_code FROM results WHERE result_id = ?", [rid]).fetchone()
    refs = [
        FindingRef(*r)
        for r in con.execute(
            'SELECT episode, code, severity, policy, line, "where" FROM findings '
            "WHERE result_id = ? ORDER BY episode, seq",
            [rid],
        ).fetchall()
    ]
    verdicts = con.execute(
        "SELECT episode, kind, verdict FROM verdicts WHERE result_id = ? ORDER BY 1, 2", [rid]
    ).fetchall()
    return (row[0] if row else None), refs, verdicts


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
    """(new, fixed, changed) between two finding lists of one file."""
    old, cur = _keyed(before), _keyed(after)
    new = [ref for key, ref in cur.items() if key not in old]
    fixed = [ref for key, ref in old.items() if key not in cur]
    changed = [
        FindingChange(old[key], ref)
        for key, ref in cur.items()
        if key in old and (old[key].severity, old[key].line) != (ref.severity, ref.line)
    ]
    return new, fixed, changed


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
        exit_old, refs_old, verdicts_old = _result(con, old[0] if old else None)
        exit_cur, refs_cur, verdicts_cur = _result(con, cur[0] if cur else None)
        new, fixed, changed = compare_findings(refs_old, refs_cur)
        if old is None or cur is None:
            change = "added" if old is None else "removed"
        elif old[1] != cur[1]:
            change = "content"
        elif new or fixed or changed or exit_old != exit_cur or verdicts_old != verdicts_cur:
            change = "verdict"
        else:
            unchanged += 1
            continue
        files.append(FileDiff(path, change, exit_old, exit_cur, new, fixed, changed))
    return Diff(base, head, unchanged, files)
