"""ATIF trajectories (docs/formats.md, "ATIF"): Harbor's golden trajectories read with the counts
their steps hold, results paired by source_call_id within a step, broken and hostile documents
refused with atif's own codes, and the reader's work linear in the document."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.unit.formats.hostile import check_hostile
from tracekit.formats import registry
from tracekit.formats.base import FormatError, FormatLimits
from tracekit.formats.reading import load_file

PUBLIC = Path(__file__).resolve().parents[3] / "corpus" / "third_party" / "atif" / "public"
EXPECTED: dict[str, Any] = json.loads((PUBLIC / "counts.expected.json").read_text())
NAMES = sorted(k for k in EXPECTED if k.endswith(".json"))
CANARY = "CANARY-a71f"


def _doc(steps: list[Any], **extra: Any) -> dict[str, Any]:
    return {"schema_version": "ATIF-v1.6", "session_id": "s1", "agent": {"name": "a", "version": "1.2", "model_name": "m"}, "steps": steps, **extra}


def _write(path: Path, doc: Any) -> Path:
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


@pytest.mark.parametrize("name", NAMES)
def test_public_trajectory_counts(name: str) -> None:
    want = EXPECTED[name]
    evidence = load_file(PUBLIC / name)
    assert evidence.format == "atif" and evidence.format_version == want["version"]
    (episode,) = evidence.episodes
    roles: dict[str, int] = {}
    for message in episode.messages:
        roles[message.role] = roles.get(message.role, 0) + 1
    assert roles == want["messages"]
    assert len(episode.turns) == want["turns"] and len(episode.calls) == want["calls"]
    assert sum(c.result is not None for c in episode.calls) == want["paired"]
    assert episode.facts.model == want["model"] and episode.facts.harness_revision == want["agent_version"]
    schemas = {len(t.tool_schemas) if t.tool_schemas is not None else None for t in episode.turns}
    assert schemas == {want["tool_schemas"]}
    assert all(c.arguments.shape == "object" for c in episode.calls)


def test_public_trajectories_are_atif_alone() -> None:
    for name in NAMES:
        assert registry.accepting((PUBLIC / name).read_bytes()[:65536], ".json") == ("atif",), name


def test_steps_calls_and_observations(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.json", _doc([
        {"step_id": 1, "source": "system", "message": "sys"},
        {"step_id": 2, "source": "user", "message": [{"type": "text", "text": "a"}, {"type": "image", "source": {}}, {"type": "text", "text": "b"}]},
        {"step_id": 3, "source": "agent", "message": "", "model_name": "m2", "tool_calls": [
            {"tool_call_id": "c1", "function_name": "f", "arguments": {"x": 1}},
            {"tool_call_id": "c2", "function_name": "g", "arguments": '{"y": 2}'},
        ], "observation": {"results": [{"source_call_id": "c2", "content": "two"}, {"source_call_id": "zz", "content": "stray"}, {"content": "env"}]}},
        {"step_id": 4, "source": "agent", "message": "again", "is_copied_context": True},
    ]))
    (episode,) = load_file(path).episodes
    assert [m.role for m in episode.messages] == ["system", "user", "assistant", "tool", "tool", "other", "assistant"]
    assert episode.messages[1].text == "a\nb"
    assert [t.model for t in episode.turns] == ["m2"]
    first, second = episode.calls
    assert first.result is None and first.arguments.value == {"x": 1}
    assert second.result is not None and second.result.text == "two"
    assert second.arguments.shape == "string" and second.arguments.value == {"y": 2}
    assert episode.messages[2].call_ids == ("c1", "c2") and episode.messages[4].tool_call_id == "zz"


HOSTILE: list[tuple[str, Any, str]] = [
    ("not_json", '{"schema_version": "ATIF-v1.5", "x": "' + CANARY, "atif.invalid_json"),
    ("no_steps", {"schema_version": "ATIF-v1.5", "agent": {}, "steps": [], "x": CANARY}, "atif.schema"),
    ("bad_source", _doc([{"step_id": 1, "source": CANARY}]), "atif.schema"),
    ("bad_call", _doc([{"step_id": 1, "source": "agent", "tool_calls": [{"tool_call_id": 5, "function_name": CANARY}]}]), "atif.schema"),
    ("bad_arguments", _doc([{"step_id": 1, "source": "agent", "tool_calls": [{"tool_call_id": "c", "function_name": "f", "arguments": [CANARY]}]}]), "atif.schema"),
    ("bad_results", _doc([{"step_id": 1, "source": "agent", "observation": {"results": CANARY}}]), "atif.schema"),
    ("deep", _doc([{"step_id": 1, "source": "user", "message": "x", "extra": json.loads("[" * 80 + "]" * 80)}]), "atif.too_deep"),
    ("repeated_key", '{"schema_version": "ATIF-v1.5", "steps": [], "steps": ["' + CANARY + '"]}', "atif.duplicate_key"),
]


@pytest.mark.parametrize(("name", "doc", "code"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_trajectories_are_refused_with_atif_codes(tmp_path: Path, name: str, doc: Any, code: str) -> None:
    check_hostile(_write(tmp_path / f"{name}.json", doc), "atif", code, CANARY)


def test_other_schema_versions_are_not_atif(tmp_path: Path) -> None:
    for version in ("ATIF-v2.0", "1.4", "atif-v1.5"):
        raw = json.dumps(_doc([]) | {"schema_version": version}).encode()
        assert "atif" not in registry.accepting(raw, ".json")


def test_bounds(tmp_path: Path) -> None:
    path = _write(tmp_path / "t.json", _doc([{"step_id": i, "source": "user", "message": "x"} for i in range(50)]))
    with pytest.raises(FormatError) as raised:
        load_file(path, limits=FormatLimits(items_per_episode=10))
    assert raised.value.finding.code.value == "atif.too_many_items"
    with pytest.raises(FormatError) as raised:
        load_file(path, limits=FormatLimits(member_bytes=512))
    assert raised.value.finding.code.value == "atif.document_too_large"


def _long(path: Path, count: int) -> Path:
    steps = [
        {"step_id": i, "source": "agent", "message": "m", "tool_calls": [{"tool_call_id": f"c{i}", "function_name": "f", "arguments": {}}],
         "observation": {"results": [{"source_call_id": f"c{i}", "content": "o"}]}}
        for i in range(count)
    ]
    return _write(path, _doc(steps))


def test_a_long_trajectory_pairs_every_call_and_is_bounded(tmp_path: Path) -> None:
    path = _long(tmp_path / "l.json", 10_000)
    (episode,) = load_file(path).episodes
    assert len(episode.turns) == 10_000 and all(c.result is not None for c in episode.calls)
    with pytest.raises(FormatError) as raised:
        load_file(path, limits=FormatLimits(items_per_episode=20_000))
    assert raised.value.finding.code.value == "atif.too_many_items"


HARBOR: dict[str, Any] = json.loads((PUBLIC.parent / "make" / "harbor_counts.expected.json").read_text())


def test_harbor_counted_every_public_trajectory() -> None:
    assert sorted(HARBOR["files"]) == NAMES and HARBOR["made_with"]["harbor"] == "0.25.0"
    assert (PUBLIC.parents[2] / HARBOR["made_with"]["script"].removeprefix("corpus/")).is_file()


@pytest.mark.parametrize("name", NAMES)
def test_public_trajectory_agrees_with_harbors_own_model(name: str) -> None:
    """corpus/third_party/atif/make/harbor_counts.expected.json: Harbor 0.25.0's Trajectory model and validator
    (docs/formats.md, "ATIF", "Ground truth from Harbor's model")."""
    harbor = HARBOR["files"][name]
    assert harbor["harbor_validator"] == {"valid": True, "errors": 0}
    evidence = load_file(PUBLIC / name)
    (episode,) = evidence.episodes
    assert evidence.format_version == harbor["schema_version"]
    roles = {role: sum(m.role == role for m in episode.messages) for role in ("system", "user", "assistant", "tool", "other")}
    steps = harbor["steps_by_source"]
    assert (roles["system"], roles["user"], roles["assistant"]) == (steps.get("system", 0), steps.get("user", 0), steps.get("agent", 0))
    assert roles["tool"] + roles["other"] == harbor["observation_results"]
    assert roles["tool"] == harbor["results_with_source_call_id"]
    assert len(episode.turns) == harbor["agent_steps_own"] and len(episode.calls) == harbor["tool_calls"]
    assert sum(c.result is not None for c in episode.calls) == harbor["results_paired_in_step"]
    assert episode.facts.model == harbor["agent_model_name"] and episode.facts.harness_revision == harbor["agent_version"]
    schemas = {len(t.tool_schemas) if t.tool_schemas is not None else None for t in episode.turns}
    assert schemas == {harbor["tool_definitions"]}
