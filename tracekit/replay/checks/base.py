"""The check protocol: one small module per check, each a pure function of evidence and policy.

A check returns only what it decides (passed, message, evidence). Severity and score contribution
come from the policy snapshot and are attached by the engine, so every check is scored the same
way (scorer.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from tracekit.replay.evidence import Evidence
from tracekit.schema.agentguard import PolicySnapshot


@dataclass(frozen=True, slots=True)
class Decision:
    """A check's verdict on the evidence, before severity and scoring."""

    passed: bool
    message: str
    evidence: tuple[str, ...] = ()


class Check(Protocol):
    """One registered policy check (spec §13)."""

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

    def evaluate(self, evidence: Evidence, policy: PolicySnapshot) -> Decision:
        """Decide the check from the reconstructed evidence and the snapshot; never raises."""
        ...
