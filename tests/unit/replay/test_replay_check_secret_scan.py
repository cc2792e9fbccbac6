"""secret-scan: path-based only; one evidence line per (path, pattern)."""

from __future__ import annotations

import pytest

from tests.unit.replay.factories import evidence, policy
from tracekit.judging.replay.checks.secret_scan import (
    CHECK,
    FAIL_MESSAGE,
    PASS_MESSAGE,
    recorded_message_unrecomputable,
)


def test_clean_paths_pass() -> None:
    decision = CHECK.evaluate(evidence(["src/a.py"]), policy())
    assert decision.passed and decision.message == PASS_MESSAGE


def test_each_path_pattern_pair_is_evidence() -> None:
    ev = evidence(["k/id_rsa.pem"], added=["app/.env"])
    decision = CHECK.evaluate(ev, policy())
    assert not decision.passed and decision.message == FAIL_MESSAGE
    assert decision.evidence == (
        "k/id_rsa.pem matched pattern *.pem",
        "k/id_rsa.pem matched pattern *id_rsa*",
        "app/.env matched pattern **/.env",
    )


def test_top_level_env_is_not_matched_by_double_star_slash() -> None:
    assert CHECK.evaluate(evidence([".env"]), policy()).passed


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("No path-based or content-based secret findings appeared in the diff.", True),
        ("Content-based detector matched added content.", True),
        ("Secret-content scan was incomplete.", True),
        ("SCAN WAS INCOMPLETE", True),
        ("No path-based secret patterns appeared in the diff.", False),
        ("Path-based secret pattern appeared in the diff.", False),
    ],
)
def test_unrecomputable_markers(message: str, expected: bool) -> None:
    assert recorded_message_unrecomputable(message) is expected


def test_identity() -> None:
    assert (CHECK.id, CHECK.name, CHECK.default_severity) == (
        "secret-scan",
        "Secret scan",
        "critical",
    )
