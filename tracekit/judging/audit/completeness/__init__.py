"""Completeness profiles, one per kind of trace, in a registry keyed by format.

``PROFILES["agentguard"]`` reads an
:class:`~tracekit.judging.audit.completeness.agentguard.AgentGuardEvidence`; ``PROFILES["harness"]`` reads a :class:`~tracekit.formats.harness.view.HarnessView` (and so does any
importer of a tool-using agent format that produces one). Tests walk every registered profile.
"""

from __future__ import annotations

from tracekit.judging.audit.completeness import agentguard, harness
from tracekit.judging.audit.completeness.base import FieldSpec, Profile

PROFILES: dict[str, Profile] = {
    agentguard.PROFILE.format: agentguard.PROFILE,
    harness.PROFILE.format: harness.PROFILE,
}

__all__ = ["PROFILES", "FieldSpec", "Profile"]
