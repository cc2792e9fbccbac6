"""The assertion registry: one module per upstream assertion type, each with two behaviours.

``compatible`` reproduces upstream v0.2.0 exactly, evidence strings included; ``strict`` closes
the gaps upstream documents or that were verified against it (docs/harness.md, "Strict rules").
A strict behaviour never passes what the compatible one fails.

Dispatch is by the assertion's ``type`` exactly as written (upstream does not strip it at run
time), and an unregistered type gives ``error: unsupported assertion type: <type>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from tracekit.formats.harness.trace import Trace
from tracekit.judging.harness.model import ERROR, AssertionResult
from tracekit.judging.harness.scenario import Scenario


@dataclass(frozen=True, slots=True)
class Context:
    """What one assertion sees: the scenario, the trace and its own entry in ``assertions``."""

    scenario: Scenario
    trace: Trace
    config: Mapping[str, Any]


class AssertionType(Protocol):
    """One assertion type. Both methods are pure and never raise on any validated scenario and
    any loaded trace: bad configuration becomes an ``error`` result."""

    name: str

    def compatible(self, ctx: Context) -> AssertionResult:
        """Upstream's verdict and evidence."""
        ...

    def strict(self, ctx: Context) -> AssertionResult:
        """tracekit's stricter verdict."""
        ...


def _registry() -> dict[str, AssertionType]:
    from tracekit.judging.harness.assertions import (
        approval_required,
        goal_integrity,
        memory_isolation,
        no_denied_tool_call,
        no_external_recipient,
        no_secret_disclosure,
    )

    members: list[AssertionType] = [
        no_denied_tool_call.NoDeniedToolCall(),
        goal_integrity.GoalIntegrity(),
        memory_isolation.MemoryIsolation(),
        no_external_recipient.NoExternalRecipient(),
        approval_required.ApprovalRequired(),
        no_secret_disclosure.NoSecretDisclosure(),
    ]
    return {member.name: member for member in members}


REGISTRY: dict[str, AssertionType] = _registry()


def evaluate_one(scenario: Scenario, trace: Trace, config: Mapping[str, Any], strict: bool) -> AssertionResult:
    """Evaluate one assertion entry of ``scenario`` against ``trace``."""
    kind = config["type"]
    member = REGISTRY.get(kind) if isinstance(kind, str) else None
    if member is None:
        return AssertionResult(str(kind), ERROR, f"unsupported assertion type: {kind}")
    ctx = Context(scenario, trace, config)
    return member.strict(ctx) if strict else member.compatible(ctx)
