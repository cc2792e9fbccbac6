"""A summary across the audited traces of a campaign (docs/audit.md, "Campaign summary").

Pure over the per-trace JSON forms (:meth:`AuditReport.to_dict`), which is what worker processes
return. It answers what a reviewer asks of a campaign: how many traces could a colleague rerun,
how many are intact and consistent, whose verdict follows from the evidence, which evidence
fields are missing most, and how many distinct demonstrations the recorded hits stand for
(identical payload digests are one demonstration, however many traces repeat it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from tracekit.audit.consistency import CONSISTENCY_CODES
from tracekit.errors import Code, worst

Trace = Mapping[str, Any]
REPRODUCED = frozenset({Code.REPLAY_EXACT.value, Code.AUDIT_OUTCOME_REPRODUCED.value})
NOT_REPRODUCED = frozenset(
    {Code.REPLAY_SEMANTIC.value, Code.REPLAY_DIVERGENT.value, Code.AUDIT_OUTCOME_MISMATCH.value}
)
HIT_OUTCOMES = frozenset({"FAIL", "fail", "hit", "failure"})
"""Recorded outcomes that claim the attack or policy violation happened."""
SHOWN_DIGEST = 16


def worst_exit(traces: Sequence[Trace]) -> int:
    """The campaign's exit code: the worst trace's, by the one rule (``tracekit.errors.worst``)."""
    return int(worst(*(int(t["exit_code"]) for t in traces)))


def _codes(trace: Trace) -> set[str]:
    return {str(f["code"]) for f in trace["findings"]}


def _field_gaps(traces: Sequence[Trace]) -> list[dict[str, Any]]:
    tally: dict[tuple[str, str], Counter[str]] = {}
    rerun: dict[tuple[str, str], bool] = {}
    for trace in traces:
        for row in trace["completeness"]:
            key = (str(trace["format"]), str(row["field"]))
            tally.setdefault(key, Counter())[str(row["status"])] += 1
            rerun[key] = bool(row["needed_to_rerun"])
    gaps = [
        {
            "format": fmt,
            "field": name,
            "missing": c["missing"],
            "partial": c["partial"],
            "not_carried": c["not_carried"],
            "present": c["present"],
            "needed_to_rerun": rerun[(fmt, name)],
        }
        for (fmt, name), c in tally.items()
        if c["missing"] or c["partial"] or c["not_carried"]
    ]
    return sorted(
        gaps,
        key=lambda g: (-(g["missing"] + g["partial"]), -g["not_carried"], g["format"], g["field"]),
    )


def _demonstrations(traces: Sequence[Trace]) -> dict[str, Any]:
    hits = [t for t in traces if t.get("outcome") in HIT_OUTCOMES and t.get("demonstration")]
    by_digest = Counter(str(t["demonstration"]) for t in hits)
    recorded = [d for t in traces for d in t.get("finding_digests", [])]
    return {
        "traces_recording_a_hit": len(hits),
        "distinct_demonstrations": len(by_digest),
        "repeated": [
            {"digest": digest[:SHOWN_DIGEST], "traces": count}
            for digest, count in sorted(by_digest.items(), key=lambda item: (-item[1], item[0]))
            if count > 1
        ],
        "recorded_findings": len(recorded),
        "distinct_recorded_findings": len(set(recorded)),
    }


def _episodes(trace: Trace) -> int:
    """A trace's episode count: the summary view holds the count, the full form the list."""
    held = trace.get("episodes") or 0
    return len(held) if isinstance(held, list) else int(held)


def _by_format(traces: Sequence[Trace]) -> dict[str, dict[str, int]]:
    """Per format: files, episodes, intact (formats with integrity data), readable, rerunnable."""
    out: dict[str, dict[str, int]] = {}
    for trace in traces:
        row = out.setdefault(
            str(trace["format"]),
            {"traces": 0, "episodes": 0, "intact": 0, "readable": 0, "rerunnable": 0},
        )
        row["traces"] += 1
        row["episodes"] += _episodes(trace)
        row["intact"] += trace["intact"] is True
        row["readable"] += bool(trace["readable"])
        row["rerunnable"] += bool(trace["rerunnable"])
    return dict(sorted(out.items()))


def _by_policy(traces: Sequence[Trace]) -> dict[str, dict[str, dict[str, int]]]:
    """With ``--scenario``: per format and per scenario, the episodes judged and failed
    (docs/findings.md, "Campaigns"); a harness trace is one episode."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    for trace in traces:
        policy = trace.get("harness")
        if not isinstance(policy, dict) or not isinstance(policy.get("scenario_id"), str):
            continue
        row = out.setdefault(str(trace["format"]), {}).setdefault(
            policy["scenario_id"], {"episodes": 0, "failed": 0}
        )
        row["episodes"] += int(policy.get("episodes_judged", 1))
        row["failed"] += int(policy.get("episodes_failed", policy.get("result") == "fail"))
    return {fmt: dict(sorted(rows.items())) for fmt, rows in sorted(out.items())}


def summarise(traces: Sequence[Trace], skipped: int = 0) -> dict[str, Any]:
    """The campaign summary; ``skipped`` counts files found in folders that are not traces."""
    formats = Counter(str(t["format"]) for t in traces)
    exits = Counter(str(t["exit_code"]) for t in traces)
    severity = Counter(str(f["severity"]) for t in traces for f in t["findings"])
    by_code = Counter(
        code
        for t in traces
        for code in _codes(t)
        if any(f["code"] == code and f["severity"] != "info" for f in t["findings"])
    )
    intact = [t for t in traces if t["intact"] is True]
    return {
        "total": len(traces),
        "skipped_non_trace_files": skipped,
        "formats": dict(sorted(formats.items())),
        "by_format": _by_format(traces),
        "by_policy": _by_policy(traces),
        "episodes": sum(_episodes(t) for t in traces),
        "exit_codes": {code: exits[code] for code in ("0", "1", "2")},
        "unreadable": sum(1 for t in traces if not t["readable"]),
        "intact": len(intact),
        "not_intact": sum(1 for t in traces if t["intact"] is False),
        "no_integrity_mechanism": sum(1 for t in traces if t["readable"] and t["intact"] is None),
        "consistent": sum(1 for t in intact if not _codes(t) & CONSISTENCY_CODES),
        "verdict_reproduced": sum(1 for t in traces if _codes(t) & REPRODUCED),
        "verdict_not_reproduced": sum(1 for t in traces if _codes(t) & NOT_REPRODUCED),
        "rerunnable": sum(1 for t in traces if t["rerunnable"]),
        "not_rerunnable": sum(1 for t in traces if not t["rerunnable"]),
        "findings_by_severity": {s: severity[s] for s in ("error", "warning", "notice", "info")},
        "traces_by_finding_code": dict(sorted(by_code.items(), key=lambda i: (-i[1], i[0]))),
        "fields_missing_most": _field_gaps(traces),
        "demonstrations": _demonstrations(traces),
    }
