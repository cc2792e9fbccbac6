"""``tracekit show`` for a file of any imported format: what the file holds, never its content
(docs/cli.md, show; docs/formats.md, "Using it from the command line").

Pure over an :class:`~tracekit.kernel.evidence.EvidenceFile`. The report counts: episodes, model
turns, messages by role, tool calls, errors, truncations (with the bytes lost when the format
records them), redactions, scores and the exporter's named losses. The only strings taken from
the file are tool and scorer names and episode ids, each shown only when short and plain
(:func:`tracekit.report.verify_render.shown`, :func:`tracekit.judging.audit.model.episode_label`); a
score's value is shown only when it is a number or a pass/fail word. Message text, arguments and
results never appear.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator

import msgspec

from tracekit import REPORT_VERSION
from tracekit.formats.base import EpisodeStream, in_order
from tracekit.kernel.canonical import jcs_bytes
from tracekit.kernel.episode_id import episode_label
from tracekit.kernel.evidence import Arguments, Episode, EvidenceFile, Score, ToolCall
from tracekit.report.jsonout import struct_chunks
from tracekit.report.text import blocks, fields, md_report, md_section, md_table, table
from tracekit.report.verify_render import shown

TOOL_NAMES_SHOWN = 20
"""Distinct tool names listed per episode (in first-call order); the rest are counted."""
SCORES_SHOWN = 20
CALLS_SHOWN = 1000
"""Calls listed per episode with their digests (the count covers every call)."""
VERDICT_WORDS = frozenset(
    {"pass", "fail", "PASS", "FAIL", "passed", "failed", "C", "I", "correct", "incorrect"}
)
"""Score values shown as recorded: the pass/fail words the supported tools write (Inspect's
``C``/``I`` included). Any other text value is withheld."""
ROLES = ("system", "developer", "user", "assistant", "tool", "other")


class ScoreShow(msgspec.Struct, frozen=True):
    """One recorded verdict."""

    scorer: str
    value: int | float | str | None
    """A number, ``true``/``false``, or a pass/fail word; None when the value is anything else."""
    passed: bool | None
    attack_succeeded: bool | None


class CallShow(msgspec.Struct, frozen=True, kw_only=True):
    """One tool call as digests and sizes: enough to match it against a copy of the evidence,
    never its content."""

    index: int
    name: str
    arguments_shape: str
    """``object``, ``string``, ``repr`` or ``absent`` (tracekit.kernel.evidence.Arguments)."""
    arguments_sha256: str | None
    """SHA-256 of the verbatim string (``string``, ``repr``), or of the object's RFC 8785
    canonical JSON (``object``); None when absent."""
    result: str
    """``ok``, ``error``, or ``none`` when no result was recorded."""
    result_bytes: int | None
    """UTF-8 bytes of the result text as recorded (after any cut); None when not captured."""
    result_sha256: str | None


class EpisodeShow(msgspec.Struct, frozen=True, kw_only=True):
    """What one episode holds, as counts."""

    id: str
    turns: int
    messages: dict[str, int]
    """Messages by role (our role names), every role listed."""
    tool_calls: int
    tool_names: tuple[str, ...]
    tool_names_not_listed: int
    calls_without_result: int
    tool_errors: int
    errors: dict[str, int]
    """Run errors by kind (``sample_error``, ``crash``...)."""
    truncations: int
    truncations_suspected: int
    bytes_lost: int
    """Sum over truncations whose raw and kept sizes the format records."""
    redactions: int
    redaction_bytes_lost: int
    scores: tuple[ScoreShow, ...]
    losses: tuple[str, ...]
    calls: tuple[CallShow, ...]
    """The first :data:`CALLS_SHOWN` calls (JSON only)."""


class EvidenceShow(msgspec.Struct, frozen=True, kw_only=True):
    """``show``'s report for an imported file."""

    format: str
    format_version: str
    episode_count: int
    episodes: tuple[EpisodeShow, ...]


def _value(score: Score) -> int | float | str | None:
    value = score.value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return value if value == value and value not in (float("inf"), float("-inf")) else None
    if isinstance(value, str) and value in VERDICT_WORDS:
        return value
    return None


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _arguments_digest(arguments: Arguments) -> str | None:
    if arguments.shape in ("string", "repr") and arguments.text is not None:
        return _sha256(arguments.text.encode("utf-8", "surrogatepass"))
    if arguments.shape == "object":
        try:
            return _sha256(jcs_bytes(arguments.value))
        except (TypeError, ValueError, OverflowError):
            return None
    return None


def _call(call: ToolCall) -> CallShow:
    result = call.result
    text = None if result is None else result.text
    if result is not None and text is None and result.value is not None:
        try:
            data: bytes | None = jcs_bytes(result.value)
        except (TypeError, ValueError, OverflowError):
            data = None
    else:
        data = None if text is None else text.encode("utf-8", "surrogatepass")
    return CallShow(
        index=call.index,
        name=shown(call.name),
        arguments_shape=call.arguments.shape,
        arguments_sha256=_arguments_digest(call.arguments),
        result="none" if result is None else ("error" if result.is_error else "ok"),
        result_bytes=None if data is None else len(data),
        result_sha256=None if data is None else _sha256(data),
    )


def _tool_names(episode: Episode) -> tuple[tuple[str, ...], int]:
    seen: dict[str, None] = {}
    for call in episode.calls:
        seen.setdefault(call.name, None)
    names = list(seen)
    return tuple(shown(n) for n in names[:TOOL_NAMES_SHOWN]), max(0, len(names) - TOOL_NAMES_SHOWN)


