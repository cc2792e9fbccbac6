"""Typed edits on a :class:`~tracekit.formats.agentguard.writer.DraftTrace` that the transforms share.

Every helper works on parsed values and keeps the structural rules verify enforces
(docs/trace-format.md step 6): events are inserted where their rank allows, a new file change is
mirrored in the completion summary so the replay reconstruction stays consistent
(docs/replay.md), and no path is added twice.
Nothing here hashes: the runner re-chains the finished draft (metamorphic/rechain.py).
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Iterable
from typing import Any

from tracekit.formats.agentguard.schema.agentguard import EVENT_RANK
from tracekit.formats.agentguard.writer import DraftEvent, DraftTrace
from tracekit.judging.metamorphic.base import NotApplicable
from tracekit.judging.replay.matching import matches_path, normalise
from tracekit.kernel.paths import path_problem

EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()


def clone(draft: DraftTrace) -> DraftTrace:
    """A deep copy, so a transform never edits its input; a draft the runner built for this
    transform alone (``owned``, writer.thaw) is handed over once instead of copied."""
    if draft.owned:
        draft.owned = False
        return draft
    return copy.deepcopy(draft)


def events_of(draft: DraftTrace, event_type: str) -> list[DraftEvent]:
    """The events of one type, in trace order."""
    return [event for event in draft.events if event.event_type == event_type]


def completion(draft: DraftTrace) -> dict[str, Any]:
    """The payload of the (single, verify guarantees it) execution_completed event."""
    found = events_of(draft, "execution_completed")
    if len(found) != 1:
        raise NotApplicable("the trace has no single execution_completed event")
    return found[0].payload


def snapshot(draft: DraftTrace) -> dict[str, Any]:
    """The header's policy snapshot; v1 traces have none (and are never replayable)."""
    value = draft.header.get("policy_snapshot")
    if not isinstance(value, dict):
        raise NotApplicable("the trace has no policy snapshot")
    return value


def changed_paths(draft: DraftTrace) -> set[str]:
    """Every path a file_change event already names."""
    return {event.payload["path"] for event in events_of(draft, "file_change")}


def insert_by_rank(draft: DraftTrace, event: DraftEvent) -> int:
    """Insert ``event`` after the last event whose rank does not exceed its own; return its
    index. Ranks are verify's (docs/trace-format.md step 6), so the result keeps a valid order."""
    rank = EVENT_RANK[event.event_type]
    index = 0
    for position, existing in enumerate(draft.events):
        if EVENT_RANK.get(existing.event_type, len(EVENT_RANK)) <= rank:
            index = position + 1
    draft.events.insert(index, event)
    return index


def added_file_payload(path: str, lines_added: int = 1) -> dict[str, Any]:
    """A new-file change as upstream's transforms build it (content digest of the path text)."""
    return {
        "change_type": "added",
        "diff_included": False,
        "lines_added": lines_added,
        "lines_deleted": 0,
        "new_content_sha256": hashlib.sha256(path.encode("utf-8")).hexdigest(),
        "new_mode": "100644",
        "old_content_sha256": None,
        "old_mode": None,
        "path": path,
        "symlink_target": None,
    }


def add_file_change(draft: DraftTrace, payload: dict[str, Any]) -> None:
    """Append a file change after the existing ones and mirror it in the completion summary
    (paths in event order, count and line totals), as replay's reconstruction requires."""
    summary = completion(draft)["modified_files"]
    insert_by_rank(draft, DraftEvent("file_change", payload))
    summary["paths"] = [*summary["paths"], payload["path"]]
    summary["count"] = summary["count"] + 1
    summary["lines_added"] = summary["lines_added"] + payload["lines_added"]
    summary["lines_deleted"] = summary["lines_deleted"] + payload["lines_deleted"]


def remove_file_changes(draft: DraftTrace, paths: set[str]) -> None:
    """Drop the file changes for ``paths`` and take them out of the completion summary."""
    summary = completion(draft)["modified_files"]
    dropped = [e for e in events_of(draft, "file_change") if e.payload["path"] in paths]
    draft.events = [e for e in draft.events if not any(e is d for d in dropped)]
    summary["paths"] = [p for p in summary["paths"] if p not in paths]
    summary["count"] = max(0, summary["count"] - len(dropped))
    summary["lines_added"] = max(0, summary["lines_added"] - sum(d.payload["lines_added"] for d in dropped))
    summary["lines_deleted"] = max(
        0, summary["lines_deleted"] - sum(d.payload["lines_deleted"] for d in dropped)
    )


def _instances(pattern: str, stem: str) -> Iterable[str]:
    """Concrete paths a glob pattern plausibly matches: wildcards filled with ``stem``."""
    text = normalise(pattern)
    if "[" in text or not text:
        return
    yield text.replace("**", stem).replace("*", stem).replace("?", "m")
    yield text.replace("**/", "").replace("**", stem).replace("*", stem).replace("?", "m")


def path_matching(
    preferred: str, patterns: list[str], stem: str, taken: set[str]
) -> str | None:
    """A fresh, normalised path that matches one of ``patterns``, or None.

    ``preferred`` (upstream's fixed choice) wins when it matches; otherwise each pattern is
    instantiated with ``stem``. A path already in ``taken`` gets a numeric suffix, so adding a
    file twice never repeats a path (verify rejects duplicate file_change paths).
    """
    candidates = [preferred, *(p for pattern in patterns for p in _instances(pattern, stem))]
    for candidate in candidates:
        if path_problem(candidate) is not None:
            continue
        if not any(matches_path(candidate, pattern) for pattern in patterns):
            continue
        fresh = _fresh(candidate, patterns, taken)
        if fresh is not None:
            return fresh
    return None


def _fresh(candidate: str, patterns: list[str], taken: set[str]) -> str | None:
    if candidate not in taken:
        return candidate
    head, sep, tail = candidate.rpartition("/")
    for number in range(2, 64):
        renamed = f"{head}{sep}x{number}_{tail}"
        if renamed not in taken and any(matches_path(renamed, p) for p in patterns):
            return renamed
    return None


def add_matching_file(draft: DraftTrace, preferred: str, patterns: list[str], stem: str) -> str:
    """Add a one-line new file whose path matches ``patterns``; return the path.

    Raises :class:`NotApplicable` when no pattern yields a usable path (for instance an empty
    pattern list), so the case is reported as not applicable instead of as a false failure.
    """
    path = path_matching(preferred, patterns, stem, changed_paths(draft))
    if path is None:
        raise NotApplicable("no policy pattern yields a path the transform can add")
    add_file_change(draft, added_file_payload(path))
    return path


def enabled_patterns(policy: dict[str, Any], sources: dict[str, str]) -> list[str]:
    """The patterns of the enabled checks among ``sources`` (check id -> snapshot key)."""
    enabled = set(policy.get("enabled_checks", []))
    return [p for check, key in sources.items() if check in enabled for p in policy.get(key, [])]
