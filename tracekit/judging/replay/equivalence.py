"""Compare the recorded verdict with the recomputed one: exact, semantic or divergent
(docs/replay.md, "Equivalence").

Upstream compares check lists *by position*, so merely reordering check_result events makes a
replay divergent, and a reordered list can pair a recorded check with a different recomputed one.
tracekit pairs checks by identity instead (docs/replay.md, "Deviations from upstream"): a recorded
check is the recomputed check
whose display name or id it carries (checks.resolve_name). Then:

* per paired check, a difference in ``passed``, ``severity``, ``evidence`` (order-sensitive, as
  upstream) or ``score_contribution`` is *divergent*; a difference in ``message`` alone is
  *semantic*;
* a recomputed check with no recorded counterpart is ``missing``; a recorded check whose name
  denotes no enabled check is ``unexpected``; a second record for the same check is
  ``duplicate``: all three are divergent;
* run level: ``score`` (numerically; ``70.0`` equals ``70``, ``70.5`` does not), ``result``, and
  ``failed_checks`` and ``warning_checks`` compared as multisets of check identities (their
  order carries no policy meaning): any difference is divergent.

The equivalence is divergent if any difference is divergent, else semantic if any is semantic,
else exact. Every difference is listed; recorded values in a difference are trace content and are
reported as data, never in a diagnostic message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import msgspec

from tracekit.judging.replay.checks import resolve_name
from tracekit.judging.replay.results import CheckOutcome, Verdict

Classification = Literal["exact", "semantic", "divergent"]
EXACT: Classification = "exact"
SEMANTIC: Classification = "semantic"
DIVERGENT: Classification = "divergent"
DIVERGENT_FIELDS = ("passed", "severity", "evidence", "score_contribution")
SEMANTIC_FIELDS = ("message",)


Value = str | bool | int | float | tuple[str, ...] | CheckOutcome | None
"""A compared value: a field's value (text, flag, number, list of names or evidence lines), a
whole check (missing, unexpected or duplicate), or None on the side that has no such check."""


class Difference(msgspec.Struct, frozen=True):
    """One field that differs between the recorded and the recomputed verdict."""

    scope: Literal["check", "run"]
    field: str
    """A field of our schema (``passed``, ``score``, ...) or a pairing status (``missing``,
    ``unexpected``, ``duplicate``)."""
    check: str | None
    """The check id for a check-level difference, when the recorded name denotes one."""
    recorded: Value
    recomputed: Value
    classification: Classification


class CheckComparison(msgspec.Struct, frozen=True):
    """One check's pairing and how it compared."""

    id: str | None
    status: Literal["matched", "missing", "unexpected", "duplicate"]
    classification: Classification
    recorded_position: int | None
    recomputed_position: int | None
    differences: tuple[str, ...]


class Equivalence(msgspec.Struct, frozen=True):
    """The comparison's classification, per-check pairings and every difference."""

    classification: Classification
    comparisons: tuple[CheckComparison, ...]
    differences: tuple[Difference, ...]


def _value(check: CheckOutcome, name: str) -> Value:
    value: Value = getattr(check, name)
    return value


def _pair(old: CheckOutcome, new: CheckOutcome) -> list[Difference]:
    found: list[Difference] = []
    kind: Classification
    for name, kind in [
        *((f, DIVERGENT) for f in DIVERGENT_FIELDS),
        *((f, SEMANTIC) for f in SEMANTIC_FIELDS),
    ]:
        if getattr(old, name) != getattr(new, name):
            found.append(
                Difference("check", name, new.id, _value(old, name), _value(new, name), kind)
            )
    return found


def _compare_checks(
    recorded: Sequence[CheckOutcome], recomputed: Sequence[CheckOutcome]
) -> tuple[list[CheckComparison], list[Difference]]:
    if _same(recorded, recomputed):  # the usual case: what the pairing below finds, without it
        return [
            CheckComparison(new.id, "matched", EXACT, position, position, ())
            for position, new in enumerate(recomputed)
            if new.id is not None
        ], []
    positions = {check.id: index for index, check in enumerate(recomputed)}
    paired: dict[str, int] = {}
    extra: list[CheckComparison] = []
    differences: list[Difference] = []
    for index, old in enumerate(recorded):
        if old.id is None or old.id not in positions or old.id in paired:
            status: Literal["duplicate", "unexpected"] = (
                "duplicate" if old.id in paired else "unexpected"
            )
            extra.append(CheckComparison(old.id, status, DIVERGENT, index, None, ("check",)))
            differences.append(Difference("check", status, old.id, old, None, DIVERGENT))
            continue
        paired[old.id] = index
    comparisons: list[CheckComparison] = []
    for position, new in enumerate(recomputed):
        assert new.id is not None
        if new.id not in paired:
            comparisons.append(
                CheckComparison(new.id, "missing", DIVERGENT, None, position, ("check",))
            )
            differences.append(
                Difference("check", "missing", new.id, None, new, DIVERGENT)
            )
            continue
        found = _pair(recorded[paired[new.id]], new)
        differences.extend(found)
        comparisons.append(
            CheckComparison(
                new.id,
                "matched",
                _classify(found),
                paired[new.id],
                position,
                tuple(d.field for d in found),
            )
        )
    return comparisons + extra, differences


def _same(recorded: Sequence[CheckOutcome], recomputed: Sequence[CheckOutcome]) -> bool:
    """The recorded checks are the recomputed ones, field for field and in order, each with its
    own id: every check is then matched to the one at its position, with no difference."""
    if tuple(recorded) != tuple(recomputed):
        return False
    ids = [check.id for check in recomputed]
    return None not in ids and len(set(ids)) == len(ids)


def _identities(names: Sequence[str]) -> list[str]:
    """Check identities for a list of recorded names, sorted (two lists are equal as multisets
    when these are equal); an unknown name stays distinct."""
    return sorted(resolve_name(name) or f"unresolved:{name}" for name in names)


def _compare_run(recorded: Verdict, recomputed: Verdict) -> list[Difference]:
    found: list[Difference] = []
    if recorded.score != recomputed.score:
        found.append(Difference("run", "score", None, recorded.score, recomputed.score, DIVERGENT))
    if recorded.result != recomputed.result:
        found.append(
            Difference("run", "result", None, recorded.result, recomputed.result, DIVERGENT)
        )
    for name in ("failed_checks", "warning_checks"):
        old, new = getattr(recorded, name), getattr(recomputed, name)
        if _identities(old) != _identities(new):
            found.append(Difference("run", name, None, old, new, DIVERGENT))
    return found


def _classify(differences: Sequence[Difference]) -> Classification:
    kinds = {d.classification for d in differences}
    return DIVERGENT if DIVERGENT in kinds else SEMANTIC if SEMANTIC in kinds else EXACT


def compare(recorded: Verdict, recomputed: Verdict) -> Equivalence:
    """Compare ``recorded`` (from the trace) with ``recomputed`` (from the evidence)."""
    comparisons, differences = _compare_checks(recorded.checks, recomputed.checks)
    differences.extend(_compare_run(recorded, recomputed))
    return Equivalence(_classify(differences), tuple(comparisons), tuple(differences))
