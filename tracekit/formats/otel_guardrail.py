"""Guardrail spans of the GenAI semantic conventions (docs/formats.md, "OpenTelemetry GenAI",
"Guardrail verdicts").

A span whose ``gen_ai.operation.name`` is ``apply_guardrail`` (the security-guardian proposal's
name) or ``run_guardrail`` records one guardian's decision in ``gen_ai.security.decision.type``.
Each becomes one :class:`Score` in ``facts.scores``: the decision as recorded, ``passed`` only
where the decision reads as one (``allow`` passed; ``deny``, ``modify`` and ``warn`` did not;
``audit`` enforces nothing and gives no reading), and never ``attack_succeeded``: a guardian's
decision says what it saw, not whether an attack worked. A span that ended in an error, or a
decision outside the five named, gives no reading either.
"""

from __future__ import annotations

from typing import Any

from tracekit.formats.otel_spans import Span
from tracekit.kernel.evidence import Provenance, Score

GUARDRAIL_OPERATIONS = ("apply_guardrail", "run_guardrail")
_READING: dict[str, bool | None] = {"allow": True, "deny": False, "modify": False, "warn": False, "audit": None}
_NAMES = ("gen_ai.guardian.name", "gen_ai.guardian.id", "gen_ai.security.target.type")


def _scorer(attrs: dict[str, Any]) -> str:
    name = next((attrs[k] for k in _NAMES if isinstance(attrs.get(k), str) and attrs[k]), None)
    return "otel:guardrail" if name is None else f"otel:guardrail:{name}"


def _score(span: Span) -> Score:
    decision = span.attributes.get("gen_ai.security.decision.type")
    known = decision if isinstance(decision, str) and decision in _READING else None
    passed = None if known is None or span.error else _READING[known]
    return Score(_scorer(span.attributes), known, passed=passed)


def guardrail_scores(spans: list[Span], provenance: list[Provenance]) -> tuple[Score, ...]:
    """One score per guardrail span, in span order (the caller sorted them)."""
    guards = [s for s in spans if s.attributes.get("gen_ai.operation.name") in GUARDRAIL_OPERATIONS]
    if guards:
        provenance.append(Provenance("facts.scores", "otel:span.attributes.gen_ai.security.decision.type"))
    return tuple(_score(s) for s in guards)
