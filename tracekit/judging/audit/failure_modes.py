"""The ways a trace record misleads (seed 003; docs/audit.md, "Failure modes").

* **arguments stringified**: a tool call's arguments are a string (or upstream's ``{"raw": ...}``
  normalisation of one) where an object belongs; ``{"amount": 1000}`` and ``{"amount": "1000"}``
  are different findings, and the string has lost which one it was.
* **results truncated**: a result string whose length is a round console width
  (:data:`ROUND_WIDTHS`), that ends in a truncation marker, or that a flag says was cut.
* **parallel calls flattened**: two or more tool calls without ids, or with repeated ids, so
  calls the run made in parallel cannot be told from a sequence it never had.
* **verdict without payloads**: an outcome or finding is recorded but the payloads behind it
  (tool results, arguments, check evidence) are not.
* **repeated findings**: recorded findings whose payload digests are identical are one
  demonstration, not several.

Pure functions over a :class:`HarnessView` (for AgentGuard traces, a fold over the verified
events, :class:`AgentGuardFailures`); each gives at most one finding per failure mode, with a count
and the first location in our terms.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from msgspec.structs import astuple

from tracekit.formats.agentguard.records import EventRecord
from tracekit.formats.agentguard.schema import agentguard as ag
from tracekit.formats.harness.view import (
    ARGUMENT_KEYS,
    FINDING_TYPES,
    OUTCOME_TYPES,
    TRUNCATION_FLAGS,
    HarnessView,
)
from tracekit.formats.truncation import CAPTURE_WIDTHS, FLAG, WIDTH, truncation_reason
from tracekit.judging.audit.digests import distinct, payload_digest
from tracekit.judging.audit.model import AuditFinding, note
from tracekit.kernel.errors import Code


def _one(code: Code, hits: Sequence[str], reason: str | None = None) -> list[AuditFinding]:
    if not hits:
        return []
    if reason is None:
        return [note(code, where=hits[0], count=len(hits))]
    return [note(code, where=hits[0], count=len(hits), reason=reason)]


# ------------------------------------------------------------------------------ harness traces


def stringified_arguments(view: HarnessView) -> list[AuditFinding]:
    """Tool calls whose arguments are text (or ``{"raw": text}``) instead of an object."""
    hits = []
    for index, call in enumerate(view.calls):
        for key in ARGUMENT_KEYS:
            value = call.get(key)
            raw = (
                isinstance(value, dict) and set(value) == {"raw"} and isinstance(value["raw"], str)
            )
            if isinstance(value, str) or raw:
                hits.append(f"tool_calls[{index}].{key}")
                break
    return _one(Code.AUDIT_ARGUMENTS_STRINGIFIED, hits)


def truncated_results(view: HarnessView) -> list[AuditFinding]:
    """Results (on calls, in tool messages, in MCP result events) that look cut."""
    candidates: dict[str, Any] = {}
    for index, call in enumerate(view.calls):
        if any(call.get(flag) is True for flag in TRUNCATION_FLAGS):
            candidates[f"tool_calls[{index}]"] = {"truncated": True}
    for found in view.results():
        if found is not None:
            candidates.setdefault(found[0], found[1])
    for j, message in enumerate(view.trace.messages):
        if message.get("role") == "tool":
            candidates.setdefault(f"messages[{j}].content", message.get("content"))
    for index, event in view.events_of(frozenset({"mcp_tool_result"})):
        candidates.setdefault(f"events[{index}]", event)
    hits: list[tuple[str, str]] = []
    for where, value in candidates.items():
        reason = truncation_reason(value)
        if reason is not None:
            hits.append((where, reason))
    if not hits:
        return []
    return _one(Code.AUDIT_RESULT_TRUNCATED, [w for w, _ in hits], reason=hits[0][1])


def flattened_calls(view: HarnessView) -> list[AuditFinding]:
    """Two or more calls that lack ids, or share one."""
    if len(view.calls) < 2:
        return []
    ids = [view.call_id(call) for call in view.calls]
    if any(cid is None for cid in ids):
        reason = "no call ids"
    elif len(set(ids)) != len(ids):
        reason = "duplicate call ids"
    else:
        return []
    return [
        note(
            Code.AUDIT_PARALLEL_CALLS_FLATTENED,
            where="tool_calls[*].id",
            count=len(view.calls),
            reason=reason,
        )
    ]


def finding_events(view: HarnessView) -> list[tuple[int, Any]]:
    """Recorded findings and outcomes: what a reviewer would count as hits."""
    return view.events_of(FINDING_TYPES | OUTCOME_TYPES)


def verdict_without_payloads(view: HarnessView) -> list[AuditFinding]:
    """An outcome or finding recorded over calls that lack their results or arguments, or over
    a trace that holds no calls, messages or responses at all."""
    if not finding_events(view):
        return []
    hits = [f"tool_calls[{i}].result" for i, r in enumerate(view.results()) if r is None]
    hits += [
        f"tool_calls[{i}].arguments"
        for i, call in enumerate(view.calls)
        if not any(key in call for key in ARGUMENT_KEYS)
    ]
    if (
        not view.calls
        and not view.trace.messages
        and len(view.trace.events) == len(finding_events(view))
    ):
        hits.append("tool_calls, messages (none recorded)")
    return _one(Code.AUDIT_VERDICT_WITHOUT_PAYLOADS, hits)


def finding_digests(view: HarnessView) -> list[str]:
    """The payload digest of every recorded finding and outcome, in trace order."""
    return [payload_digest(event) for _, event in finding_events(view)]


def repeated_findings(digests: Sequence[str]) -> list[AuditFinding]:
    """Findings whose payloads are identical count once."""
    unique = distinct(digests)
    if len(digests) <= unique:
        return []
    return [
        note(Code.AUDIT_REPEATED_FINDING, where="events[*]", count=len(digests), distinct=unique)
    ]


def harness_failure_modes(view: HarnessView) -> list[AuditFinding]:
    """Every failure mode of a harness trace, in documented order."""
    return [
        *stringified_arguments(view),
        *truncated_results(view),
        *flattened_calls(view),
        *verdict_without_payloads(view),
        *repeated_findings(finding_digests(view)),
    ]


# ----------------------------------------------------------------------------- AgentGuard traces


class AgentGuardFailures:
    """The AgentGuard failure modes as a fold: truncated output or records, and failed checks
    recorded without evidence. Feed it each verified event in trace order with :meth:`add`
    (while verify streams them, or from kept events), then read :meth:`findings`."""

    __slots__ = ("bare", "cut")

    def __init__(self) -> None:
        self.cut: list[tuple[str, str]] = []
        self.bare: list[str] = []

    def add(self, event: EventRecord) -> None:
        """Take the next event."""
        p, seq, cut = event.payload, event.sequence, self.cut
        if isinstance(p, ag.CheckResult):  # the most frequent type first (the types are disjoint)
            if p.truncation.message or p.truncation.evidence:
                cut.append((f"events[{seq}].truncation", FLAG))
            if not p.passed and not p.evidence:
                self.bare.append(f"events[{seq}].evidence")
        elif isinstance(p, (ag.AgentCommand, ag.TestResult)):
            for name, out in (("stdout", p.stdout), ("stderr", p.stderr)):
                if out.truncated:
                    cut.append((f"events[{seq}].{name}", FLAG))
                elif out.bytes in CAPTURE_WIDTHS:
                    cut.append((f"events[{seq}].{name}.bytes", WIDTH))
            if True in astuple(p.truncation):  # every truncation field is a bool
                cut.append((f"events[{seq}].truncation", FLAG))
        elif isinstance(p, ag.FileChange) and p.diff_truncated is True:
            cut.append((f"events[{seq}].diff_truncated", FLAG))
        elif isinstance(p, ag.ExecutionCompleted) and p.modified_files.truncated:
            cut.append((f"events[{seq}].modified_files.truncated", FLAG))

    def findings(self) -> list[AuditFinding]:
        """At most one finding per failure mode, with a count and the first location."""
        cut = self.cut
        found = _one(Code.AUDIT_RESULT_TRUNCATED, [w for w, _ in cut], reason=cut[0][1]) if cut else []
        return found + _one(Code.AUDIT_VERDICT_WITHOUT_PAYLOADS, self.bare)

