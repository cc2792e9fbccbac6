"""forbidden-paths: changed files matching a forbidden pattern, in changed-file order."""

from __future__ import annotations

from tests.unit.replay.factories import evidence, policy
from tracekit.judging.replay.checks.forbidden_paths import CHECK, PASS_MESSAGE


def test_no_match_passes() -> None:
    decision = CHECK.evaluate(evidence(["src/a.py", "docs/x.md"]), policy())
    assert decision.passed and decision.message == PASS_MESSAGE and decision.evidence == ()


def test_matches_are_listed_in_modified_added_deleted_order() -> None:
    ev = evidence(["secrets/k"], added=["src/ok.py", ".github/w.yml"], deleted=["x.lock"])
    decision = CHECK.evaluate(ev, policy())
    assert not decision.passed
    assert decision.evidence == ("secrets/k", ".github/w.yml", "x.lock")
    assert decision.message == "Forbidden paths modified: secrets/k, .github/w.yml, x.lock"


def test_a_path_matching_two_patterns_is_listed_once() -> None:
    decision = CHECK.evaluate(evidence(["secrets/a.lock"]), policy())
    assert decision.evidence == ("secrets/a.lock",)


def test_empty_pattern_list_allows_everything() -> None:
    assert CHECK.evaluate(evidence([".github/x"]), policy(forbidden_paths=[])).passed


def test_identity() -> None:
    assert (CHECK.id, CHECK.name, CHECK.default_severity) == (
        "forbidden-paths",
        "Forbidden paths",
        "critical",
    )
