"""Typed access to decoded Inspect values: schema checks, ``attachment://`` resolution with a
size budget, and pool slices (docs/formats.md, "Inspect AI", steps S2, S3 and S5).

Pure; the recursions are bounded by the document's depth pre-scan (step D2).
"""

from __future__ import annotations

from typing import Any

from tracekit.formats.base import FormatError, FormatLimits
from tracekit.kernel.errors import Code, finding

_ATTACHMENT = "attachment://"


def schema(rule: str, member: str = "sample") -> FormatError:
    return FormatError(finding(Code.INSPECT_SCHEMA, rule=rule, member=member))


def dangling(kind: str) -> FormatError:
    return FormatError(finding(Code.INSPECT_DANGLING_REFERENCE, kind=kind, member="sample"))


def obj(value: Any, rule: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise schema(rule)
    return value


def lst(value: Any, rule: str) -> list[Any]:
    if not isinstance(value, list):
        raise schema(rule)
    return value


def opt_str(value: Any, rule: str, member: str = "sample") -> str | None:
    if value is not None and not isinstance(value, str):
        raise schema(rule, member)
    return value


class Resolver:
    """Step S2: ``attachment://`` references, resolved from ``sample.attachments``.

    A reference costs a few bytes and may stand for megabytes, and raw calls are re-encoded
    after resolution, so resolved size is budgeted (step S5): one raw request or response may
    reach ``member_bytes``, all of an episode's together ``total_decompressed``."""

    def __init__(self, attachments: dict[str, Any], limits: FormatLimits) -> None:
        self.attachments = attachments
        self.limits = limits
        self.episode_used = 0
        self.call_used = 0

    def text(self, value: str) -> str:
        if not value.startswith(_ATTACHMENT):
            return value
        found = self.attachments.get(value[len(_ATTACHMENT) :])
        if not isinstance(found, str):
            raise dangling("attachment")
        return found

    def deep(self, value: Any, fresh: bool = True) -> Any:
        """Resolve every string of one raw call's JSON value, within the size budget;
        ``fresh=False`` adds to the value resolved just before (a request and its pool)."""
        if fresh:
            self.call_used = 0
        return self._deep(value)

    def _charge(self, size: int) -> None:
        self.call_used += size
        self.episode_used += size
        if self.call_used > self.limits.member_bytes:
            raise FormatError(
                finding(Code.INSPECT_MEMBER_TOO_LARGE, limit=self.limits.member_bytes)
            )
        if self.episode_used > self.limits.total_decompressed:
            raise FormatError(
                finding(Code.INSPECT_TOTAL_TOO_LARGE, limit=self.limits.total_decompressed)
            )

    def _deep(self, value: Any) -> Any:
        # Recursion depth is bounded by the document's depth pre-scan (step D2) plus one pool.
        if isinstance(value, str):
            found = self.text(value)
            self._charge(len(found) + 2)
            return found
        self._charge(8)
        if isinstance(value, list):
            return [self._deep(v) for v in value]
        if isinstance(value, dict):
            return {k: self._deep(v) for k, v in value.items()}
        return value


def seconds(value: Any) -> float | None:
    """A duration in seconds when the value is a number (a bool is not one)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def content_text(content: Any, resolve: Resolver, rule: str) -> str | None:
    """A message's or result's text: a string, or its text blocks joined with newlines."""
    if content is None:
        return None
    if isinstance(content, str):
        return resolve.text(content)
    texts = []
    for block in lst(content, rule):
        block = obj(block, rule)
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(resolve.text(block["text"]))
    return "\n".join(texts) if texts else None


def slices(refs: Any, pool: list[Any], kind: str) -> list[Any]:
    """Step S3: ``[[start, end), ...]`` ranges into a pool."""
    out: list[Any] = []
    for pair in lst(refs, f"{kind} refs must be a list"):
        pair = lst(pair, f"{kind} refs must be [start, end] pairs")
        if len(pair) != 2 or not all(type(x) is int for x in pair):
            raise schema(f"{kind} refs must be [start, end] pairs")
        start, end = pair
        if not 0 <= start <= end <= len(pool):
            raise dangling(kind)
        out.extend(pool[start:end])
    return out
