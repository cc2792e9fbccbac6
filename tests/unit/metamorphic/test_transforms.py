"""Every registered transform: deterministic, pure, and keeping its relation on the corpus."""

from __future__ import annotations

import copy

import pytest

from tests.unit.metamorphic.support import clean_bytes, custom_trace, replayable_corpus, sweep
from tracekit.formats.agentguard.writer import DraftTrace, read_draft, write_trace
from tracekit.judging.metamorphic import NAMES, REGISTRY, NotApplicable, Transform

NAMES_TO = {t.name: t for t in REGISTRY}


def _bytes(result: DraftTrace | bytes) -> bytes:
    return result if isinstance(result, bytes) else write_trace(result)


def _apply(transform: Transform, draft: DraftTrace, trial: int, seed: int) -> bytes | None:
    try:
        return _bytes(transform.apply(draft, trial, seed))
    except NotApplicable:
        return None


@pytest.mark.parametrize("transform", REGISTRY, ids=lambda t: t.name)
def test_deterministic_given_trace_trial_and_seed(transform: Transform) -> None:
    for path in replayable_corpus()[:12]:
        draft = read_draft(path.read_bytes())
        for trial, seed in ((1, 0), (2, 0), (3, 7)):
            first = _apply(transform, draft, trial, seed)
            again = _apply(transform, read_draft(path.read_bytes()), trial, seed)
            assert first == again, (path.name, trial, seed)


@pytest.mark.parametrize("transform", REGISTRY, ids=lambda t: t.name)
def test_never_mutates_its_input_and_always_changes_the_bytes(transform: Transform) -> None:
    draft = read_draft(clean_bytes())
    if transform.name == "remove_forbidden_change":
        draft = read_draft(_bytes(NAMES_TO["add_secret_file"].apply(draft, 1, 0)))
    if transform.name == "check_evidence_order":
        next(e for e in draft.events if e.event_type == "check_result").payload["evidence"] = ["a", "b"]
    snapshot = copy.deepcopy(draft)
    produced = _apply(transform, draft, 1, 0)
    assert draft == snapshot, "apply must not edit its input"
    assert produced is not None, "the clean run gives every transform something to act on"
    assert produced != write_trace(draft)


def test_the_corpus_exercises_every_transform() -> None:
    applicable = {name: 0 for name in NAMES}
    for path in replayable_corpus():
        result = sweep(path.read_bytes(), NAMES)
        for case in result.cases:
            applicable[case.transform] += case.passed is not None
    assert all(applicable.values()), applicable


@pytest.mark.parametrize("transform", REGISTRY, ids=lambda t: t.name)
def test_every_transform_keeps_its_relation_on_every_replayable_corpus_trace(
    transform: Transform,
) -> None:
    sources = replayable_corpus()
    assert len(sources) >= 20
    failures = []
    for path in sources:
        result = sweep(path.read_bytes(), (transform.name,), trials=2)
        assert result.skipped is None
        failures += [(path.name, c.trial, c.reason) for c in result.cases if c.passed is False]
    assert failures == []


def test_trials_and_seeds_vary_the_result() -> None:
    draft = read_draft(clean_bytes())
    for name in ("timestamp_variation", "check_message_variation", "add_test_file", "add_unsafe_command"):
        t = NAMES_TO[name]
        assert _apply(t, draft, 1, 0) != _apply(t, draft, 2, 0), name
        assert _apply(t, draft, 1, 0) != _apply(t, draft, 1, 5), name


def test_upstream_values_for_seed_zero() -> None:
    draft = read_draft(clean_bytes())
    out = read_draft(_bytes(NAMES_TO["timestamp_variation"].apply(draft, 3, 0)))
    assert out.header["created_at"] == "2026-01-01T00:00:03+00:00"
    assert [e.relative_offset_seconds for e in out.events[:3]] == [3.0, 3.125, 3.25]
    added = read_draft(_bytes(NAMES_TO["add_test_file"].apply(draft, 2, 0)))
    assert added.events[-1].payload["modified_files"]["paths"][-1] == "tests/metamorphic_2.py"
    secret = read_draft(_bytes(NAMES_TO["add_secret_file"].apply(draft, 2, 0)))
    assert secret.events[-1].payload["modified_files"]["paths"][-1] == "secrets/metamorphic_2.key"
    unsafe = read_draft(_bytes(NAMES_TO["add_unsafe_command"].apply(draft, 4, 0)))
    commands = [e.payload["command"] for e in unsafe.events if e.event_type == "agent_command"]
    assert commands[-1] == "rm -rf /tmp/metamorphic-4"
    message = read_draft(_bytes(NAMES_TO["check_message_variation"].apply(draft, 2, 0)))
    checks = [e.payload["message"] for e in message.events if e.event_type == "check_result"]
    assert all(m.endswith(" [display variant 2]") for m in checks)


