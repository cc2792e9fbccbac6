"""Replay's comparison of recorded and recomputed checks (tracekit/judging/replay/equivalence.py):
when the two lists are the same, the shortcut gives exactly what the pairing gives."""

from __future__ import annotations

import pytest

from tracekit.judging.replay import equivalence
from tracekit.judging.replay.results import CheckOutcome


def _check(n: int, check_id: str | None = None, passed: bool = True) -> CheckOutcome:
    return CheckOutcome(check_id if check_id is not None else f"c{n}", f"name {n}", passed, "high", 10, "ok", ("e",))


def _copy(checks: list[CheckOutcome]) -> list[CheckOutcome]:
    return [CheckOutcome(**{f: getattr(c, f) for f in c.__struct_fields__}) for c in checks]


SAME = [_check(1), _check(2, passed=False), _check(3)]
CASES = [
    ([], []),
    (SAME, _copy(SAME)),
    (SAME, SAME[:2]),
    ([_check(1), _check(2, check_id="c1")], [_check(1)]),  # a repeated id: a duplicate
    ([_check(1), CheckOutcome(None, "unknown", True, "low", 0, "", ())], [_check(1)]),  # no id: unexpected
]


@pytest.mark.parametrize(("recorded", "recomputed"), CASES)
def test_the_shortcut_is_the_pairing(
    recorded: list[CheckOutcome], recomputed: list[CheckOutcome], monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = equivalence._compare_checks(recorded, recomputed)
    monkeypatch.setattr(equivalence, "_same", lambda a, b: False)
    assert fast == equivalence._compare_checks(recorded, recomputed)


def test_a_changed_check_is_not_the_same() -> None:
    assert not equivalence._same([_check(1)], [_check(1, passed=False)])
    assert equivalence._same([_check(1), _check(2)], [_check(1), _check(2)])
