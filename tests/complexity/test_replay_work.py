"""Replay's work is bounded (docs/threat-model.md, "Work budget"): evidence per check, pattern
matches per trace. Inputs near the loader's limits come from corpus/gen/worst.py; the tests
assert on counts of work (evidence lines and characters, meter units), never on seconds."""

from __future__ import annotations

import msgspec
from gen import worst

from tracekit.formats.agentguard.schema.agentguard import PolicySnapshot
from tracekit.formats.agentguard.verify import VerifyOptions, VerifyReport, verify_bytes
from tracekit.judging.replay import replay
from tracekit.judging.replay.checks import BY_ID
from tracekit.judging.replay.checks.base import Work
from tracekit.judging.replay.engine import evaluate_bounded
from tracekit.judging.replay.evidence import reconstruct
from tracekit.judging.replay.matching import MATCH_OVERHEAD, compile_cost, glob_weight, normalise
from tracekit.kernel.errors import Code
from tracekit.kernel.limits import DEFAULT_BUDGET, WorkBudget


def _verified(data: bytes) -> VerifyReport:
    report = verify_bytes(data, VerifyOptions(keep_events=True, check_sources=False))
    assert report.intact, [f.code for f in report.findings]
    return report


def _evidence_chars(lines: tuple[str, ...]) -> int:
    return sum(len(line) for line in lines)


def test_repeated_pattern_evidence_is_capped_and_reported() -> None:
    # 64 commands of 4,096 characters x one pattern listed 4,096 times: upstream's evidence is
    # 262,144 lines, 1 GiB of text. Replay keeps at most one line past the character bound.
    report = _verified(worst.evidence_bomb(commands=64, repeats=4096))
    result = replay(report)
    assert result.replayable
    assert result.recomputed is not None
    unsafe = next(c for c in result.recomputed.checks if c.id == "unsafe-commands")
    assert not unsafe.passed  # the verdict is complete: the check fails
    budget = DEFAULT_BUDGET
    assert len(unsafe.evidence) <= budget.evidence_lines + 1
    longest = max(len(line) for line in unsafe.evidence)
    assert budget.evidence_chars < _evidence_chars(unsafe.evidence) <= budget.evidence_chars + longest
    capped = [n for n in result.notices if n.code is Code.REPLAY_EVIDENCE_CAPPED]
    assert len(capped) == 1 and "unsafe-commands" in capped[0].message
    # The recorded check passed with no evidence: the comparison stays divergent on evidence.
    assert result.equivalence == "divergent"
    assert any(d.field == "evidence" and d.check == "unsafe-commands" for d in result.differences)


def test_repeated_pattern_is_matched_once_per_command() -> None:
    commands, repeats = 32, 64
    report = _verified(worst.evidence_bomb(commands=commands, repeats=repeats, command_chars=256))
    rebuilt = reconstruct(report.events, 2)
    assert rebuilt.evidence is not None and report.header is not None
    snapshot = report.header.policy_snapshot
    work = Work()
    decision = BY_ID["unsafe-commands"].evaluate(rebuilt.evidence, snapshot, work)  # type: ignore[arg-type]
    texts = [c.command_text for c in rebuilt.evidence.commands]
    # One distinct pattern ("rm -rf", 6 characters): one match per command, not 64.
    assert work.meter.used == sum(len(t) * 6 + MATCH_OVERHEAD for t in texts)
    # Evidence is still upstream's: one line per (command, listed pattern), duplicates kept.
    assert len(decision.evidence) == commands * repeats
    assert not decision.capped


def test_evidence_past_the_bound_is_not_computed() -> None:
    report = _verified(worst.evidence_bomb(commands=64, repeats=4096, command_chars=128))
    rebuilt = reconstruct(report.events, 2)
    assert rebuilt.evidence is not None and report.header is not None
    work = Work()
    decision = BY_ID["unsafe-commands"].evaluate(rebuilt.evidence, report.header.policy_snapshot, work)  # type: ignore[arg-type]
    assert decision.capped and len(decision.evidence) == DEFAULT_BUDGET.evidence_lines + 1
    # Two commands give 4,097 lines; the other 62 are never matched.
    first = rebuilt.evidence.commands[0].command_text
    assert work.meter.used == 2 * (len(first) * 6 + MATCH_OVERHEAD)


