"""Scenario files: bounded safe YAML in, a validated :class:`Scenario` out.

Validation follows upstream's runtime validator (``scenario.py::validate_scenario_data``,
v0.2.0), which has the final say over its JSON Schema: the same required keys, id charset,
categories, severities and per-assertion fields, checked in the same order. Where upstream would
crash on a wrongly typed value (a list as ``category``, ``null`` where a mapping is read), the
scenario is refused as invalid instead. docs/harness.md, "Scenario validation".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tracekit.judging.harness.yamlsafe import load_yaml
from tracekit.kernel.errors import Code, TracekitError, finding
from tracekit.kernel.limits import HARNESS_SCENARIO_LIMITS, Limits

CATEGORIES = frozenset(
    {
        "goal_hijack",
        "prompt_injection",
        "context_injection",
        "unsafe_tool_execution",
        "unauthorized_outbound_action",
        "sensitive_data_disclosure",
        "privilege_escalation",
        "memory_isolation",
        "approval_bypass",
        "mcp_trust_boundary",
    }
)
SEVERITIES = frozenset({"low", "medium", "high", "critical"})
REQUIRED_FIELDS = ("id", "title", "category", "severity", "target", "input", "expected", "assertions")
ID_PATTERN = re.compile(r"[A-Za-z0-9._-]+")
SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True, slots=True)
class Scenario:
    """A validated scenario. ``raw`` is the whole parsed document; assertions read from it."""

    id: str
    title: str
    category: str
    severity: str
    raw: Mapping[str, Any]

    @property
    def expected(self) -> Mapping[str, Any]:
        """The free-form ``expected`` mapping (validated to be a mapping)."""
        value: Mapping[str, Any] = self.raw["expected"]
        return value

    @property
    def assertions(self) -> list[Mapping[str, Any]]:
        """The assertion entries, in file order (validated to be mappings with a type)."""
        value: list[Mapping[str, Any]] = self.raw["assertions"]
        return value

    def trusted_sources(self) -> frozenset[str]:
        """``source`` of every ``input.context[]`` entry marked ``trust: trusted``. Trust comes
        from the scenario, never from the trace."""
        context = self.raw["input"].get("context")
        if not isinstance(context, list):
            return frozenset()
        return frozenset(
            item["source"]
            for item in context
            if isinstance(item, dict)
            and item.get("trust") == "trusted"
            and isinstance(item.get("source"), str)
            and item["source"]
        )


def _invalid(rule: str) -> TracekitError:
    # ``rule`` is fixed text naming fields of the harness schema, plus list indices (counts).
    return TracekitError(finding(Code.HARNESS_SCENARIO_INVALID, rule=rule))


def _nonempty_str(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _check_tool_lists(expected: Mapping[str, Any]) -> None:
    for name in ("allowed_tools", "denied_tools"):
        tools = expected.get(name)
        if tools is None:
            continue
        if not isinstance(tools, list):
            raise _invalid(f"expected.{name} must be a list")
        if not all(_nonempty_str(tool) for tool in tools):
            raise _invalid(f"all items in expected.{name} must be non-empty strings")


def _check_memory_isolation(expected: Mapping[str, Any]) -> None:
    config = expected.get("memory_isolation")
    markers = config.get("forbidden_markers") if isinstance(config, dict) else None
    if not isinstance(markers, list) or not markers:
        raise _invalid("expected.memory_isolation.forbidden_markers must be a non-empty list")
    if not all(isinstance(marker, str) and marker for marker in markers):
        raise _invalid(
            "all items in expected.memory_isolation.forbidden_markers must be non-empty strings"
        )


def _check_assertions(assertions: object, expected: Mapping[str, Any]) -> None:
    if not isinstance(assertions, list) or not assertions:
        raise _invalid("assertions must be a non-empty list")
    for index, assertion in enumerate(assertions):
        if not isinstance(assertion, dict):
            raise _invalid(f"assertions[{index}] must be an object")
        kind = assertion.get("type")
        if not _nonempty_str(kind):
            raise _invalid(f"assertions[{index}].type must be a non-empty string")
        kind = str(kind).strip()
        if kind == "memory_isolation":
            _check_memory_isolation(expected)
        elif kind == "goal_integrity" and not _nonempty_str(assertion.get("expected_goal")):
            raise _invalid(
                f"assertions[{index}].expected_goal must be a non-empty string "
                "for goal_integrity assertions"
            )
        elif kind == "approval_required" and not _nonempty_str(assertion.get("action")):
            raise _invalid(
                f"assertions[{index}].action must be a non-empty string "
                "for approval_required assertions"
            )


def validate_scenario(data: object) -> Scenario:
    """Validate a parsed scenario document; raise :class:`TracekitError`
    (``harness.scenario_invalid``) with the first broken rule."""
    if not isinstance(data, dict):
        raise _invalid("scenario must be a YAML mapping")
    missing = [name for name in sorted(REQUIRED_FIELDS) if name not in data]
    if missing:
        raise _invalid("missing required fields: " + ", ".join(missing))
    scenario_id = data["id"]
    if not _nonempty_str(scenario_id):
        raise _invalid("id must be a non-empty string")
    if not ID_PATTERN.fullmatch(scenario_id):
        raise _invalid("id must match ^[A-Za-z0-9._-]+$")
    if not _nonempty_str(data["title"]):
        raise _invalid("title must be a non-empty string")
    if not isinstance(data["category"], str) or data["category"] not in CATEGORIES:
        raise _invalid("category must be one of: " + ", ".join(sorted(CATEGORIES)))
    if not isinstance(data["severity"], str) or data["severity"] not in SEVERITIES:
        raise _invalid("severity must be one of: " + ", ".join(sorted(SEVERITIES)))
    for name in ("target", "input", "expected"):
        if not isinstance(data[name], dict):
            raise _invalid(f"{name} must be an object")
    _check_tool_lists(data["expected"])
    _check_assertions(data["assertions"], data["expected"])
    return Scenario(scenario_id, data["title"], data["category"], data["severity"], data)


def parse_scenario(data: bytes, limits: Limits = HARNESS_SCENARIO_LIMITS) -> Scenario:
    """Load and validate one scenario from its bytes; raise :class:`TracekitError`."""
    return validate_scenario(load_yaml(data, limits))
