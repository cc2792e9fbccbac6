"""An episode's completeness rows made from its summary (tracekit/judging/audit/completeness/
episode.py: ``summarise``, ``rows_of``) are the rows of the field-by-field definition, written out
here as the profile first computed it: one predicate per turn or call, one row per field."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tracekit.formats.reading import load_file
from tracekit.judging.audit.completeness.base import indexed
from tracekit.judging.audit.completeness.episode import (
    FIELDS,
    LOSS_FIELDS,
    NOT_CARRIED,
    assess_episode,
    summarise,
)
from tracekit.judging.audit.model import FieldStatus
from tracekit.kernel.evidence import (
    Arguments,
    Episode,
    Message,
    ModelTurn,
    RunFacts,
    Score,
    ToolCall,
    ToolResult,
    Truncation,
)

ROOT = Path(__file__).resolve().parents[3]
_F = {spec.name: spec for spec in FIELDS}


def _calls(field: str, calls: Sequence[ToolCall], ok: Callable[[ToolCall], bool], what: str) -> FieldStatus:
    lacking = [c.index for c in calls if not ok(c)]
    where = indexed("calls", lacking) + f" ({what})" if lacking else "calls"
    return _F[field].count(len(calls) - len(lacking), len(calls), where)


def _turns(field: str, ep: Episode, ok: Callable[[ModelTurn], bool], what: str) -> FieldStatus:
    if not ep.turns:
        return _F[field].row("missing", "turns (no model turn recorded)")
    lacking = [t.index for t in ep.turns if not ok(ep.turns[t.index])]
    where = indexed("turns", lacking) + f" ({what})" if lacking else "turns"
    return _F[field].count(len(ep.turns) - len(lacking), len(ep.turns), where)


def _fact(field: str, value: object, where: str) -> FieldStatus:
    missing = value is None or value == "" or value == {}
    return _F[field].row("missing" if missing else "present", where)


def _unique(calls: Sequence[ToolCall]) -> Callable[[ToolCall], bool]:
    ids = [c.call_id for c in calls if c.call_id is not None]
    dup = {i for i in ids if ids.count(i) > 1} if len(ids) <= 10_000 else set(ids)
    return lambda c: c.call_id is not None and c.call_id not in dup


def _steps(ep: Episode) -> list[FieldStatus]:
    system = [m.index for m in ep.messages if m.role == "system"]
    rows = [_F["system_prompt"].row("present", indexed("messages", system)) if system
            else _F["system_prompt"].row("missing", "messages (no system role)")]
    if ep.turns:
        rows.append(_turns("messages_as_sent", ep, lambda t: t.input_runs is not None, "input not recorded"))
    else:
        rows.append(_F["messages_as_sent"].row("partial" if ep.messages else "missing",
                                               "messages (a transcript, no model turns)"))
    rows.append(_turns("tool_schemas", ep, lambda t: t.tool_schemas is not None, "no tools"))
    rows.append(_turns("raw_model_response", ep, lambda t: t.raw_response is not None, "no raw call"))
    rows.append(_turns("finish_reason", ep, lambda t: t.finish_reason is not None, "none"))
    return rows


def _call_rows(ep: Episode) -> list[FieldStatus]:
    calls = ep.calls
    timed: Callable[[ToolCall], bool] = lambda c: c.result is not None and c.result.started_at is not None  # noqa: E731
    retry = _calls("error_and_retry", calls, lambda c: c.result is not None and c.result.retries is not None,
                   "no retry count")
    if retry.status == "missing" and any(c.result is not None for c in calls):
        retry = FieldStatus(retry.field, "partial", retry.where, retry.needed_to_rerun)
    return [
        _calls("tool_name", calls, lambda c: c.name != "", "unnamed"),
        _calls("tool_arguments", calls, lambda c: c.arguments.shape != "absent", "absent"),
        _calls("tool_call_id", calls, _unique(calls), "absent or repeated"),
        _calls("tool_result", calls, lambda c: c.result is not None
               and (c.result.text is not None or c.result.value is not None), "no result recorded"),
        _calls("call_order", calls, timed, "list position only"),
        _calls("start_time", calls, timed, "none"),
        _calls("latency", calls, lambda c: c.result is not None and c.result.latency_s is not None, "none"),
        retry,
    ]


def _run_rows(ep: Episode) -> list[FieldStatus]:
    f = ep.facts
    if f.model_version is not None:
        model = _F["model_version"].row("present", "facts.model_version")
    elif f.model is not None:
        model = _F["model_version"].row("partial", "facts.model (a name, no version)")
    else:
        model = _F["model_version"].row("missing", "facts.model_version")
    outcome = f.outcome is not None or any(s.value is not None for s in f.scores)
    return [
        _fact("endpoint", f.endpoint, "facts.endpoint"),
        model,
        _fact("sampling", f.sampling, "facts.sampling (unset: provider default, unpinned)"),
        _fact("seed", f.seed, "facts.seed (unset: unpinned)"),
        _fact("harness_revision", f.harness_revision, "facts.harness_revision"),
        _fact("tool_server_revision", f.tool_server_revision, "facts.tool_server_revision"),
        _fact("injection_point", f.injection_point, "facts.injection_point"),
        _F["outcome"].row("present" if outcome else "missing", "facts.outcome, facts.scores"),
        _F["scorer"].row("present" if f.scores else "missing", "facts.scores[].scorer"),
        _calls("results_untruncated", ep.calls, lambda c: c.result is None or c.result.truncation is None, "cut"),
        _calls("arguments_typed", ep.calls, lambda c: c.arguments.shape in ("object", "string"), "repr or absent"),
        _F["integrity"].row("not_carried", "file (the format has no hashes)"),
    ]


def _with_losses(row: FieldStatus, ep: Episode, fmt: str) -> FieldStatus:
    if row.status in ("present", "not_carried"):
        return row
    reason = NOT_CARRIED.get(fmt, {}).get(row.field)
    if reason is not None:
        status = "not_carried" if row.status == "missing" else "partial"
        return FieldStatus(row.field, status, f"{row.where} [{reason}]", row.needed_to_rerun)
    losses = [loss for loss in ep.losses if row.field in LOSS_FIELDS.get(loss, ())]
    if losses:
        return FieldStatus(row.field, "partial", f"{row.where} [{', '.join(losses)}]", row.needed_to_rerun)
    return row


def reference(ep: Episode, fmt: str) -> tuple[FieldStatus, ...]:
    """The field-by-field definition: every row worked out from the episode itself."""
    return tuple(_with_losses(row, ep, fmt) for row in (*_steps(ep), *_call_rows(ep), *_run_rows(ep)))


def _maybe(value: Any) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), st.just(value))


_results = st.builds(
    ToolResult,
    text=_maybe("out"),
    value=_maybe({"k": 1}),
    started_at=_maybe("2026-01-01T00:00:00Z"),
    latency_s=_maybe(0.5),
    retries=_maybe(0),
    truncation=_maybe(Truncation("calls[0].result", "test")),
)


@st.composite
def episodes(draw: st.DrawFn) -> Episode:
    roles = draw(st.lists(st.sampled_from(["system", "user", "assistant", "tool"]), max_size=8))
    messages = tuple(Message(i, r, "t") for i, r in enumerate(roles))  # type: ignore[arg-type]
    turns = tuple(
        ModelTurn(i, input_runs=draw(_maybe(((0, 1),))), tool_schemas=draw(_maybe(())),
                  raw_response=draw(_maybe("{}")), finish_reason=draw(_maybe("stop")))
        for i in range(draw(st.integers(0, 7)))
    )
    calls = tuple(
        ToolCall(i, 0, draw(st.sampled_from(["", "send"])), draw(st.sampled_from([None, "a", "b", f"c{i}"])),
                 Arguments(draw(st.sampled_from(["string", "object", "repr", "absent"]))),
                 draw(st.one_of(st.none(), _results)))
        for i in range(draw(st.integers(0, 7)))
    )
    facts = RunFacts(
        tool="t",
        model=draw(_maybe("m")),
        model_version=draw(_maybe("v")),
        endpoint=draw(st.sampled_from([None, "", "e"])),
        sampling=draw(st.sampled_from([None, {}, {"temperature": 0}])),
        seed=draw(st.sampled_from([None, 0, 7])),
        harness_revision=draw(_maybe("h")),
        tool_server_revision=draw(_maybe("s")),
        injection_point=draw(_maybe("i")),
        outcome=draw(_maybe("pass")),
        scores=tuple(Score("sc", draw(st.sampled_from([None, 1]))) for _ in range(draw(st.integers(0, 2)))),
    )
    losses = tuple(draw(st.lists(st.sampled_from([*LOSS_FIELDS, "other"]), max_size=3)))
    return Episode("e", facts, messages, turns, calls, losses=losses)


@settings(max_examples=400, deadline=None)
@given(episodes(), st.sampled_from([*NOT_CARRIED, "unknown"]))
def test_rows_from_the_summary_are_the_definitions(episode: Episode, fmt: str) -> None:
    rows = assess_episode(episode, fmt)
    assert rows == reference(episode, fmt)
    assert [r.field for r in rows] == [spec.name for spec in FIELDS]
    assert assess_episode(episode, fmt) is rows  # a summary met again: its rows, not new ones


def test_episodes_differing_past_what_a_location_shows_share_their_summary() -> None:
    facts = RunFacts(tool="t")
    turns = lambda n: tuple(ModelTurn(i) for i in range(n))  # noqa: E731
    assert summarise(Episode("a", facts, turns=turns(9)), "x") == summarise(Episode("b", facts, turns=turns(9)), "x")
    assert summarise(Episode("a", facts, turns=turns(9)), "x") != summarise(Episode("a", facts, turns=turns(8)), "x")


def test_real_logs_rows_are_the_definitions() -> None:
    found = 0
    for path in sorted((ROOT / "corpus" / "third_party").rglob("*")):
        if path.suffix not in (".eval", ".json") or "schemas" in path.parts:
            continue
        try:
            evidence = load_file(path)
        except Exception:  # noqa: BLE001 - not a trace of an imported format
            continue
        for episode in evidence.episodes:
            assert assess_episode(episode, evidence.format) == reference(episode, evidence.format)
            found += 1
    assert found > 50
