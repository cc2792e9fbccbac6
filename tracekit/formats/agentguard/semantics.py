"""Rules a Struct cannot express: paths, optional groups, negative zero, v3 containment bounds.

docs/trace-format.md steps 4 and 5. Each function returns the first finding or None; the
caller stops at the first error, as the chain walk does.
"""

from __future__ import annotations

import math
from typing import Any

from msgspec import UNSET

from tracekit.formats.agentguard.schema import agentguard as ag
from tracekit.formats.agentguard.schema import containment as ce
from tracekit.formats.agentguard.sources import source_path_problem
from tracekit.kernel.canonical import agentguard_bytes
from tracekit.kernel.errors import Code, Finding, finding
from tracekit.kernel.paths import path_problem, target_problem


def _path_finding(path: str, line: int, *, target: bool = False) -> Finding | None:
    code = target_problem(path) if target else path_problem(path)
    return None if code is None else finding(code, line, length=len(path))


def _negative_zero(*values: object) -> bool:
    return any(type(v) is float and v == 0.0 and math.copysign(1.0, v) < 0 for v in values)


def header_problem(header: ag.Header, line: int) -> Finding | None:
    """Step 4-5 rules for the header beyond its Struct: source paths and unique roles."""
    roles: set[str] = set()
    for source in header.source_artifacts:
        code = source_path_problem(source.path)
        if code is not None:
            return finding(code, line, length=len(source.path))
        if source.role in roles:
            return finding(Code.SOURCE_DUPLICATE, line)
        roles.add(source.role)
    return None


def payload_problem(payload: ag.Payload, line: int, canonical_raw: bytes | None = None) -> Finding | None:
    """Step 4-5 rules for one payload; the Struct has already checked keys and types.

    ``canonical_raw`` is the line's bytes when the line is canonical: there a negative zero can
    only be spelled ``-0.0``, so payloads whose only rule is "no -0.0" skip the walk without it.
    """
    kind = type(payload)
    if canonical_raw is not None and kind in _ZERO_ONLY and b"-0.0" not in canonical_raw:
        return None
    checker = _CHECKS.get(kind)
    return checker(payload, line) if checker else None


def _agent_command(p: ag.AgentCommand, line: int) -> Finding | None:
    if _negative_zero(p.duration_seconds):
        return finding(Code.SCHEMA_INVALID_VALUE, line)
    return None


def _test_result(p: ag.TestResult, line: int) -> Finding | None:
    if _negative_zero(p.duration_seconds):
        return finding(Code.SCHEMA_INVALID_VALUE, line)
    return None


def _file_change(p: ag.FileChange, line: int) -> Finding | None:
    problem = _path_finding(p.path, line)
    if problem is None and p.symlink_target is not None:
        problem = _path_finding(p.symlink_target, line, target=True)
    if problem is not None:
        return problem
    has_diff = p.unified_diff is not UNSET, p.diff_truncated is not UNSET
    if has_diff != (p.diff_included, p.diff_included):
        return finding(Code.SCHEMA_INCOMPLETE_GROUP, line)
    return None


def _guard_summary(p: ag.GuardSummary, line: int) -> Finding | None:
    for group in (ag.LINE_GROUP, ag.SCAN_GROUP):
        present = [getattr(p, name) is not UNSET for name in group]
        if any(present) and not all(present):
            return finding(Code.SCHEMA_INCOMPLETE_GROUP, line)
    if _negative_zero(p.monitor_duration_seconds):
        return finding(Code.SCHEMA_INVALID_VALUE, line)
    for violation in p.violations:
        problem = _path_finding(violation.path, line)
        if problem is not None:
            return problem
    if p.watcher_events is not UNSET:
        for event in p.watcher_events:
            problem = _path_finding(event.path, line)
            if problem is not None:
                return problem
    return None


def _command_guard_summary(p: ag.CommandGuardSummary, line: int) -> Finding | None:
    if _negative_zero(p.monitor_duration_seconds):
        return finding(Code.SCHEMA_INVALID_VALUE, line)
    return None


def _completed(p: ag.ExecutionCompleted, line: int) -> Finding | None:
    if _negative_zero(p.duration_seconds, p.score):
        return finding(Code.SCHEMA_INVALID_VALUE, line)
    for path in p.modified_files.paths:
        problem = _path_finding(path, line)
        if problem is not None:
            return problem
    return None


def _containment(p: ce.ContainmentEvidence, line: int) -> Finding | None:
    """Upstream's containment bounds: nesting 8, 64 items, 512 chars, +/-1e12, 32 KiB."""
    for free in (p.requested, p.controls.requested_resource_controls,
                 p.controls.verified_resource_controls):
        if isinstance(free, dict) and not _free_value_ok(free, 1):
            return finding(Code.SCHEMA_INVALID_VALUE, line)
    import msgspec

    if len(agentguard_bytes(msgspec.to_builtins(p))) > ce.MAX_SERIALISED_BYTES:
        return finding(Code.SCHEMA_INVALID_VALUE, line)
    return None


def _free_value_ok(value: Any, depth: int) -> bool:
    if depth > ce.MAX_NESTING:
        return False
    if value is None or type(value) is bool:
        return True
    if type(value) is int:
        return abs(value) <= 10**12
    if type(value) is float:
        return math.isfinite(value) and abs(value) <= 1e12
    if type(value) is str:
        return len(value) <= 512
    if type(value) is list:
        return len(value) <= 64 and all(_free_value_ok(item, depth + 1) for item in value)
    if type(value) is dict:
        return len(value) <= 64 and all(
            type(k) is str and 0 < len(k) <= 512 and _free_value_ok(v, depth + 1)
            for k, v in value.items()
        )
    return False


_CHECKS: dict[type, Any] = {
    ag.AgentCommand: _agent_command,
    ag.TestResult: _test_result,
    ag.FileChange: _file_change,
    ag.GuardSummary: _guard_summary,
    ag.CommandGuardSummary: _command_guard_summary,
    ag.ExecutionCompleted: _completed,
    ce.ContainmentEvidence: _containment,
}
_ZERO_ONLY = frozenset({ag.AgentCommand, ag.TestResult, ag.CommandGuardSummary})
"""Payload types whose only extra rule is the negative-zero one."""
CHECKED = frozenset(_CHECKS)
"""Payload types that have any rule here; the verifier skips the call for the others."""
