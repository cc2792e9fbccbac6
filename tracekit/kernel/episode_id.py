"""The one episode id every output prints and every ``--episode`` accepts (docs/cli.md,
"Episode ids").

An episode's id is derived from what the file holds, never from where it lies: the format's
own id for the episode, read from the file's content (an Inspect sample id and epoch, an OTLP
trace id, a garak attempt uuid, AgentDojo's pipeline, suite, task and attack fields, an
AgentGuard ``trace_id``), shown as itself when it is short and plain, else as the short digest
form. The same log therefore gives the same ids on every machine and under every folder name,
and a hostile id never reaches a terminal, a store or a bundle statement verbatim.
"""

from __future__ import annotations

import hashlib

ID_MAX = 64
"""The longest own id shown as itself."""

ID_PATTERN = "^[A-Za-z0-9._:-]{1,64}$"
"""Every id :func:`episode_label` returns matches this (the short digest form included)."""

UNNAMED = "trace"
"""The id of the one episode of a trace whose format names none (an OWASP harness trace)."""

_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-")


def episode_label(own_id: str) -> str:
    """The id reports print for an episode whose format calls it ``own_id``: ``own_id`` itself
    when it is 1 to 64 characters of ``[A-Za-z0-9._:-]``, else ``sha256:`` and the first 16 hex
    digits of the SHA-256 of its UTF-8 bytes (23 characters)."""
    if 0 < len(own_id) <= ID_MAX and _PLAIN.issuperset(own_id):
        return own_id
    digest = hashlib.sha256(own_id.encode("utf-8", "surrogatepass")).hexdigest()
    return f"sha256:{digest[:16]}"


def names(wanted: str, own_id: str) -> bool:
    """Whether ``--episode wanted`` names the episode the format calls ``own_id``: by the id
    every report prints, or by the format's own id."""
    return wanted in (own_id, episode_label(own_id))
