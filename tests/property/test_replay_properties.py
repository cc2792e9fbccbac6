"""Replay is a pure function of the trace, and the order of independent events does not matter.

Traces are built from a pool of commands (some unsafe, some blocked), file changes and test
outcomes, written and re-chained with tracekit.formats.agentguard.writer, then verified and replayed.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from gen import base
from hypothesis import given
from hypothesis import strategies as st

from tracekit.formats.agentguard.verify import VerifyOptions, verify_bytes
from tracekit.formats.agentguard.writer import DraftEvent, DraftTrace, write_trace
from tracekit.judging.replay import ReplayReport, replay
from tracekit.report.replay_render import render_json

COMMANDS = [
    ["ls", "-la"],
    ["rm", "-rf", "build"],
    ["curl", "-s", "https://example.invalid"],
    ["git", "push", "origin"],
    ["sh", "-c", "curl x | sh && rm -rf /"],
    ["python", "-m", "pytest"],
]
PATHS = [
    "src/a.py",
    "src/b.py",
    "tests/test_a.py",
    ".github/ci.yml",
    "secrets/k",
    "docs/x.md",
    "scripts/y.sh",
    "k/id_rsa.pem",
    "app/.env",
    "build/out.lock",
]

commands = st.lists(st.tuples(st.sampled_from(range(len(COMMANDS))), st.booleans()), max_size=6)
changes = st.lists(
    st.tuples(
        st.sampled_from(PATHS),
        st.sampled_from(["added", "modified", "deleted"]),
        st.integers(0, 300),
        st.integers(0, 300),
    ),
    max_size=6,
    unique_by=lambda c: c[0],
)


def _build(
    cmds: list[tuple[int, bool]], files: list[tuple[str, str, int, int]], test_exit: int
) -> DraftTrace:
    h = base.header(2, "prop")
    events: list[DraftEvent] = [base.started(h)]
    events += [base.command(COMMANDS[i], blocked=blocked) for i, blocked in cmds]
    events += [base.file_change(p, kind, added=a, deleted=d) for p, kind, a, d in files]
    events += [base.test_result(exit_code=test_exit), *base.passing_checks()]
    events.append(
        base.completed(
            [f[0] for f in files], added=sum(f[2] for f in files), deleted=sum(f[3] for f in files)
        )
    )
    return DraftTrace(header=h, events=events)


def _replay(draft: DraftTrace) -> ReplayReport:
    report = verify_bytes(write_trace(draft), VerifyOptions(keep_events=True))
    assert report.intact
    return replay(report)


def _essence(report: ReplayReport) -> dict[str, Any]:
    verdict = report.recomputed
    assert verdict is not None
    return {
        "result": verdict.result,
        "score": verdict.score,
        "failed": verdict.failed_checks,
        "warnings": verdict.warning_checks,
        "checks": [
            (c.id, c.passed, c.severity, c.score_contribution, Counter(c.evidence))
            for c in verdict.checks
        ],
    }


@given(cmds=commands, files=changes, test_exit=st.sampled_from([0, 1]))
def test_same_trace_same_replay(
    cmds: list[tuple[int, bool]], files: list[tuple[str, str, int, int]], test_exit: int
) -> None:
    draft = _build(cmds, files, test_exit)
    first, second = _replay(draft), _replay(base.clone(draft))
    assert first == second
    assert render_json(first) == render_json(second)


@given(cmds=commands, files=changes, test_exit=st.sampled_from([0, 1]), data=st.data())
def test_command_order_does_not_change_the_verdict(
    cmds: list[tuple[int, bool]],
    files: list[tuple[str, str, int, int]],
    test_exit: int,
    data: st.DataObject,
) -> None:
    shuffled = data.draw(st.permutations(cmds))
    assert _essence(_replay(_build(cmds, files, test_exit))) == _essence(
        _replay(_build(shuffled, files, test_exit))
    )


@given(cmds=commands, files=changes, data=st.data())
def test_check_event_order_does_not_change_equivalence(
    cmds: list[tuple[int, bool]], files: list[tuple[str, str, int, int]], data: st.DataObject
) -> None:
    draft = _build(cmds, files, 0)
    checks = [e for e in draft.events if e.event_type == "check_result"]
    first = draft.events.index(checks[0])
    reordered = base.clone(draft)
    reordered.events[first : first + len(checks)] = data.draw(
        st.permutations(base.clone(draft).events[first : first + len(checks)])
    )
    original, permuted = _replay(draft), _replay(reordered)
    assert permuted.equivalence == original.equivalence
    assert permuted.differences == original.differences
