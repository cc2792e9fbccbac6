"""The tally counts repeated completeness tables once each (campaign.TABLES): its summary is the
one counted field by field, trace by trace, past the bound, across a pickle and a merge."""

from __future__ import annotations

import pickle
from collections import Counter

import msgspec

from tracekit.judging.audit import campaign
from tracekit.judging.audit.campaign import FieldGap, Tally
from tracekit.judging.audit.model import AuditReport, FieldStatus, Format, audit_report


def _report(index: int) -> AuditReport:
    kind = index % 3
    rows = (
        FieldStatus("alpha", ("present", "missing", "partial")[kind], f"events[{index % 300}]", kind == 1),
        FieldStatus("beta", "not_carried", "header.beta", index % 7 == 0),  # last trace's flag wins
        FieldStatus("gamma", "present", "header.gamma", True),
    )
    fmt: Format = "agentguard" if index % 5 else "harness"
    return audit_report(f"t{index}", fmt, readable=True, intact=True, completeness=rows)


def _expected(reports: list[AuditReport]) -> tuple[FieldGap, ...]:
    counts: dict[tuple[str, str], Counter[str]] = {}
    rerun: dict[tuple[str, str], bool] = {}
    for report in reports:
        for row in report.completeness:
            counts.setdefault((report.format, row.field), Counter())[row.status] += 1
            rerun[(report.format, row.field)] = row.needed_to_rerun
    gaps = [
        FieldGap(f, n, c["missing"], c["partial"], c["not_carried"], c["present"], rerun[(f, n)])
        for (f, n), c in counts.items()
        if c["missing"] or c["partial"] or c["not_carried"]
    ]
    return tuple(sorted(gaps, key=lambda g: (-(g.missing + g.partial), -g.not_carried, g.format, g.field)))


def test_tables_past_the_bound_count_as_field_by_field() -> None:
    reports = [_report(i) for i in range(3 * campaign.TABLES + 17)]
    assert len({(r.format, r.completeness) for r in reports}) > campaign.TABLES
    whole = Tally()
    for report in reports:
        whole.add(report)
    assert whole.summary().fields_missing_most == _expected(reports)
    cut = len(reports) // 2 + 1
    first, second = Tally(), Tally()
    for report in reports[:cut]:
        first.add(report)
    for report in reports[cut:]:
        second.add(report)
    first = pickle.loads(pickle.dumps(first))
    second = pickle.loads(pickle.dumps(second))
    first.merge(second)
    assert msgspec.structs.asdict(first.summary()) == msgspec.structs.asdict(whole.summary())
