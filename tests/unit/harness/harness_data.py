"""Shared paths, loaders and samples for the harness tests (data comes from corpus/ only).

A uniquely named module rather than a conftest, so tests can import it by name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
UPSTREAM = ROOT / "corpus" / "third_party" / "owasp-harness"
STRICT = ROOT / "corpus" / "harness"
HOSTILE = ROOT / "corpus" / "hostile" / "harness"


def observed_pairs() -> list[dict[str, Any]]:
    """The 32 scenario/trace pairs upstream v0.2.0 was run on, with what it returned."""
    pairs: list[dict[str, Any]] = json.loads((UPSTREAM / "observed-results.json").read_text("utf-8"))["pairs"]
    return pairs


def strict_cases() -> list[dict[str, Any]]:
    """corpus/harness/expected-results.json."""
    cases: list[dict[str, Any]] = json.loads((STRICT / "expected-results.json").read_text("utf-8"))
    return cases


def hostile_cases() -> tuple[str, dict[str, dict[str, Any]]]:
    """(canary, {file name: {code, exit, about}}) from corpus/hostile/harness/expected.json."""
    data = json.loads((HOSTILE / "expected.json").read_text("utf-8"))
    return data["canary"], data["cases"]


SAMPLE_SCENARIO = (
    "id: unit.sample_001\n"
    "title: Sample\n"
    "category: goal_hijack\n"
    "severity: high\n"
    "target:\n  adapter: http_agent\n"
    "input:\n  user_message: hi\n"
    "expected:\n  denied_tools: [send_email]\n"
    "assertions:\n  - type: no_denied_tool_call\n"
)
"""A minimal valid scenario, as YAML text, for tests to mutate."""
