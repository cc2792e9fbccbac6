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

from tracekit.formats.base import FormatLimits, Source
from tracekit.formats.claude_code_episode import CODES, Session, check_threads
from tracekit.formats.jsoninput import Budget, first_line, iter_lines, schema_error
from tracekit.kernel.evidence import EvidenceFile

CONVERSATION_TYPES = frozenset({"user", "assistant", "system", "attachment", "progress"})
"""Record types on the ``uuid``/``parentUuid`` thread; only ``user`` and ``assistant`` carry the
conversation."""
METADATA_TYPES = frozenset(
    {
        "summary",
        "file-history-snapshot",
        "file-history-delta",
        "queue-operation",
        "last-prompt",
        "mode",
        "permission-mode",
        "agent-name",
        "custom-title",
        "ai-title",
        "bridge-session",
        "atis-latch",
        "cost-state",
        "frame-link",
    }
)
"""Record types with the session's metadata and no place on the thread."""
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
        if not isinstance(kind, str) or "payload" in head:
            return False
        if kind in CONVERSATION_TYPES:
            return "sessionId" in head and "uuid" in head
        if kind == "summary":
            return "leafUuid" in head and "summary" in head
        if kind.startswith("file-history-"):
            return "messageId" in head or "sessionId" in head
        return (kind in METADATA_TYPES or kind.startswith("artifact-")) and "sessionId" in head

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
            if kind in CONVERSATION_TYPES:
                _thread(record, number, parents)
            if kind not in ("user", "assistant"):
                continue  # metadata, attachments, system notices: no conversation (docs/formats.md)
            key = _thread_key(record, number)
            if version is None and isinstance(record.get("version"), str):
                version = record["version"]
            if key not in sessions:
                budget.episodes(len(sessions) + 1)
                sessions[key] = Session(key, limits)
            sessions[key].add(kind, record, number)
        check_threads(parents)
        return EvidenceFile("claude_code", version, tuple(s.episode(version) for s in sessions.values()))


def _thread(record: dict[str, Any], line: int, parents: dict[str, tuple[str | None, int]]) -> None:
    """Note a thread record's parent (the first record of a ``uuid`` wins). A ``user`` or
    ``assistant`` record must have a ``uuid``; another thread record without one is left out."""
    uuid, parent = record.get("uuid"), record.get("parentUuid")
    if not isinstance(uuid, str):
        if record.get("type") in ("user", "assistant") or uuid is not None:
            schema_error(CODES, "uuid", line)
        return
    if parent is not None and not isinstance(parent, str):
        schema_error(CODES, "parentUuid", line)
    parents.setdefault(uuid, (parent, line))


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
