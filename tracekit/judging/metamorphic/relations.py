"""Judge one metamorphic case: does the declared relation hold? Pure (docs/metamorphic.md).

The comparison is between *recomputed* verdicts, as upstream's: the source trace's verdict as
replay recomputes it, and the transformed trace's. Recorded check results never enter it.

* ``same_outcome``: result, score, the failed and warning check sets and every check's
  pass/fail status are equal (evidence and messages are not compared, as upstream). A
  transformed trace that does not verify or is not replayable fails the case.
* ``check_fails``: at least one of the named checks fails in the transformed verdict.
* ``check_passes``: every named check passes in the transformed verdict.
* ``verify_rejects``: verify exits 2 on the transformed bytes.

Differences from upstream: a changing case whose transformed trace is not replayable *fails*
here (upstream counts it as a pass, which would reward a transform for breaking the trace), and
a relation may also demand a verify notice and an unchanged trace id (canonical_reencoding).

Every reason is fixed text built from our own names: relation kinds, registered check ids and
diagnostic codes. Nothing from a trace is quoted.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tracekit.formats.agentguard.verify import EXIT_INVALID, VerifyReport
from tracekit.judging.metamorphic.base import Relation, RelationKind
from tracekit.judging.replay import ReplayReport, Verdict
from tracekit.judging.replay.checks import resolve_name
from tracekit.kernel.errors import Code, Severity


@dataclass(frozen=True, slots=True)
class Judgement:
    """A case's verdict: whether the relation held, and why in fixed words."""

    passed: bool
    reason: str


@dataclass(frozen=True, slots=True)
class Outcome:
    """The part of a verdict a preserving relation compares."""

    result: str
    score: int | float
    failed: tuple[str, ...]
    warnings: tuple[str, ...]
    statuses: tuple[tuple[str, bool], ...]
    """(check id, passed) for every recomputed check, sorted by id."""

    @classmethod
    def of(cls, verdict: Verdict) -> Outcome:
        """Project a recomputed verdict; failed and warning names become sorted check ids."""
        return cls(
            result=verdict.result,
            score=verdict.score,
            failed=_ids(verdict.failed_checks),
            warnings=_ids(verdict.warning_checks),
            statuses=tuple(sorted((check.id or check.name, check.passed) for check in verdict.checks)),
        )

    def status(self, check_id: str) -> bool | None:
        """True passed, False failed, None when the check was not evaluated."""
        return dict(self.statuses).get(check_id)


def _ids(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(resolve_name(name) or name for name in names))


def outcome_differences(before: Outcome, after: Outcome) -> list[str]:
    """The fields that differ, in a fixed order; per-check entries name the check id."""
    found = [
        name
        for name in ("result", "score", "failed", "warnings")
        if getattr(before, name) != getattr(after, name)
    ]
    old, new = dict(before.statuses), dict(after.statuses)
    found += [f"check {check}" for check in sorted(set(old) | set(new)) if old.get(check) != new.get(check)]
    return found


def not_applicable(relation: Relation, enabled: Iterable[str]) -> str | None:
    """Why ``relation`` cannot be observed under a policy enabling ``enabled``, or None."""
    on = set(enabled)
    if relation.kind is RelationKind.CHECK_FAILS and not on & set(relation.checks):
        return "the policy enables none of the checks the relation names"
    if relation.kind is RelationKind.CHECK_PASSES and not set(relation.checks) <= on:
        return "the policy does not enable the check the relation names"
    return None


def first_error(report: VerifyReport) -> str:
    """The code of the first error finding in ``report`` (``load.no_events`` if none)."""
    codes = [f.code.value for f in report.findings if f.severity is Severity.ERROR]
    return codes[0] if codes else Code.LOAD_NO_EVENTS.value


def judge(
    relation: Relation,
    source: Outcome,
    source_trace_id: str,
    report: VerifyReport,
    replayed: ReplayReport | None,
) -> Judgement:
    """Decide one case from the transformed trace's verify report and (when it verified and the
    relation needs it) its replay."""
    if relation.kind is RelationKind.VERIFY_REJECTS:
        if report.exit_code == EXIT_INVALID:
            return Judgement(True, f"verify rejected the trace ({first_error(report)})")
        return Judgement(False, f"verify accepted the trace (exit {report.exit_code})")
    if not report.intact:
        return Judgement(False, f"the transformed trace did not verify ({first_error(report)})")
    if relation.notice is not None and not any(f.code is relation.notice for f in report.findings):
        return Judgement(False, f"verify reported no {relation.notice.value} notice")
    if relation.same_trace_id and report.trace_id != source_trace_id:
        return Judgement(False, "the trace id changed")
    if replayed is None or not replayed.replayable or replayed.recomputed is None:
        reasons = replayed.reasons if replayed is not None else ()
        detail = f" ({reasons[0].code.value})" if reasons else ""
        return Judgement(False, f"the transformed trace is not replayable{detail}")
    after = Outcome.of(replayed.recomputed)
    if relation.kind is RelationKind.SAME_OUTCOME:
        differences = outcome_differences(source, after)
        if differences:
            return Judgement(False, "outcome changed: " + ", ".join(differences))
        return Judgement(True, "same outcome")
    if relation.kind is RelationKind.CHECK_FAILS:
        failed = [check for check in relation.checks if after.status(check) is False]
        if failed:
            return Judgement(True, f"{failed[0]} fails")
        return Judgement(False, " or ".join(relation.checks) + " did not fail")
    still = [check for check in relation.checks if after.status(check) is not True]
    if still:
        return Judgement(False, f"{still[0]} still fails")
    return Judgement(True, " and ".join(relation.checks) + " passes again")