def test_paths_and_commands_follow_the_policy_when_upstream_choices_do_not_match() -> None:
    data = write_trace(custom_trace(
        test_paths=["spec/*_spec.rb"],
        forbidden_paths=["config/credentials/**"],
        secret_patterns=[],
        unsafe_commands=["shred "],
        command_policy_patterns=["shred "],
        allowed_paths=["src/**", "docs/**"],
    ))
    result = sweep(data, ("add_test_file", "add_secret_file", "add_unsafe_command"), trials=2)
    assert [(c.transform, c.passed) for c in result.cases] == [
        ("add_test_file", True), ("add_test_file", True),
        ("add_secret_file", True), ("add_secret_file", True),
        ("add_unsafe_command", True), ("add_unsafe_command", True),
    ]
    assert result.cases[2].reason == "forbidden-paths fails"


@pytest.mark.parametrize(
    ("name", "policy", "reason"),
    [
        ("add_test_file", {"test_paths": []}, "no policy pattern yields a path"),
        ("add_test_file", {"enabled_checks": ["tests-passed"]}, "enables none of the checks"),
        ("add_unsafe_command", {"unsafe_commands": [], "command_policy_patterns": []}, "no unsafe"),
        ("increase_diff_size", {"max_lines_added": None}, "no max_lines_added"),
        ("add_secret_file", {"secret_patterns": [], "forbidden_paths": []}, "no policy pattern"),
        ("remove_forbidden_change", {}, "changes no forbidden path"),
        ("check_evidence_order", {}, "no recorded evidence list has two different items"),
    ],
)
def test_not_applicable_is_reported_never_counted(name: str, policy: dict[str, object], reason: str) -> None:
    result = sweep(write_trace(custom_trace(**policy)), (name,))
    (case,) = result.cases
    assert case.passed is None
    assert case.reason.startswith("not applicable: ") and reason in case.reason


def test_alter_policy_threshold_needs_added_lines() -> None:
    draft = custom_trace()
    for event in draft.events:
        if event.event_type == "file_change":
            event.payload["lines_added"] = 0
    draft.events[-1].payload["modified_files"]["lines_added"] = 0
    (case,) = sweep(write_trace(draft), ("alter_policy_threshold",)).cases
    assert case.passed is None


def test_reorder_agent_commands_really_permutes_and_keeps_offsets_in_place() -> None:
    draft = read_draft(_bytes(NAMES_TO["timestamp_variation"].apply(custom_trace(), 1, 0)))
    for trial in range(1, 6):
        out = NAMES_TO["reorder_agent_commands"].apply(draft, trial, 0)
        assert isinstance(out, DraftTrace)
        before = [e.payload["command"] for e in draft.events if e.event_type == "agent_command"]
        after = [e.payload["command"] for e in out.events if e.event_type == "agent_command"]
        assert sorted(before) == sorted(after) and before != after
        assert [e.relative_offset_seconds for e in out.events] == [
            e.relative_offset_seconds for e in draft.events
        ]


def test_check_evidence_order_reverses_odd_and_rotates_even_trials() -> None:
    from tracekit.judging.metamorphic.transforms.check_evidence_order import reorder

    items = ["a", "b", "c"]
    assert reorder(items, 1, 0) == ["c", "b", "a"]
    assert reorder(items, 2, 0) == ["b", "c", "a"]
    assert reorder(items, 4, 0) == ["c", "a", "b"]
    assert all(reorder(items, trial, seed) != items for trial in range(1, 9) for seed in range(4))
