"""Codex CLI rollouts (docs/formats.md, "Codex CLI"): the public rollouts read with the counts
their lines hold, calls paired by call_id, arguments kept as the provider's string, broken and
hostile files refused with codex's own codes, and the reader's work linear in the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.unit.formats.hostile import check_hostile
from tracekit.formats import registry
from tracekit.formats.base import FormatError, FormatLimits
from tracekit.formats.reading import load_file

PUBLIC = Path(__file__).resolve().parents[3] / "corpus" / "third_party" / "codex" / "public"
EXPECTED: dict[str, Any] = json.loads((PUBLIC / "counts.expected.json").read_text())
NAMES = sorted(k for k in EXPECTED if k.endswith(".jsonl"))
CANARY = "CANARY-c0d3"


def _line(kind: str, payload: Any, at: str = "2026-01-01T00:00:00Z") -> dict[str, Any]:
    return {"timestamp": at, "type": kind, "payload": payload}


META = _line("session_meta", {"id": "s1", "cli_version": "0.50.0", "base_instructions": {"text": "sys"}})


def _write(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
    return path


@pytest.mark.parametrize("name", NAMES)
def test_public_rollout_counts(name: str) -> None:
    want = EXPECTED[name]
    evidence = load_file(PUBLIC / name)
    assert evidence.format == "codex" and evidence.format_version == want["version"]
    (episode,) = evidence.episodes
    assert episode.id == want["episode"] and episode.facts.model == want["model"]
    roles: dict[str, int] = {}
    for message in episode.messages:
        roles[message.role] = roles.get(message.role, 0) + 1
    assert roles == want["messages"]
    assert len(episode.turns) == want["turns"]
    assert len(episode.calls) == want["function_call"]
    assert sum(c.result is not None for c in episode.calls) == want["paired"]
    assert len(episode.redactions) == want["encrypted_reasoning"]
    assert all(c.arguments.shape == "string" and c.arguments.text for c in episode.calls)


def test_public_rollouts_are_codex_alone() -> None:
    for name in NAMES:
        assert registry.accepting((PUBLIC / name).read_bytes()[:65536], ".jsonl") == ("codex",), name


def test_calls_outputs_and_turns(tmp_path: Path) -> None:
    path = _write(tmp_path / "rollout-x.jsonl", [
        META,
        _line("turn_context", {"model": "gpt-x", "effort": "high"}),
        _line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}),
        _line("response_item", {"type": "reasoning", "summary": [], "encrypted_content": "zzz"}),
        _line("response_item", {"type": "function_call", "name": "shell", "arguments": '{"cmd": ["ls"]}', "call_id": "c1"}),
        _line("response_item", {"type": "function_call", "name": "shell", "arguments": "not json", "call_id": "c2"}, "2026-01-01T00:00:01Z"),
        _line("response_item", {"type": "function_call_output", "call_id": "c2", "output": {"content": "boom", "success": False}}, "2026-01-01T00:00:03Z"),
        _line("response_item", {"type": "function_call_output", "call_id": "c1", "output": "ok"}, "2026-01-01T00:00:04Z"),
        _line("response_item", {"type": "function_call_output", "call_id": "c9", "output": "stray"}),
        _line("event_msg", {"type": "token_count", "info": None}),
        _line("response_item", {"type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin", "call_id": "c3"}),
        _line("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]}),
        _line("event_msg", {"type": "error", "message": CANARY}),
        _line("compacted", {"message": "summary"}),
    ])
    (episode,) = load_file(path).episodes
    assert [t.model for t in episode.turns] == ["gpt-x", "gpt-x"]
    assert [c.turn for c in episode.calls] == [0, 0, 1] and [c.parallel_group for c in episode.calls] == [0, 0, 1]
    first, second, third = episode.calls
    assert first.arguments.value == {"cmd": ["ls"]} and not first.arguments.parse_error
    assert second.arguments.parse_error and second.arguments.text == "not json"
    assert first.result is not None and first.result.text == "ok" and first.result.latency_s == 4.0
    assert second.result is not None and second.result.is_error and second.result.latency_s == 2.0
    assert third.result is None and third.arguments.shape == "string"
    assert [m.tool_call_id for m in episode.messages if m.role == "tool"] == ["c2", "c1", "c9"]
    assert episode.facts.sampling == {"reasoning_effort": "high"} and episode.facts.tool_version == "0.50.0"
    assert episode.messages[0].role == "system" and len(episode.redactions) == 1
    assert [e.kind for e in episode.errors] == ["model_error"] and episode.losses == ("context_compacted",)


HOSTILE: list[tuple[str, list[Any], str]] = [
    ("not_json", [META, '{"type": "' + CANARY], "codex.invalid_json"),
    ("not_an_object", [META, f'["{CANARY}"]'], "codex.schema"),
    ("payload_not_object", [META, {"timestamp": "t", "type": "response_item", "payload": CANARY}], "codex.schema"),
    ("call_without_name", [META, _line("response_item", {"type": "function_call", "arguments": CANARY, "call_id": "c"})], "codex.schema"),
    ("output_without_id", [META, _line("response_item", {"type": "function_call_output", "output": CANARY})], "codex.schema"),
    ("bad_output", [META, _line("response_item", {"type": "function_call_output", "call_id": "c", "output": {"content": 5, "x": CANARY}})], "codex.schema"),
    ("deep", [META, _line("response_item", {"type": "message", "role": "user", "content": json.loads("[" * 80 + "]" * 80)})], "codex.too_deep"),
    ("repeated_key", [META, '{"type": "event_msg", "type": "x", "payload": {"m": "' + CANARY + '"}}'], "codex.duplicate_key"),
]


@pytest.mark.parametrize(("name", "lines", "code"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_rollouts_are_refused_with_codex_codes(tmp_path: Path, name: str, lines: list[Any], code: str) -> None:
    check_hostile(_write(tmp_path / f"{name}.jsonl", lines), "codex", code, CANARY)


def test_deep_arguments_are_a_parse_error_not_a_crash(tmp_path: Path) -> None:
    deep = "[" * 200 + "]" * 200
    path = _write(tmp_path / "r.jsonl", [META, _line("response_item", {"type": "function_call", "name": "f", "arguments": deep, "call_id": "c"})])
    (episode,) = load_file(path).episodes
    assert episode.calls[0].arguments.parse_error and episode.calls[0].arguments.text == deep


def test_bounds(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.jsonl", [META, _line("response_item", {"type": "message", "role": "user", "content": [{"text": "x" * 4000}]})])
    with pytest.raises(FormatError) as raised:
        load_file(path, limits=FormatLimits(member_bytes=1024))
    assert raised.value.finding.code.value == "codex.document_too_large"
    with pytest.raises(FormatError) as raised:
        load_file(path, limits=FormatLimits(items_per_episode=1))
    assert raised.value.finding.code.value == "codex.too_many_items"


def _loop(path: Path, count: int) -> Path:
    with path.open("w") as out:
        out.write(json.dumps(META) + "\n")
        for i in range(count):
            out.write(json.dumps(_line("response_item", {"type": "function_call", "name": "f", "arguments": "{}", "call_id": f"c{i}"})) + "\n")
            out.write(json.dumps(_line("response_item", {"type": "function_call_output", "call_id": f"c{i}", "output": "o"})) + "\n")
    return path


def test_a_long_loop_is_one_turn_per_call_and_bounded(tmp_path: Path) -> None:
    """10 000 call/output pairs: one pass, outputs paired through one dict (tests/complexity/
    test_transcript_work.py counts the work); the item bound stops a longer one."""
    path = _loop(tmp_path / "l.jsonl", 10_000)
    (episode,) = load_file(path).episodes
    assert len(episode.turns) == 10_000 and all(c.result is not None for c in episode.calls)
    with pytest.raises(FormatError) as raised:
        load_file(path, limits=FormatLimits(items_per_episode=5_000))
    assert raised.value.finding.code.value == "codex.too_many_items"
