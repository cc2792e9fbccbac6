"""Claude Code session transcripts (docs/formats.md, "Claude Code").

A transcript is JSON lines, one record per line, appended as the session runs. ``user`` and
``assistant`` records carry an Anthropic Messages ``message``; ``tool_use`` blocks in assistant
records are paired with ``tool_result`` blocks in later user records by id. Records thread by
``uuid``/``parentUuid``; the threading is checked (a cycle is refused) but the episode keeps the
order the file was written in. One episode per session (``sessionId``), and one per sub-agent
(``agentId``) or sidechain inside it.
"""

from __future__ import annotations

import re
from typing import Any

from tracekit.evidence import EvidenceFile
from tracekit.formats.base import FormatLimits, Source
from tracekit.formats.claude_code_episode import CODES, Session, check_threads
from tracekit.formats.jsoninput import Budget, first_line, iter_lines, schema_error

RECORD_TYPES = frozenset({"user", "assistant", "system", "summary", "file-history-snapshot", "queue-operation", "progress"})
"""Record types Claude Code writes; only ``user`` and ``assistant`` carry the conversation."""
_LONG_HEAD = re.compile(rb'\A\{\s*"parentUuid"\s*:\s*(?:null|"[^"\\]{1,128}")\s*,\s*"isSidechain"\s*:\s*(?:true|false)\s*,')
"""The opening Claude Code writes on a record line (for a first line beyond the sniff prefix)."""


class ClaudeCodeFormat:
    """Claude Code session transcript JSON lines."""

    name = "claude_code"

    def sniff(self, prefix: bytes, suffix: str) -> bool:
        """The first line is a Claude Code record: a known ``type`` with the session keys."""
        head = first_line(prefix)
        if head is None:
            return bool(_LONG_HEAD.match(prefix))
        kind = head.get("type")
        if not isinstance(kind, str) or kind not in RECORD_TYPES or "payload" in head:
            return False
        if kind == "summary":
            return "leafUuid" in head and "summary" in head
        if kind == "file-history-snapshot":
            return "messageId" in head and "snapshot" in head
        return "sessionId" in head and ("uuid" in head or kind == "queue-operation")

    def load(self, source: Source, limits: FormatLimits) -> EvidenceFile:
        """One episode per session thread, records in file order."""
        sessions: dict[str, Session] = {}
        budget = Budget(limits, CODES)
        parents: dict[str, tuple[str | None, int]] = {}
        version: str | None = None
        for number, record in iter_lines(source, limits, CODES):
            if not isinstance(record, dict):
                schema_error(CODES, "record", number)
            kind = record.get("type")
            if not isinstance(kind, str):
                schema_error(CODES, "type", number)
            if kind not in ("user", "assistant"):
                continue  # summaries, snapshots, system notices: no conversation (docs/formats.md)
            key, uuid = _thread_key(record, number), record.get("uuid")
            if not isinstance(uuid, str):
                schema_error(CODES, "uuid", number)
            parent = record.get("parentUuid")
            if parent is not None and not isinstance(parent, str):
                schema_error(CODES, "parentUuid", number)
            parents.setdefault(uuid, (parent, number))
            if version is None and isinstance(record.get("version"), str):
                version = record["version"]
            if key not in sessions:
                budget.episodes(len(sessions) + 1)
                sessions[key] = Session(key, limits)
            sessions[key].add(kind, record, number)
        check_threads(parents)
        return EvidenceFile("claude_code", version, tuple(s.episode(version) for s in sessions.values()))


def _thread_key(record: dict[str, Any], line: int) -> str:
    """The episode a record belongs to: its session, its sub-agent, or its sidechain."""
    session = record.get("sessionId")
    if not isinstance(session, str):
        schema_error(CODES, "sessionId", line)
    agent = record.get("agentId")
    if agent is not None and not isinstance(agent, str):
        schema_error(CODES, "agentId", line)
    side = record.get("isSidechain", False)
    if not isinstance(side, bool):
        schema_error(CODES, "isSidechain", line)
    if agent:
        return f"{session}:agent:{agent}"
    return f"{session}:sidechain" if side else session


FORMAT = ClaudeCodeFormat()
