"""Assertion results shared by episodes whose harness views are equal (docs/findings.md,
"Repeated episodes").

Every assertion is a pure function of the scenario, the episode's harness view, its own entry
and the mode, and each search charges a meter of its own, made for that one assertion
(docs/threat-model.md, "Work budget"). An episode whose view equals an earlier one's under the
same scenario object and mode therefore gets the same results, refusals at the work budget
included, and they are looked up instead of computed again: a log of many samples repeats its
short episodes (a fixed prompt, the same refusal, epochs of a deterministic model).

Equal means the same bytes in JSON, order of keys included, and only for views made of JSON's
own types (strings, finite floats, integers, booleans, null, lists, dicts with string keys), so
two views that JSON would write alike but an assertion could tell apart never share a key.
Memory is bounded: views of at most :data:`KEY_BYTES` bytes, :data:`ENTRIES` per scenario and
mode, :data:`OWNERS` scenarios and modes at once (then forgotten together).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import chain
from typing import Any, cast

import msgspec

from tracekit.formats.harness.trace import Trace
from tracekit.judging.harness.model import AssertionResult
from tracekit.judging.harness.scenario import Scenario

KEY_BYTES = 8192
"""The longest view (JSON bytes) whose results are kept."""
ENTRIES = 512
"""Views kept per scenario and mode; the 513th forgets them all."""
OWNERS = 4
"""Scenarios and modes kept at once; a fifth forgets them all."""
_NODES = 1024
"""Values walked at most in an episode's tool calls and events before giving up on a key."""

Results = tuple[AssertionResult, ...]
_MEMO: dict[tuple[int, bool], tuple[Scenario, dict[bytes, Results]]] = {}


def _plain_size(values: list[Any], room: int) -> int | None:
    """Characters of strings in ``values`` when every value inside is of JSON's own types and
    they fit ``room`` characters and :data:`_NODES` values, else None."""
    stack: list[Any] = list(values)
    size = nodes = 0
    while stack:
        item = stack.pop()
        nodes += 1
        kind = type(item)
        if kind is str:
            size += len(item)
        elif kind is dict:
            for key, child in item.items():
                if type(key) is not str:
                    return None
                size += len(key)
                stack.append(child)
        elif kind is list:
            stack.extend(item)
        elif kind is float:
            if not math.isfinite(item):
                return None
        elif kind is not int and kind is not bool and item is not None:
            return None
        if size > room or nodes > _NODES:
            return None
    return size


def content_key(trace: Trace) -> bytes | None:
    """The view's JSON bytes (messages, tool calls, events), or None when it is longer than
    :data:`KEY_BYTES` or holds a value of another type."""
    # A message's values are strings (tracekit/judging/findings/view.py, rule 1).
    messages = cast("list[dict[str, str]]", trace.messages)
    try:
        size = sum(map(len, chain.from_iterable(map(dict.values, messages))))
    except TypeError:  # not a string after all: no key, the assertions run
        return None
    if size > KEY_BYTES:
        return None
    if (trace.tool_calls or trace.events) and _plain_size(trace.tool_calls + trace.events, KEY_BYTES - size) is None:
        return None
    try:
        key = msgspec.json.encode((trace.messages, trace.tool_calls, trace.events))
    except (TypeError, ValueError, OverflowError):
        return None
    return key if len(key) <= KEY_BYTES else None


def shared_results(scenario: Scenario, trace: Trace, strict: bool, compute: Callable[[], Results]) -> Results:
    """``compute()``, the results of every assertion of ``scenario`` on ``trace`` in mode
    ``strict``, or those of an earlier view equal to ``trace``."""
    key = content_key(trace)
    if key is None:
        return compute()
    owner = (id(scenario), strict)
    entry = _MEMO.get(owner)
    if entry is None or entry[0] is not scenario:  # the entry holds its scenario: ids stay unique
        if len(_MEMO) >= OWNERS:
            _MEMO.clear()
        entry = _MEMO[owner] = (scenario, {})
    memo = entry[1]
    found = memo.get(key)
    if found is None:
        found = compute()
        if len(memo) >= ENTRIES:
            memo.clear()
        memo[key] = found
    return found
