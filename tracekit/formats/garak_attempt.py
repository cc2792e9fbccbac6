"""One garak attempt record, in every layout garak has written (docs/formats.md, "garak").

- garak 0.13 and later: ``prompt`` is a ``Conversation`` (``{"turns": [{"role", "content":
  {"text", "notes", ...}}]}``) and each of ``outputs`` a ``Message`` (``{"text", ...}``) or null.
- garak 0.10 to 0.12: ``prompt`` is the first prompt text (a bare string), ``outputs`` a list of
  strings, and ``messages`` the conversation: a list of ``{"role", "content"}`` turns before
  generation, then one list of turns per generation (the prompt's turns, then that output).
- ``detector_results`` values are one score per output, or (judge and multi-turn detectors) a
  list of scores per output (one per turn).

What the model saw and said is compared between an attempt's records through :func:`seen`:
roles and texts only, because garak's detectors annotate ``notes`` between the records.
"""

from __future__ import annotations

from typing import Any

from tracekit.formats.jsoninput import Budget, Codes, as_dict, as_list, opt_str, schema_error
from tracekit.kernel.evidence import EpisodeError, Message, ModelTurn, Role, Score

CODES = Codes.of("garak")
_ROLES: dict[str, Role] = {"system": "system", "user": "user", "assistant": "assistant"}
Turns = list[tuple[str, str | None]]


def text(message: Any, field: str) -> str | None:
    """A garak ``Message``'s ``text`` (a bare string in older files)."""
    if message is None or isinstance(message, str):
        return message
    return opt_str(as_dict(message, CODES, field).get("text"), CODES, field)


def _turn(turn: Any, field: str) -> tuple[str, str | None]:
    item = as_dict(turn, CODES, field)
    role = item.get("role")
    if not isinstance(role, str):
        schema_error(CODES, f"{field}.role")
    return role, text(item.get("content"), f"{field}.content")


def _history(messages: Any, budget: Budget) -> Turns | None:
    """The prompt's turns from a 0.10-0.12 ``messages`` list: its leading turns, or the first
    generation's turns without that generation's output; None when it holds none."""
    if not isinstance(messages, list) or not messages:
        return None
    first = messages[0]
    if isinstance(first, dict):
        conversation = [m for m in messages if isinstance(m, dict)]
    else:
        conversation = as_list(first, CODES, "attempt.messages[]")
    turns: Turns = []
    for turn in conversation:
        budget.take()
        turns.append(_turn(turn, "attempt.messages[][]"))
    if isinstance(first, list) and turns and turns[-1][0] == "assistant":
        turns.pop()
    return turns or None


def prompt_turns(entry: dict[str, Any], budget: Budget) -> Turns:
    """The turns the model was sent, as ``(role, text)``, in any layout."""
    prompt = entry.get("prompt")
    if prompt is None:
        return []
    if isinstance(prompt, str):
        return _history(entry.get("messages"), budget) or [("user", prompt)]
    turns: Turns = []
    for turn in as_list(as_dict(prompt, CODES, "attempt.prompt").get("turns"), CODES, "attempt.prompt.turns"):
        budget.take()
        turns.append(_turn(turn, "attempt.prompt.turns[]"))
    return turns


def output_texts(entry: dict[str, Any], budget: Budget) -> list[str | None]:
    """Each output's text (None for an output garak recorded as null)."""
    texts: list[str | None] = []
    for output in as_list(entry.get("outputs"), CODES, "attempt.outputs"):
        budget.take()
        texts.append(text(output, "attempt.outputs[]"))
    return texts


def seen(entry: dict[str, Any], budget: Budget) -> tuple[Any, list[str | None], list[bool]]:
    """What the model saw and said: the prompt's turns (and a 0.10-0.12 prompt text), the
    outputs' texts, and which outputs were null; notes and other annotations left out."""
    outputs = as_list(entry.get("outputs"), CODES, "attempt.outputs")
    prompt = entry.get("prompt")
    shown = (prompt_turns(entry, budget), prompt if isinstance(prompt, str) else None)
    return shown, output_texts(entry, budget), [o is None for o in outputs]


def conversation(
    entry: dict[str, Any], budget: Budget
) -> tuple[tuple[Message, ...], tuple[ModelTurn, ...], tuple[EpisodeError, ...]]:
    """The prompt's turns, then one assistant message and one model turn per output."""
    messages = [Message(i, _ROLES.get(role, "other"), said) for i, (role, said) in enumerate(prompt_turns(entry, budget))]
    sent = ((0, len(messages)),) if messages else ()
    turns: list[ModelTurn] = []
    errors: list[EpisodeError] = []
    outputs = as_list(entry.get("outputs"), CODES, "attempt.outputs")
    for output, said in zip(outputs, output_texts(entry, budget), strict=True):
        turns.append(ModelTurn(len(turns), input_runs=sent, error=output is None))
        if output is None:
            errors.append(EpisodeError("model_error", f"turns[{len(turns) - 1}]"))
        messages.append(Message(len(messages), "assistant", said))
    return tuple(messages), tuple(turns), tuple(errors)


def _number(value: Any) -> bool:
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def score_values(values: Any, budget: Budget) -> list[list[Any]]:
    """A detector's results: per output, its scores (one, or one per turn for judge and
    multi-turn detectors)."""
    per_output: list[list[Any]] = []
    for value in as_list(values, CODES, "attempt.detector_results[]"):
        budget.take()
        inner = value if isinstance(value, list) else [value]
        budget.take(len(inner))
        if not all(_number(v) for v in inner):
            schema_error(CODES, "attempt.detector_results[]")
        per_output.append(inner)
    return per_output


def score(detector: str, value: Any, settled: tuple[int, int] | None, threshold: Any) -> Score:
    """A detector score with the verdict the file supports (docs/formats.md, "garak")."""
    hit: bool | None = None
    if value is not None and settled is not None and (settled[0] == 0) != (settled[1] == 0):
        hit = settled[1] > 0
    elif value is not None and _number(threshold) and threshold is not None:
        hit = value >= threshold
    return Score(f"garak:{detector}", value, passed=None if hit is None else not hit, attack_succeeded=hit)