class _Repeated:
    """What many episodes of one file share (role counts, losses), made once and never changed
    once made: what show keeps per episode is then little more than its own counts."""

    def __init__(self) -> None:
        self.roles: dict[tuple[int, ...], dict[str, int]] = {}
        self.losses: dict[tuple[str, ...], tuple[str, ...]] = {}

    def role_counts(self, episode: Episode) -> dict[str, int]:
        """Messages by role, every role listed."""
        counts = dict.fromkeys(ROLES, 0)
        for message in episode.messages:
            if message.role in counts:
                counts[message.role] += 1
        return self.roles.setdefault(tuple(counts.values()), counts)

    def shown_losses(self, episode: Episode) -> tuple[str, ...]:
        known = self.losses.get(episode.losses)
        if known is None:
            known = self.losses[episode.losses] = tuple(shown(loss) for loss in episode.losses)
        return known


def _episode(episode: Episode, repeated: _Repeated) -> EpisodeShow:
    calls, truncations, redactions = episode.calls, episode.truncations, episode.redactions
    names, not_listed = _tool_names(episode) if calls else ((), 0)
    lost = sum(
        t.raw_bytes - t.kept_bytes
        for t in truncations
        if t.raw_bytes is not None and t.kept_bytes is not None and t.raw_bytes > t.kept_bytes
    ) if truncations else 0
    return EpisodeShow(
        id=episode_label(episode.id),
        turns=len(episode.turns),
        messages=repeated.role_counts(episode),
        tool_calls=len(calls),
        tool_names=names,
        tool_names_not_listed=not_listed,
        calls_without_result=sum(1 for c in calls if c.result is None) if calls else 0,
        tool_errors=sum(1 for c in calls if c.result is not None and c.result.is_error) if calls else 0,
        errors=dict(sorted(Counter(shown(e.kind) for e in episode.errors).items())) if episode.errors else {},
        truncations=len(truncations),
        truncations_suspected=sum(1 for t in truncations if t.suspected) if truncations else 0,
        bytes_lost=lost,
        redactions=len(redactions),
        redaction_bytes_lost=sum(r.bytes_lost or 0 for r in redactions) if redactions else 0,
        scores=tuple(
            ScoreShow(shown(s.scorer), _value(s), s.passed, s.attack_succeeded)
            for s in episode.facts.scores[:SCORES_SHOWN]
        ),
        losses=repeated.shown_losses(episode),
        calls=tuple(_call(c) for c in calls[:CALLS_SHOWN]),
    )


def evidence_show(evidence: EvidenceFile | EpisodeStream) -> EvidenceShow:
    """The typed report behind every renderer below. From a stream, only each episode's
    counts are kept while the file is read (docs/formats.md, "Streaming episodes")."""
    stream = evidence if isinstance(evidence, EpisodeStream) else EpisodeStream.whole(evidence)
    repeated = _Repeated()
    episodes = in_order((key, _episode(e, repeated)) for key, e in stream.pairs)
    return EvidenceShow(
        format=stream.format,
        format_version=shown(stream.format_version),
        episode_count=len(episodes),
        episodes=tuple(episodes),
    )


def render_json(report: EvidenceShow) -> Iterator[str]:
    """The report as ``dumps_struct`` writes it, its episodes rendered one at a time: a file of
    50,000 episodes is never one string (docs/threat-model.md, "The Inspect archive reader")."""
    return struct_chunks(report, "episodes", report_version=REPORT_VERSION)


def _messages(counts: dict[str, int]) -> str:
    return " ".join(f"{role} {n}" for role, n in counts.items() if n) or "0"


def _scores(scores: tuple[ScoreShow, ...]) -> str:
    def one(s: ScoreShow) -> str:
        value = "withheld" if s.value is None else str(s.value)
        return f"{s.scorer}={value}"

    return ", ".join(one(s) for s in scores) or "-"


def _truncated(e: EpisodeShow) -> str:
    if not e.truncations:
        return "0"
    suspected = f", {e.truncations_suspected} suspected" if e.truncations_suspected else ""
    return f"{e.truncations} ({e.bytes_lost} bytes lost{suspected})"


def _tools(e: EpisodeShow) -> str:
    more = f" +{e.tool_names_not_listed} more" if e.tool_names_not_listed else ""
    return (", ".join(e.tool_names) or "-") + more


HEADERS = [
    "episode", "turns", "messages", "calls", "tools", "no result", "tool errors", "errors",
    "truncated", "redacted", "scores", "losses",
]


def _rows(report: EvidenceShow) -> list[list[object]]:
    return [
        [
            e.id,
            e.turns,
            _messages(e.messages),
            e.tool_calls,
            _tools(e),
            e.calls_without_result,
            e.tool_errors,
            ", ".join(f"{k} {n}" for k, n in e.errors.items()) or "0",
            _truncated(e),
            f"{e.redactions} ({e.redaction_bytes_lost} bytes lost)" if e.redactions else "0",
            _scores(e.scores),
            ", ".join(e.losses) or "-",
        ]
        for e in report.episodes
    ]


def _head(report: EvidenceShow) -> list[tuple[str, str]]:
    return [
        ("format", report.format),
        ("format version", report.format_version),
        ("integrity", "none (the format carries no hashes or signatures)"),
        ("episodes", str(report.episode_count)),
    ]


def render_table(report: EvidenceShow) -> str:
    """The head of a one-trace report, then one row per episode (report/text.py)."""
    return blocks(fields(_head(report)), table(_rows(report), HEADERS) if report.episodes else "")


def render_markdown(report: EvidenceShow) -> str:
    """The same as Markdown: the head's field/value table, then the episodes."""
    out = md_report("show", _head(report))
    if report.episodes:
        out += md_section("Episodes", md_table(HEADERS, _rows(report)))
    return "\n".join(out) + "\n"
