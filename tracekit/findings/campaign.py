"""Findings over a campaign: failing episodes per format and policy, distinct demonstrations
(docs/findings.md, "Campaigns").

Forty failing episodes are forty demonstrations only if they differ. Two failures are the same
demonstration when they fail the same assertion through a call to the same tool with identical
arguments (compared by the SHA-256 of their verbatim form: the string as found, or the RFC 8785
form of an object) and the same offending value. Each distinct demonstration is listed once,
with how many episodes repeat it. Memory is bounded: counts per (format, policy) and at most
:data:`DISTINCT_LIMIT` distinct demonstrations are kept; the rest are counted.
"""

from __future__ import annotations

import hashlib

import rfc8785
from msgspec import Struct

from tracekit.evidence import Arguments, Episode
from tracekit.findings.judge import EpisodeVerdict
from tracekit.harness.model import FAIL

DISTINCT_LIMIT = 10_000


def arguments_digest(arguments: Arguments) -> str:
    """SHA-256 of a call's arguments in their verbatim form (see module docstring)."""
    if arguments.shape == "object":
        try:
            data = rfc8785.dumps(arguments.value)
        except (rfc8785.CanonicalizationError, TypeError, ValueError):
            data = repr(arguments.value).encode("utf-8", "surrogatepass")
        return hashlib.sha256(b"object\0" + data).hexdigest()
    text = arguments.text or ""
    return hashlib.sha256(arguments.shape.encode() + b"\0" + text.encode("utf-8", "surrogatepass")).hexdigest()


class PolicyCount(Struct):
    """Episodes judged and failed under one policy, for one format."""

    format: str
    policy: str
    episodes: int = 0
    failed: int = 0
    disagreements: int = 0


class Demonstration(Struct):
    """One distinct failure and how many episodes repeat it."""

    format: str
    policy: str
    assertion: str
    tool: str | None
    arguments_sha256: str | None
    first_trace: str
    first_episode: str
    episodes: int = 1


class FindingsTally(Struct):
    """A campaign's findings, folded one episode verdict at a time."""

    counts: dict[str, PolicyCount] = {}
    distinct: dict[str, Demonstration] = {}
    distinct_overflow: int = 0

    def add(self, fmt: str, policy: str, trace: str, episode: Episode, verdict: EpisodeVerdict) -> None:
        """Fold one episode's verdict under ``policy`` (a scenario id) in."""
        count = self.counts.setdefault(f"{fmt}\0{policy}", PolicyCount(fmt, policy))
        count.episodes += 1
        count.failed += int(verdict.result == FAIL)
        count.disagreements += int(verdict.disagrees)
        by_index = {call.index: call for call in episode.calls}
        for assertion in verdict.assertions:
            if assertion.result != FAIL:
                continue
            call = by_index.get(assertion.provenance.call.index) if assertion.provenance else None
            digest = arguments_digest(call.arguments) if call is not None else None
            tool = call.name if call is not None else None
            key = "\0".join([fmt, policy, assertion.id, tool or "", digest or "", assertion.evidence or ""])
            key = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
            if key in self.distinct:
                self.distinct[key].episodes += 1
            elif len(self.distinct) < DISTINCT_LIMIT:
                self.distinct[key] = Demonstration(fmt, policy, assertion.id, tool, digest, trace, verdict.episode)
            else:
                self.distinct_overflow += 1
