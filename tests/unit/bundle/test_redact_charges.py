"""What redaction's selectors charge to its work budget before they search (docs/threat-model.md,
"Work budget"): a view, each marker's search of it, so that many markers over a large bundle are
refused at the budget instead of searched for half a minute."""

from __future__ import annotations

import pytest

from tracekit.bundle import redact
from tracekit.bundle.container import BLOB, RawFrame
from tracekit.judging.harness import leakscan
from tracekit.kernel.limits import DEFAULT_BUDGET, BudgetExceeded, Meter


def _blob(text: str, meter: Meter) -> redact.Blob:
    payload = bytes(32) + text.encode()
    return redact.Blob(RawFrame(BLOB, payload, len(payload), ()), 32, meter)


def _used(select: redact.Selector, text: str) -> int:
    meter = Meter(1 << 62)
    blob = _blob(text, meter)
    assert select(bytes(32), blob) is None
    return meter.used


def test_each_marker_is_charged_for_each_view_it_searches() -> None:
    text = "\n".join(f"line {i} with nothing in it" for i in range(200))
    one = _used(redact.marker_selector(["zzz-0"]), text)
    many = _used(redact.marker_selector([f"zzz-{i}" for i in range(1024)]), text)
    views = sum(len(leakscan.views(piece)) for piece in text.split("\n"))
    assert many - one >= 1023 * views


def test_many_markers_over_a_large_text_are_refused_at_the_default_budget() -> None:
    text = "\n".join(f"{i:08x} " * 8 for i in range(10_000))  # under 1 MiB: held, not spooled
    blob = _blob(text, Meter(DEFAULT_BUDGET.redact_work))
    with pytest.raises(BudgetExceeded):
        redact.marker_selector([f"zzz-{i}" for i in range(1024)])(bytes(32), blob)
    assert _used(redact.marker_selector(["zzz-0"]), text) < DEFAULT_BUDGET.redact_work


def test_a_short_text_is_charged_its_pieces_and_views() -> None:
    meter = Meter(1 << 62)
    blob = _blob("a\nb\nc", meter)
    assert list(blob.views()) == ["a", "b", "c"]
    assert meter.used == 5 + redact.TEXT_COST + 3 * (redact.PIECE_COST + redact.VIEW_COST)
