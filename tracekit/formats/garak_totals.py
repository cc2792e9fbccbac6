"""garak's ``eval`` totals, read in every layout and checked against the attempts
(docs/formats.md, "garak", step 4; "Run status").

An ``eval`` entry counts one detector's results over one probe's evaluated attempts:
``passed`` and ``total`` (garak 0.10 to 0.12, ``detector`` prefixed ``detector.`` before 0.11),
or ``passed``, ``fails``, ``nones``, ``total_evaluated`` and ``total_processed`` (0.13 and
later). A file whose totals disagree with its own attempts was cut or edited: that is recorded
as a :class:`~tracekit.kernel.evidence.RunProblem`, never smoothed over.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tracekit.formats.jsoninput import Codes, schema_error
from tracekit.kernel.evidence import RunProblem

CODES = Codes.of("garak")


@dataclass(frozen=True, slots=True)
class Totals:
    """One ``eval`` entry's counts: outputs that passed, failed, and had no score (None when
    the layout does not record it)."""

    passed: int
    fails: int
    nones: int | None
    consistent: bool = True
    """False when ``passed`` and ``fails`` do not add up to the entry's own total."""


@dataclass(slots=True)
class Tally:
    """What the evaluated attempts of one probe and detector hold."""

    scored: int = 0
    nones: int = 0
    hits: int = 0


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def read_eval(entry: dict[str, Any], line: int) -> tuple[tuple[str, str], Totals]:
    """``(probe, detector)`` and the totals of one ``eval`` entry, in any layout."""
    probe, detector = entry.get("probe"), entry.get("detector")
    if not (isinstance(probe, str) and isinstance(detector, str)):
        schema_error(CODES, "eval", line)
    passed, fails, nones = _count(entry.get("passed")), _count(entry.get("fails")), _count(entry.get("nones"))
    total = _count(entry.get("total_evaluated", entry.get("total")))
    if passed is None or (fails is None and total is None):
        schema_error(CODES, "eval", line)
    for name in ("fails", "nones", "total", "total_evaluated", "total_processed"):
        if name in entry and _count(entry[name]) is None:
            schema_error(CODES, "eval", line)
    if fails is None:
        fails = max(total - passed, 0) if total is not None else 0
    consistent = total is None or passed + fails == total
    return (probe, detector.removeprefix("detector.")), Totals(passed, fails, nones, consistent)


def tally(tallies: dict[tuple[str, str], Tally], key: tuple[str, str], per_output: list[list[Any]], threshold: Any) -> None:
    """Count one evaluated attempt's results of one detector."""
    mark = tallies.setdefault(key, Tally())
    usable = isinstance(threshold, (int, float)) and not isinstance(threshold, bool)
    for values in per_output:
        scored = [v for v in values if v is not None]
        if not scored:
            mark.nones += 1
            continue
        mark.scored += 1
        mark.hits += usable and any(v >= threshold for v in scored)


def cross_check(evals: dict[tuple[str, str], Totals], tallies: dict[tuple[str, str], Tally], threshold: Any) -> tuple[RunProblem, ...]:
    """At most one problem of each kind, summed over the ``eval`` entries that disagree."""
    usable = isinstance(threshold, (int, float)) and not isinstance(threshold, bool)
    missing = [0, 0, 0]
    contradict = [0, 0, 0]  # claimed, held, entries
    for key, totals in evals.items():
        mark = tallies.get(key, Tally())
        claimed = totals.passed + totals.fails
        if not totals.consistent:
            _add(contradict, claimed, mark.scored)
        elif claimed > mark.scored:
            _add(missing, claimed, mark.scored)
        elif claimed < mark.scored or (totals.nones is not None and totals.nones != mark.nones):
            nones = totals.nones is not None
            _add(contradict, claimed + (totals.nones or 0), mark.scored + (mark.nones if nones else 0))
        elif usable and totals.fails != mark.hits:
            _add(contradict, totals.fails, mark.hits)
    problems: list[RunProblem] = []
    if missing[2]:
        problems.append(RunProblem("samples_missing", "eval entries", claimed=missing[0], held=missing[1]))
    if contradict[2]:
        problems.append(RunProblem("totals_contradict", "eval entries", claimed=contradict[0], held=contradict[1]))
    return tuple(problems)


def _add(counts: list[int], claimed: int, held: int) -> None:
    counts[0] += claimed
    counts[1] += held
    counts[2] += 1
