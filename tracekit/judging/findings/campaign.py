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

from tracekit.judging.findings.judge import EpisodeVerdict
from tracekit.judging.harness.model import FAIL, ModeName, Outcome, mode_name
from tracekit.kernel.evidence import Arguments, Episode

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
    mode: ModeName = "compatible"
    """The mode this format's episodes were judged in (docs/cli.md, "Verdicts and modes")."""
    user_requested: int = 0
    """Episodes where an unallowed recipient passed because the user's instruction named it
    (docs/findings.md, "User-requested recipients")."""


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
    origin: str | None = None
    """Where the first episode's offending value came from (a provenance origin kind)."""


class FailedCall(Struct, frozen=True):
    """One failing assertion of an episode, reduced to what makes a demonstration distinct. It is
    computed where the episode is (an executor's worker) and folded where the tally is."""

    assertion: str
    tool: str | None
    """The offending call's tool name, when provenance found the call."""
    arguments_sha256: str | None
    """:func:`arguments_digest` of the call's arguments, when provenance found the call."""
    evidence: str | None
    """The assertion's evidence (part of what makes the demonstration distinct)."""
    origin: str | None = None
    """Where the offending value came from (a provenance origin kind), when traced."""


class JudgedEpisode(Struct, frozen=True):
    """An episode's verdict as the campaign tally needs it: small, with no evidence content."""

    episode: str
    result: Outcome
    disagrees: bool
    failures: tuple[FailedCall, ...]
    user_requested: bool = False
    """An assertion passed because the user's instruction named the recipient."""


def judged(episode: Episode, verdict: EpisodeVerdict) -> JudgedEpisode:
    """``verdict`` reduced for the tally; reads the offending calls' names and arguments from
    ``episode``."""
    by_index = {call.index: call for call in episode.calls}
    failures: list[FailedCall] = []
    requested = False
    for assertion in verdict.assertions:
        chain = assertion.provenance
        if assertion.result != FAIL:
            requested = requested or (chain is not None and chain.origin is not None)
            continue
        call = by_index.get(chain.call.index) if chain else None
        digest = arguments_digest(call.arguments) if call is not None else None
        origin = chain.origin.kind if chain is not None and chain.origin is not None else None
        name = call.name if call is not None else None
        failures.append(FailedCall(assertion.id, name, digest, assertion.evidence, origin))
    return JudgedEpisode(verdict.episode, verdict.result, verdict.disagrees, tuple(failures), requested)


class FindingsTally(Struct):
    """A campaign's findings, folded one episode verdict at a time."""

    counts: dict[str, PolicyCount] = {}
    distinct: dict[str, Demonstration] = {}
    distinct_overflow: int = 0

    def add(
        self, fmt: str, policy: str, trace: str, episode: Episode, verdict: EpisodeVerdict, strict: bool = False
    ) -> None:
        """Fold one episode's verdict under ``policy`` (a scenario id) in."""
        self.fold(fmt, policy, trace, judged(episode, verdict), strict)

    def fold(self, fmt: str, policy: str, trace: str, episode: JudgedEpisode, strict: bool = False) -> None:
        """Fold one judged episode of ``trace`` under ``policy``, judged in mode ``strict``, in."""
        key = f"{fmt}\0{policy}"
        count = self.counts.setdefault(key, PolicyCount(fmt, policy, mode=mode_name(strict)))
        count.episodes += 1
        count.failed += int(episode.result == FAIL)
        count.disagreements += int(episode.disagrees)
        count.user_requested += int(episode.user_requested)
        for failure in episode.failures:
            tool, digest = failure.tool, failure.arguments_sha256
            key = "\0".join([fmt, policy, failure.assertion, tool or "", digest or "", failure.evidence or ""])
            key = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
            if key in self.distinct:
                self.distinct[key].episodes += 1
            elif len(self.distinct) < DISTINCT_LIMIT:
                self.distinct[key] = Demonstration(
                    fmt, policy, failure.assertion, tool, digest, trace, episode.episode, origin=failure.origin
                )
            else:
                self.distinct_overflow += 1
