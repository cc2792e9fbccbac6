"""A sweep must catch a deliberately broken check: that is what metamorphic testing is for."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.unit.metamorphic.support import clean_bytes, sweep
from tracekit.formats.agentguard.schema.agentguard import PolicySnapshot
from tracekit.judging.metamorphic import NAMES
from tracekit.judging.replay import engine
from tracekit.judging.replay.checks import REGISTRY, Check, Decision
from tracekit.judging.replay.checks.base import Work
from tracekit.judging.replay.evidence import Evidence


@dataclass(frozen=True, slots=True)
class TestTamperingIgnoringTestPaths:
    """The bug: test paths are never consulted, so tampering always passes."""

    __test__ = False

    id: str = "test-tampering"
    name: str = "Test tampering"
    default_severity: str = "error"

    def evaluate(self, evidence: Evidence, policy: PolicySnapshot, work: Work | None = None) -> Decision:
        return Decision(True, "No test files were modified.")


@dataclass(frozen=True, slots=True)
class DiffSizeCountingFilesOnly:
    """The bug: line limits are ignored; only the number of files is checked."""

    id: str = "diff-size"
    name: str = "Diff size"
    default_severity: str = "warning"

    def evaluate(self, evidence: Evidence, policy: PolicySnapshot, work: Work | None = None) -> Decision:
        limit = policy.max_files_changed
        return Decision(limit is None or len(evidence.changed_files) <= limit, "files only")


def _swap(monkeypatch: pytest.MonkeyPatch, broken: Check) -> None:
    patched = tuple(broken if c.id == broken.id else c for c in REGISTRY)
    monkeypatch.setattr(engine, "REGISTRY", patched)


def test_a_check_that_ignores_test_paths_fails_add_test_file(monkeypatch: pytest.MonkeyPatch) -> None:
    _swap(monkeypatch, TestTamperingIgnoringTestPaths())
    result = sweep(clean_bytes(), NAMES, trials=2)
    failed = {(c.transform, c.reason) for c in result.cases if c.passed is False}
    assert failed == {("add_test_file", "test-tampering did not fail")}


def test_a_check_that_ignores_line_limits_fails_both_diff_size_transforms(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _swap(monkeypatch, DiffSizeCountingFilesOnly())
    result = sweep(clean_bytes(), NAMES)
    failed = sorted(c.transform for c in result.cases if c.passed is False)
    assert failed == ["alter_policy_threshold", "increase_diff_size"]


def test_the_unbroken_registry_passes_every_relation() -> None:
    result = sweep(clean_bytes(), NAMES, trials=2)
    assert [c for c in result.cases if c.passed is False] == []
