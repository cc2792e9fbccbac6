"""One episode's section of the HTML report (docs/report.md, "What a report shows"): the
timeline, the provenance chains of failed assertions, the verdicts and the completeness table.

The verdicts are the ones ``tracekit check`` computes (tracekit.judging.findings.judge) and the tables
the ones ``tracekit audit`` computes; nothing is judged here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tracekit.judging.audit.model import AuditFinding, EpisodeAudit
from tracekit.judging.findings.judge import AssertionVerdict, EpisodeVerdict
from tracekit.judging.findings.provenance import Origin
from tracekit.kernel.evidence import Episode, Message, ModelTurn, ToolCall
from tracekit.report.findings_render import ORIGIN_WORDS
from tracekit.report.html import model
from tracekit.report.html.fold import TEXT_LIMIT, Budget, Held, hold, name

TIMELINE_LIMIT = 200
"""Most timeline entries (messages and calls) one episode section shows; the rest are counted."""
FINDINGS_LIMIT = 200
"""Most audit findings one episode section lists; the rest are counted."""
BOX, GAP = 230, 40
"""A chain box's width and the gap between boxes, in SVG user units."""

OUTCOME_WORDS = {
    "succeeded": ("the tool acted", "(a result was recorded)"),
    "failed": ("the tool returned", "an error"),
    "no_result": ("no result recorded", "(it may never have run)"),
}
MATCH_WORDS = {"exact": "exact match", "case_insensitive": "match ignoring case", "none": "found nowhere earlier"}


@dataclass(frozen=True, slots=True)
class Pending:
    """A timeline entry made before the report's text budget is spent on it (:func:`entries`):
    an :class:`~tracekit.report.html.model.Item` whose texts are held, not yet folded."""

    kind: str
    title: str
    tool: str | None = None
    text: Held | None = None
    arguments: Held | None = None
    result: Held | None = None
    outcome: str | None = None

    def spent(self, budget: Budget) -> model.Item:
        """The entry, its texts folded in the budget (the message's; a call's arguments, then its
        result)."""
        if self.kind == "message":
            return model.Item("message", self.title, text=budget.spend(self.text))
        if self.kind == "call":
            arguments = budget.spend(self.arguments)
            return model.Item(
                "call", self.title, tool=self.tool, arguments=arguments, result=budget.spend(self.result),
                outcome=self.outcome,
            )
        return model.Item(self.kind, self.title)


def _message(message: Message, limit: int) -> Pending:
    title = f"{message.role} message #{message.index}"
    if message.capture != "captured":
        title += f" ({message.capture})"
    return Pending("message", title, text=hold(message.text, limit))


def _call(call: ToolCall, limit: int) -> Pending:
    from tracekit.judging.findings.provenance import outcome

    arguments = call.arguments.text
    if arguments is None and call.arguments.value is not None:
        import msgspec

        arguments = msgspec.json.encode(call.arguments.value).decode("utf-8", "replace")
    result = None if call.result is None else call.result.text
    return Pending(
        "call", f"call #{call.index}, turn {call.turn}", tool=name(call.name),
        arguments=hold(arguments, limit), result=hold(result, limit), outcome=outcome(call),
    )


def _turn(turn: ModelTurn) -> Pending:
    facts = [f"model {name(turn.model)}"] if turn.model is not None else []
    if turn.finish_reason is not None:
        facts.append(f"finish reason {name(turn.finish_reason)}")
    if turn.error:
        facts.append("the model call failed")
    return Pending("turn", f"model turn #{turn.index}" + (f": {', '.join(facts)}" if facts else ""))


Entry = Message | ToolCall | ModelTurn


def _order(episode: Episode) -> list[Entry]:
    """Messages in order, each call right after the assistant message that carries it (by call
    id, else the assistant message of its turn: docs/findings.md, "Provenance", rule 1), the
    k-th model turn just before the k-th assistant message; what is placed nowhere comes last."""
    assistant = [m for m in episode.messages if m.role == "assistant"]
    by_id = {cid: m.index for m in assistant for cid in m.call_ids}
    after: dict[int, list[ToolCall]] = {}
    unplaced: list[Entry] = []
    for call in episode.calls:
        home = by_id.get(call.call_id) if call.call_id is not None else None
        if home is None and 0 <= call.turn < len(assistant):
            home = assistant[call.turn].index
        (after.setdefault(home, []) if home is not None else unplaced).append(call)
    before = {m.index: turn for m, turn in zip(assistant, episode.turns, strict=False)}
    order: list[Entry] = []
    for message in episode.messages:
        if message.index in before:
            order.append(before[message.index])
        order.append(message)
        order += after.pop(message.index, [])
    return [*order, *episode.turns[len(assistant):], *(c for calls in after.values() for c in calls), *unplaced]


