"""Structural consistency of an episode's calls and results (docs/findings.md, "Consistency").

Importers keep what a file says; these rules say whether what it says can be true. Each is one
pass over the episode (dictionaries, no pairwise scans):

1. Call ids are unique within an episode (``evidence.duplicate_call_id``).
2. A tool message that names a call answers a call of the episode
   (``evidence.dangling_call_id``).
3. A tool message comes after the assistant message that carried its call
   (``evidence.result_before_call``).

An episode that breaks one is not judged: its causal chain cannot be read.
"""

from __future__ import annotations

from tracekit.kernel.errors import Code, Finding, finding
from tracekit.kernel.evidence import Episode


def check_episode(episode: Episode) -> tuple[Finding, ...]:
    """The findings of rules 1-3 for ``episode``, at most one per rule, in rule order."""
    found: list[Finding] = []
    ids: set[str] = set()
    duplicate = False
    for call in episode.calls:
        if call.call_id is not None:
            duplicate = duplicate or call.call_id in ids
            ids.add(call.call_id)
    if duplicate:
        found.append(finding(Code.EVIDENCE_DUPLICATE_CALL_ID))
    carried: dict[str, int] = {}
    for message in episode.messages:
        if message.role == "assistant":
            for call_id in message.call_ids:
                carried.setdefault(call_id, message.index)
    dangling = early = False
    for message in episode.messages:
        if message.role != "tool" or message.tool_call_id is None:
            continue
        if message.tool_call_id not in ids and message.tool_call_id not in carried:
            dangling = True
        elif message.tool_call_id in carried and carried[message.tool_call_id] > message.index:
            early = True
    if dangling:
        found.append(finding(Code.EVIDENCE_DANGLING_CALL_ID))
    if early:
        found.append(finding(Code.EVIDENCE_RESULT_BEFORE_CALL))
    return tuple(found)
