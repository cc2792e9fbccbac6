"""The check protocol: one small module per check, each a pure function of evidence and policy.

A check returns only what it decides (passed, message, evidence). Severity and score contribution
come from the policy snapshot and are attached by the engine, so every check is scored the same
way (scorer.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

import msgspec

from tracekit.formats.agentguard.schema.agentguard import PolicySnapshot
from tracekit.judging.replay.evidence import Evidence
from tracekit.kernel.limits import DEFAULT_BUDGET, Meter, WorkBudget


class Decision(msgspec.Struct, frozen=True):
    """A check's verdict on the evidence, before severity and scoring (a Struct: seven are built
    per trace, and a Struct is built in C)."""

    passed: bool
    message: str
    evidence: tuple[str, ...] = ()
    capped: bool = False
    """True when the evidence was cut at the work budget (the verdict itself is complete)."""


@dataclass(slots=True)
class Work:
    """The work budget of one replay and the meter its pattern matches are charged to."""

    budget: WorkBudget = DEFAULT_BUDGET
    meter: Meter = field(default_factory=lambda: Meter(DEFAULT_BUDGET.match_work))

    @classmethod
    def of(cls, budget: WorkBudget) -> Work:
        """A fresh meter for ``budget``."""
        return cls(budget, Meter(budget.match_work))


def bounded(lines: Iterable[str], budget: WorkBudget) -> tuple[tuple[str, ...], bool]:
    """The evidence lines of ``lines``, stopping once past the budget; and whether it stopped.

    docs/threat-model.md, "Work budget": a trace line records at most ``evidence_lines`` items
    and fewer than ``evidence_chars`` characters, so the kept lines (one past either bound) still
    differ from anything recorded, and the comparison stays divergent. ``lines`` is consumed
    lazily: nothing past the bound is computed.
    """
    kept: list[str] = []
    chars = 0
    for line in lines:
        kept.append(line)
        chars += len(line)
        if len(kept) > budget.evidence_lines or chars > budget.evidence_chars:
            return tuple(kept), True
    return tuple(kept), False


def decided(passed: bool, message: str, lines: Iterable[str], work: Work) -> Decision:
    """A decision whose evidence is :func:`bounded`."""
    evidence, capped = bounded(lines, work.budget)
    return Decision(passed, message, evidence, capped)


class Check(Protocol):
    """One registered policy check (docs/replay.md, "The seven checks")."""

    @property
    def id(self) -> str:
        """The identifier used in ``enabled_checks`` and ``severities`` (``tests-passed``)."""
        ...

    @property
    def name(self) -> str:
        """The display name upstream records in ``check_result.name`` (``Tests passed``)."""
        ...

    @property
    def default_severity(self) -> str:
        """The severity upstream uses when its configuration sets none."""
        ...

    def evaluate(
        self, evidence: Evidence, policy: PolicySnapshot, work: Work | None = None
    ) -> Decision:
        """Decide the check from the reconstructed evidence and the snapshot, charging pattern
        matches to ``work`` (a fresh default budget when None). Raises only
        :class:`~tracekit.kernel.limits.BudgetExceeded`, past the budget."""
        ...