def _item(entry: Entry, limit: int) -> Pending:
    if isinstance(entry, Message):
        return _message(entry, limit)
    return _call(entry, limit) if isinstance(entry, ToolCall) else _turn(entry)


def entries(episode: Episode, limit: int = TEXT_LIMIT) -> tuple[tuple[Pending, ...], int]:
    """The timeline, bounded by TIMELINE_LIMIT, with each text held to ``limit`` characters: the
    first and the last half of the limit are shown (the start sets the task, the end holds the
    acting calls), the middle is counted and marked where it was left out. What it keeps is
    bounded whatever the episode, so a section can wait for its place in the document."""
    order = _order(episode)
    folded = max(0, len(order) - TIMELINE_LIMIT)
    if folded:
        half = TIMELINE_LIMIT // 2
        order = [*order[:half], *order[len(order) - half:]]
    items: list[Pending] = []
    for position, entry in enumerate(order):
        if folded and position == TIMELINE_LIMIT // 2:
            items.append(Pending("folded", f"{folded} entr(ies) left out here"))
        items.append(_item(entry, limit))
    return tuple(items), folded


def spend(pending: tuple[Pending, ...], budget: Budget) -> tuple[model.Item, ...]:
    """The timeline's entries, their texts folded in ``budget`` in document order."""
    return tuple(entry.spent(budget) for entry in pending)


def timeline(episode: Episode, budget: Budget) -> tuple[tuple[model.Item, ...], int]:
    """:func:`entries` folded in ``budget`` at once."""
    pending, folded = entries(episode, budget.limit)
    return spend(pending, budget), folded


def _source(origin: Origin | None) -> model.Node:
    if origin is None:
        return model.Node("source", ("no value to trace", "the assertion failed", "on an absence"), 0)
    if origin.call is not None:
        detail = f"result of call #{origin.call.index}: {name(origin.call.tool)}"
    elif origin.message_index is not None:
        detail = f"message #{origin.message_index}"
    else:
        detail = "no earlier source"
    return model.Node("source", (ORIGIN_WORDS[origin.kind], detail, MATCH_WORDS[origin.match]), 0)


def chain(verdict: AssertionVerdict) -> model.Chain | None:
    """The failed assertion's chain: source, then the acting call, then what the call did."""
    if verdict.provenance is None:
        return None
    call = verdict.provenance.call
    what, how = OUTCOME_WORDS[call.outcome]
    nodes = (
        _source(verdict.provenance.origin),
        model.Node("call", (f"acting call #{call.index}", name(call.tool), f"turn {call.turn}"), BOX + GAP),
        model.Node("result", (call.outcome.replace("_", " "), what, how), 2 * (BOX + GAP)),
    )
    note = "Matching is literal: a paraphrased or encoded value shows as coming from the model."
    return model.Chain(name(verdict.id), nodes, 3 * BOX + 2 * GAP, note)


def _says(attack_succeeded: bool | None, passed: bool | None) -> str:
    if attack_succeeded is not None:
        return "attack succeeded" if attack_succeeded else "attack failed"
    if passed is not None:
        return "task passed" if passed else "task failed"
    return "no verdict"


def verdict_parts(judged: EpisodeVerdict) -> tuple[tuple[model.Assertion, ...], tuple[model.Chain, ...], tuple[model.ToolVerdict, ...]]:
    """Our assertions, their chains and the tool's own verdicts next to ours."""
    assertions = tuple(model.Assertion(name(a.id), a.result) for a in judged.assertions)
    chains = tuple(c for c in (chain(a) for a in judged.assertions) if c is not None)
    tools = tuple(
        model.ToolVerdict(name(t.scorer), _says(t.attack_succeeded, t.passed), t.agreement)
        for t in judged.tool_verdicts
    )
    return assertions, chains, tools


def own_verdicts(episode: Episode) -> tuple[model.ToolVerdict, ...]:
    """The tool's own verdicts alone (no ``--scenario``): nothing of ours to compare them to."""
    from tracekit.judging.findings.judge import compare

    return tuple(
        model.ToolVerdict(name(v.scorer), _says(v.attack_succeeded, v.passed), v.agreement)
        for v in (compare(score, "not_run") for score in episode.facts.scores)
    )


def finding_rows(found: Sequence[AuditFinding]) -> tuple[model.Row, ...]:
    return tuple(
        model.Row(f.code.value, f.severity.value, f.where or "-", f.message) for f in found[:FINDINGS_LIMIT]
    )


def completeness_rows(audit: EpisodeAudit | None) -> tuple[model.Row, ...]:
    if audit is None:
        return ()
    return tuple(
        model.Row(r.field, r.status, r.where, "yes" if r.needed_to_rerun else "no") for r in audit.completeness
    )
