"""Claude Code session transcripts (docs/formats.md, "Claude Code"): the public files read with
the counts their records hold, broken and hostile files refused with claude_code's own codes,
threading checked without looping, and the reader's work linear in the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.unit.formats.hostile import check_hostile
from tracekit.formats import registry
from tracekit.formats.base import FormatError, FormatLimits
from tracekit.formats.reading import load_file

PUBLIC = Path(__file__).resolve().parents[3] / "corpus" / "third_party" / "claude_code" / "public"
CANARY = "CANARY-7f3e"


def _expected(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PUBLIC / "counts.expected.json").read_text())
    return data[name]


def _record(kind: str, uuid: str, parent: str | None, content: Any, **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        message |= {"id": extra.pop("mid", f"m-{uuid}"), "model": "claude-x", "stop_reason": extra.pop("stop", None)}
    return {"parentUuid": parent, "isSidechain": extra.pop("side", False), "type": kind, "sessionId": extra.pop("sid", "s1"),
            "uuid": uuid, "timestamp": extra.pop("ts", "2026-01-01T00:00:00Z"), "version": "2.0.1", "message": message, **extra}


def _write(path: Path, records: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


@pytest.mark.parametrize("name", sorted(k for k in json.loads((PUBLIC / "counts.expected.json").read_text()) if k.endswith(".jsonl")))
def test_public_file_counts(name: str) -> None:
    want = _expected(name)
    evidence = load_file(PUBLIC / name)
    assert evidence.format == "claude_code" and evidence.format_version == want["version"]
    assert [e.id for e in evidence.episodes] == want["episodes"]
    (episode,) = evidence.episodes
    roles: dict[str, int] = {}
    for message in episode.messages:
        roles[message.role] = roles.get(message.role, 0) + 1
    assert roles == want["messages"]
    assert len(episode.turns) == want["turns"]
    assert len(episode.calls) == want["tool_use"]
    assert sum(c.result is not None for c in episode.calls) == want["tool_result"]
    assert all(c.arguments.shape == "object" and c.parallel_group == c.turn for c in episode.calls)
    assert episode.facts.model == want["model"]
    assert ("context_compacted" in episode.losses) == want.get("compacted", False)


def test_public_files_are_claude_code_alone() -> None:
    for path in sorted(PUBLIC.glob("*.jsonl")):
        assert registry.accepting(path.read_bytes()[:65536], ".jsonl") == ("claude_code",), path.name


def test_the_deliberately_broken_public_file_is_refused_at_its_line() -> None:
    """claude-code-log's edge_cases.jsonl misspells ``content`` on line 10."""
    with pytest.raises(FormatError) as raised:
        load_file(PUBLIC.parents[2] / "refused" / "claude_code" / "public" / "edge_cases.jsonl")
    found = raised.value.finding
    assert (found.code.value, found.line) == ("claude_code.schema", 10)
    assert "message.content" in found.message


