"""Results of a harness check: one per assertion, one per scenario, and the aggregation rule.

The shapes mirror upstream's ``result.schema.json`` (version 1): ``{id, result, evidence}`` per
assertion and ``{scenario_id, mode, result, assertions}`` per run (docs/harness.md, "Results").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import msgspec

Outcome = Literal["pass", "fail", "error", "not_run"]
Mode = Literal["trace", "dry_run"]
Semantics = Literal["strict"]
"""The one ``semantics`` value a result carries; compatible results carry none (as upstream's)."""

PASS: Outcome = "pass"
FAIL: Outcome = "fail"
ERROR: Outcome = "error"
NOT_RUN: Outcome = "not_run"
OUTCOMES: tuple[Outcome, ...] = (PASS, FAIL, ERROR, NOT_RUN)

DRY_RUN_EVIDENCE = "dry-run mode does not execute assertions"


class AssertionResult(msgspec.Struct, frozen=True, omit_defaults=True):
    """The verdict of one assertion. ``id`` is the assertion type, as upstream reports it, so
    two assertions of one type share an id. ``evidence`` is upstream's documented text (it may
    quote trace values by design; it is result content, never a diagnostic). In JSON,
    ``evidence`` is left out when there is none, as upstream does."""

    id: str
    """The assertion type."""
    result: Outcome
    """pass, fail, error or not_run."""
    evidence: str | None = None
    """Upstream's evidence text, or None."""

    def as_dict(self) -> dict[str, str]:
        """The JSON form, derived from the Struct (kept for callers that still build dicts)."""
        data: dict[str, str] = msgspec.to_builtins(self)
        return data


class HarnessResult(msgspec.Struct, frozen=True, omit_defaults=True):
    """The verdict of one scenario against one trace (or a dry run): upstream's result
    document, ``{scenario_id, mode, result, assertions}``, plus ``semantics: "strict"`` for a
    strict result so it cannot be mistaken for upstream's verdict (docs/harness.md, "Results")."""

    scenario_id: str
    """The scenario's id."""
    mode: Mode
    """trace, or dry_run."""
    result: Outcome
    """The aggregate of the assertions' results (:func:`aggregate`)."""
    assertions: tuple[AssertionResult, ...]
    """One per assertion of the scenario, in file order."""
    semantics: Semantics | None = None
    """``strict`` for tracekit's strict semantics; None (left out) for compatible mode."""

    @property
    def strict(self) -> bool:
        """True for a result judged with strict semantics."""
        return self.semantics is not None


ModeName = Literal["compatible", "strict"]
"""The two judging modes, by the names every command prints (docs/cli.md, "Verdicts and modes")."""


def judging_strict(strict: bool, fmt: str | None) -> bool:
    """The mode a trace of format ``fmt`` is judged in (docs/cli.md, "Verdicts and modes").

    Compatible mode exists to reproduce the OWASP harness on its own traces; on any other format
    there is nothing to be compatible with, so it is judged with the full (strict) semantics.
    ``--strict`` (``strict``) makes harness traces strict too. ``None`` (format unknown yet)
    is taken as the harness reader's (the one that refuses it)."""
    return strict or fmt not in (None, "harness")


NOT_IMPLEMENTED = " is not implemented yet"
"""The end of upstream's evidence for an assertion it does not implement (compatible mode)."""


def not_implemented(evidence: Iterable[str | None]) -> int:
    """How many of these evidence texts are upstream's "not implemented yet" (``--strict`` runs
    those assertions: docs/cli.md, "Verdicts and modes")."""
    return sum(1 for text in evidence if text is not None and text.endswith(NOT_IMPLEMENTED))


def mode_name(strict: bool) -> ModeName:
    """``strict`` or ``compatible``."""
    return "strict" if strict else "compatible"


def semantics(strict: bool) -> Semantics | None:
    """The ``semantics`` field for a run in strict (or compatible) mode."""
    return "strict" if strict else None


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
