"""OpenAI Codex CLI rollouts, ``rollout-*.jsonl`` (docs/formats.md, "Codex CLI").

Every line is ``{"timestamp", "type", "payload"}``: ``session_meta`` (the session's id, the CLI
version, the base instructions), ``turn_context`` (the model and reasoning effort from then on),
``response_item`` (the Responses API items of the history: messages, reasoning, function calls
and their outputs, paired by ``call_id``), ``event_msg`` (UI events; errors are kept) and
``compacted``. One rollout is one session: one episode.
"""

from __future__ import annotations

import re

from tracekit.formats.base import FormatLimits, Source
from tracekit.formats.codex_items import CODES, Rollout
from tracekit.formats.jsoninput import as_dict, first_line, iter_lines, schema_error
from tracekit.kernel.evidence import EvidenceFile

LINE_TYPES = frozenset({"session_meta", "response_item", "turn_context", "event_msg", "compacted"})
_LONG_HEAD = re.compile(rb'\A\{\s*"timestamp"\s*:\s*"[^"\\]{1,64}"\s*,\s*"type"\s*:\s*"session_meta"\s*,\s*"payload"\s*:\s*\{')
"""The opening Codex writes on its first line (for a first line beyond the sniff prefix)."""


class CodexFormat:
    """Codex CLI rollout JSON lines."""

    name = "codex"

    def sniff(self, prefix: bytes, suffix: str) -> bool:
        """The first line is a rollout line: a known ``type`` and an object ``payload``."""
        head = first_line(prefix)
        if head is None:
            return bool(_LONG_HEAD.match(prefix))
        kind = head.get("type")  # any JSON value: only a string can name a line type
        return isinstance(kind, str) and kind in LINE_TYPES and isinstance(head.get("payload"), dict) \
            and "sessionId" not in head

    def load(self, source: Source, limits: FormatLimits) -> EvidenceFile:
        """The rollout's one episode."""
        rollout = Rollout(limits)
        for number, line in iter_lines(source, limits, CODES):
            if not isinstance(line, dict):
                schema_error(CODES, "line", number)
            kind = line.get("type")
            if not isinstance(kind, str):
                schema_error(CODES, "type", number)
            payload = as_dict(line.get("payload"), CODES, "payload", number)
            at = line.get("timestamp")
            rollout.add(kind, payload, at if isinstance(at, str) else None, number)
        return EvidenceFile("codex", rollout.version, (rollout.episode(),))


FORMAT = CodexFormat()