def test_blocks_of_one_response_are_one_turn_and_results_pair_by_id(tmp_path: Path) -> None:
    """Claude Code writes each content block of one API response on its own line."""
    use = lambda i: {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"n": i}}  # noqa: E731
    result = lambda i: {"type": "tool_result", "tool_use_id": f"t{i}", "content": [{"type": "text", "text": f"r{i}"}], "is_error": i == 2}  # noqa: E731
    path = _write(tmp_path / "s.jsonl", [
        _record("user", "u1", None, "go"),
        _record("assistant", "a1", "u1", [{"type": "thinking", "thinking": "", "signature": "x"}], mid="M"),
        _record("assistant", "a2", "a1", [use(1)], mid="M", ts="2026-01-01T00:00:01Z"),
        _record("assistant", "a3", "a2", [use(2)], mid="M", stop="tool_use", ts="2026-01-01T00:00:01Z"),
        _record("user", "u2", "a3", [result(2)], ts="2026-01-01T00:00:03Z"),
        _record("user", "u3", "u2", [result(1), result(9)], ts="2026-01-01T00:00:04Z"),
        _record("assistant", "a4", "u3", [{"type": "redacted_thinking", "data": "x"}, {"type": "text", "text": "done"}], stop="end_turn"),
    ])
    (episode,) = load_file(path).episodes
    assert len(episode.turns) == 2 and episode.turns[0].finish_reason == "tool_use"
    assert [c.turn for c in episode.calls] == [0, 0] and [c.parallel_group for c in episode.calls] == [0, 0]
    first, second = episode.calls
    assert first.result is not None and first.result.text == "r1" and first.result.latency_s == 3.0
    assert second.result is not None and second.result.is_error and second.result.latency_s == 2.0
    assert first.arguments.value == {"n": 1}
    assert [m.tool_call_id for m in episode.messages if m.role == "tool"] == ["t2", "t1", "t9"]  # t9: unpaired, kept
    assert len(episode.redactions) == 1 and episode.redactions[0].where == "turns[1].thinking"


def test_a_refusal_at_the_permission_prompt_is_a_rejection() -> None:
    """spotter_short.jsonl: the user refused two calls; Claude Code marks each result record
    ``toolUseResult: "User rejected tool use"``."""
    (episode,) = load_file(PUBLIC / "spotter_short.jsonl").episodes
    assert [(a.decision, a.approver) for a in episode.approvals] == [("reject", "user")] * 2
    by_id = {c.call_id: c for c in episode.calls}
    for approval in episode.approvals:
        call = by_id[approval.call_id]
        assert approval.action == call.name and approval.position == call.index + 1
        assert call.result is not None and call.result.is_error and call.result.error_kind == "rejected"


def test_sidechains_and_sub_agents_are_their_own_episodes(tmp_path: Path) -> None:
    path = _write(tmp_path / "s.jsonl", [
        {"type": "summary", "summary": "earlier", "leafUuid": "x"},
        _record("user", "u1", None, "go"),
        _record("user", "s1", None, "task", side=True),
        _record("user", "g1", None, "task", side=True, agentId="a7"),
        _record("user", "c1", "u1", "summary of before", isCompactSummary=True),
        {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}, "isSnapshotUpdate": False},
    ])
    episodes = load_file(path).episodes
    assert [e.id for e in episodes] == ["s1", "s1:sidechain", "s1:agent:a7"]
    assert episodes[0].losses == ("context_compacted",) and episodes[1].losses == ()


def test_a_parent_cycle_is_refused_without_looping(tmp_path: Path) -> None:
    path = _write(tmp_path / "s.jsonl", [_record("user", "a", "c", "x"), _record("user", "b", "a", "x"), _record("user", "c", "b", "x")])
    with pytest.raises(FormatError) as raised:
        load_file(path)
    assert raised.value.finding.code.value == "claude_code.schema" and "parentUuid" in raised.value.finding.message


def test_a_cycle_through_an_attachment_is_refused(tmp_path: Path) -> None:
    attachment = {"type": "attachment", "uuid": "t", "parentUuid": "b", "sessionId": "s1", "attachment": {}}
    path = _write(tmp_path / "s.jsonl", [_record("user", "a", "t", "x"), _record("user", "b", "a", "x"), attachment])
    with pytest.raises(FormatError):
        load_file(path)


def test_a_transcript_may_open_with_a_metadata_record(tmp_path: Path) -> None:
    for head in ({"type": "permission-mode", "permissionMode": "default", "sessionId": "s1"},
                 {"type": "queue-operation", "operation": "enqueue", "timestamp": "t", "sessionId": "s1"},
                 {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}, "isSnapshotUpdate": False},
                 {"type": "artifact-comment-monitor", "sessionId": "s1"}):
        path = _write(tmp_path / "s.jsonl", [head, _record("user", "u", None, "go")])
        assert registry.accepting(path.read_bytes(), ".jsonl") == ("claude_code",)
        assert [e.id for e in load_file(path).episodes] == ["s1"]
    assert registry.accepting(json.dumps({"type": "mode", "mode": "x"}).encode(), ".jsonl") == ()


