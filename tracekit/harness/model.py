"""Results of a harness check: one per assertion, one per scenario, and the aggregation rule.

The shapes mirror upstream's ``result.schema.json`` (version 1): ``{id, result, evidence}`` per
assertion and ``{scenario_id, mode, result, assertions}`` per run (docs/harness.md, "Results").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Outcome = Literal["pass", "fail", "error", "not_run"]
Mode = Literal["trace", "dry_run"]

PASS: Outcome = "pass"
FAIL: Outcome = "fail"
ERROR: Outcome = "error"
NOT_RUN: Outcome = "not_run"
OUTCOMES: tuple[Outcome, ...] = (PASS, FAIL, ERROR, NOT_RUN)

DRY_RUN_EVIDENCE = "dry-run mode does not execute assertions"


@dataclass(frozen=True, slots=True)
class AssertionResult:
    """The verdict of one assertion. ``id`` is the assertion type, as upstream reports it, so
    two assertions of one type share an id. ``evidence`` is upstream's documented text (it may
    quote trace values by design; it is result content, never a diagnostic)."""

    id: str
    result: Outcome
    evidence: str | None = None

    def as_dict(self) -> dict[str, str]:
        """The JSON form: ``evidence`` is left out when there is none, as upstream does."""
        data = {"id": self.id, "result": self.result}
        if self.evidence is not None:
            data["evidence"] = self.evidence
        return data


@dataclass(frozen=True, slots=True)
class HarnessResult:
    """The verdict of one scenario against one trace (or a dry run)."""

    scenario_id: str
    mode: Mode
    result: Outcome
    assertions: tuple[AssertionResult, ...]
    strict: bool = False


def aggregate(results: Iterable[Outcome]) -> Outcome:
    """Upstream's rule: any fail -> fail; else any error -> error; else all pass -> pass;
    else not_run. An empty list gives not_run. The suite uses the same order."""
    seen = list(results)
    if FAIL in seen:
        return FAIL
    if ERROR in seen:
        return ERROR
    if seen and all(r == PASS for r in seen):
        return PASS
    return NOT_RUN


def gates(result: Outcome, strict: bool) -> bool:
    """True when ``--exit-on-fail`` must exit 1 for ``result``.

    Compatible mode follows upstream (fail and error gate; not_run is a green build). Strict mode
    also gates not_run: an assertion that did not run is never reported as a pass.
    """
    if result in (FAIL, ERROR):
        return True
    return strict and result == NOT_RUN