def test_evidence_bound_is_by_lines_too() -> None:
    report = _verified(worst.evidence_bomb(commands=8, repeats=16, command_chars=64))
    assert report.header is not None
    rebuilt = reconstruct(report.events, 2)
    assert rebuilt.evidence is not None
    small = Work.of(WorkBudget(evidence_lines=10))
    verdict, notices = evaluate_bounded(rebuilt.evidence, report.header.policy_snapshot, small)  # type: ignore[arg-type]
    unsafe = next(c for c in verdict.checks if c.id == "unsafe-commands")
    assert len(unsafe.evidence) == 11 and not unsafe.passed
    assert [n.code for n in notices] == [Code.REPLAY_EVIDENCE_CAPPED]
    full, none = evaluate_bounded(rebuilt.evidence, report.header.policy_snapshot, Work())  # type: ignore[arg-type]
    assert none == []
    assert len(next(c for c in full.checks if c.id == "unsafe-commands").evidence) == 8 * 16


def test_files_x_globs_is_refused_past_the_budget_not_guessed() -> None:
    # 4,096 changed files x 4,096 distinct globs in each of four lists: 67 million matches
    # upstream. The meter stops replay at its bound with a stable reason.
    report = _verified(worst.glob_bomb(files=4096, patterns=4096))
    budget = WorkBudget(match_work=50_000_000)
    result = replay(report, budget=budget)
    assert not result.replayable
    assert [r.code for r in result.reasons] == [Code.REPLAY_WORK_BUDGET_EXCEEDED]
    assert result.recomputed is None and result.comparison is None


def test_files_x_globs_work_is_counted_exactly() -> None:
    files, patterns = 64, 64
    report = _verified(worst.glob_bomb(files=files, patterns=patterns))
    assert report.header is not None
    snapshot = report.header.policy_snapshot
    rebuilt = reconstruct(report.events, 2)
    assert rebuilt.evidence is not None
    work = Work()
    BY_ID["secret-scan"].evaluate(rebuilt.evidence, snapshot, work)  # type: ignore[arg-type]
    keys = [normalise(p) for p in snapshot.secret_patterns]  # type: ignore[union-attr]
    paths = [normalise(p) for p in rebuilt.evidence.changed_files]
    expected = sum(compile_cost(k) for k in keys) + sum(
        len(p) * glob_weight(k) + MATCH_OVERHEAD for p in paths for k in keys
    )
    assert work.meter.used == expected


def _with(snapshot: object, **changes: object) -> PolicySnapshot:
    assert isinstance(snapshot, PolicySnapshot)
    return msgspec.structs.replace(snapshot, **changes)


def test_duplicate_globs_cost_one_match_each() -> None:
    report = _verified(worst.glob_bomb(files=256, patterns=1))
    assert report.header is not None
    rebuilt = reconstruct(report.events, 2)
    assert rebuilt.evidence is not None
    once = _with(report.header.policy_snapshot, forbidden_paths=["src/*"])
    many = _with(report.header.policy_snapshot, forbidden_paths=["src/*"] * 4096)
    one, repeated = Work(), Work()
    first = BY_ID["forbidden-paths"].evaluate(rebuilt.evidence, once, one)
    second = BY_ID["forbidden-paths"].evaluate(rebuilt.evidence, many, repeated)
    assert repeated.meter.used == one.meter.used
    assert first == second and len(first.evidence) == 256
    # secret-scan keeps upstream's line per listed pattern, so 4,096 copies cap its evidence.
    secrets = _with(report.header.policy_snapshot, secret_patterns=["src/*"] * 4096)
    decision = BY_ID["secret-scan"].evaluate(rebuilt.evidence, secrets, Work())
    assert decision.capped and len(decision.evidence) == DEFAULT_BUDGET.evidence_lines + 1


def test_star_heavy_globs_are_charged_for_compiling() -> None:
    report = _verified(worst.star_bomb(patterns=64, stars=2000))
    result = replay(report, budget=WorkBudget(match_work=100_000_000))
    assert [r.code for r in result.reasons] == [Code.REPLAY_WORK_BUDGET_EXCEEDED]


def test_audit_reports_the_replay_budget_instead_of_running_on() -> None:
    from tracekit.judging.audit import audit_agentguard

    report = _verified(worst.star_bomb(patterns=40, stars=2000))
    audited = audit_agentguard(report)
    codes = [f.code for f in audited.findings]
    assert Code.REPLAY_WORK_BUDGET_EXCEEDED in codes


def test_audit_carries_the_evidence_cap_notice() -> None:
    from tracekit.judging.audit import audit_agentguard

    audited = audit_agentguard(_verified(worst.evidence_bomb(commands=4, repeats=4096, command_chars=256)))
    assert Code.REPLAY_EVIDENCE_CAPPED in [f.code for f in audited.findings]