def test_a_self_parent_is_a_cycle(tmp_path: Path) -> None:
    with pytest.raises(FormatError):
        load_file(_write(tmp_path / "s.jsonl", [_record("user", "a", "a", "x")]))


HOSTILE: list[tuple[str, list[Any], str]] = [
    ("not_json", [_record("user", "u", None, "x"), '{"x": "' + CANARY], "claude_code.invalid_json"),
    ("not_an_object", [_record("user", "u", None, "x"), f'["{CANARY}"]'], "claude_code.schema"),
    ("bad_session", [_record("user", "u", None, CANARY), _record("user", "v", None, "x", sid=7)], "claude_code.schema"),
    ("bad_tool_use", [_record("user", "u", None, "x"), _record("assistant", "a", "u", [{"type": "tool_use", "id": 1, "name": CANARY}])], "claude_code.schema"),
    ("bad_result", [_record("user", "u", None, [{"type": "tool_result", "tool_use_id": None, "content": CANARY}])], "claude_code.schema"),
    ("string_input", [_record("assistant", "a", None, [{"type": "tool_use", "id": "t", "name": "n", "input": CANARY}])], "claude_code.schema"),
    ("deep", [_record("user", "v", None, "x"), _record("user", "u", None, [{"type": "text", "text": "x", "k": json.loads("[" * 80 + "]" * 80)}])], "claude_code.too_deep"),
    ("repeated_key", [_record("user", "u", None, "x"), '{"type": "user", "type": "assistant", "x": "' + CANARY + '"}'], "claude_code.duplicate_key"),
]


@pytest.mark.parametrize(("name", "records", "code"), HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_transcripts_are_refused_with_claude_code_codes(tmp_path: Path, name: str, records: list[Any], code: str) -> None:
    check_hostile(_write(tmp_path / f"{name}.jsonl", records), "claude_code", code, CANARY)


def test_a_line_over_the_bound_is_refused_before_it_is_held(tmp_path: Path) -> None:
    path = _write(tmp_path / "s.jsonl", [_record("user", "u", None, "x" * 5000)])
    with pytest.raises(FormatError) as raised:
        load_file(path, limits=FormatLimits(member_bytes=1024))
    assert raised.value.finding.code.value == "claude_code.document_too_large"


def test_episode_and_item_bounds(tmp_path: Path) -> None:
    many = _write(tmp_path / "m.jsonl", [_record("user", f"u{i}", None, "x", sid=f"s{i}") for i in range(5)])
    with pytest.raises(FormatError) as raised:
        load_file(many, limits=FormatLimits(episodes=4))
    assert raised.value.finding.code.value == "claude_code.too_many_episodes"
    with pytest.raises(FormatError) as raised:
        load_file(many, limits=FormatLimits(items_per_episode=1))
    assert raised.value.finding.code.value == "claude_code.too_many_items"


def _chain(path: Path, count: int) -> Path:
    with path.open("w") as out:
        parent = None
        for i in range(count):
            kind = "user" if i % 2 == 0 else "assistant"
            out.write(json.dumps(_record(kind, f"n{i}", parent, "x" if kind == "user" else [{"type": "text", "text": "y"}])) + "\n")
            parent = f"n{i}"
    return path


def test_a_long_thread_reads_whole(tmp_path: Path) -> None:
    """A 20 000-record chain threaded end to end (the check's work is counted in
    tests/complexity/test_transcript_work.py)."""
    (episode,) = load_file(_chain(tmp_path / "l.jsonl", 20_000)).episodes
    assert len(episode.messages) == 20_000 and len(episode.turns) == 10_000
