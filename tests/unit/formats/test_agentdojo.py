"""AgentDojo importer: the real TraceLogger files asserted field by field against the ground
truth their generator wrote, plus the shapes older runs use and the schema errors."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from tracekit.formats import registry
from tracekit.formats.agentdojo import FORMAT, path_context
from tracekit.formats.base import DEFAULT_FORMAT_LIMITS, FormatError, FormatLimits, Source
from tracekit.formats.reading import load_file
from tracekit.kernel.errors import Code
from tracekit.kernel.evidence import Episode

ROOT = Path(__file__).resolve().parents[3]
RUNS = ROOT / "corpus" / "third_party" / "agentdojo" / "runs"
CASES = sorted(p for p in RUNS.rglob("*.json") if not p.name.endswith(".expected.json"))
CANARY = "CANARY-adj-5511-do-not-echo"


def _source(doc: Any, context: tuple[tuple[str, str], ...] = ()) -> Source:
    raw = json.dumps(doc, indent=4).encode() if not isinstance(doc, bytes) else doc
    return Source(io.BytesIO(raw), len(raw), ".json", context)


def _load(doc: Any, limits: FormatLimits = DEFAULT_FORMAT_LIMITS) -> Episode:
    return FORMAT.load(_source(doc), limits).episodes[0]


def test_the_corpus_is_present() -> None:
    assert len(CASES) >= 8


@pytest.mark.parametrize("path", CASES, ids=lambda p: str(p.relative_to(RUNS)))
def test_real_file_matches_its_ground_truth(path: Path) -> None:
    truth = json.loads(path.with_name(path.stem + ".expected.json").read_text())["episodes"][0]
    raw = path.read_bytes()
    assert registry.accepting(raw[:65536], ".json") == ("agentdojo",)
    evidence = load_file(path)
    assert evidence.format == "agentdojo"
    (episode,) = evidence.episodes
    ident = truth["id"]
    facts = episode.facts
    assert facts.tool == "agentdojo" and facts.tool_version == "0.1.35"
    assert facts.model == ident["pipeline_name"]
    assert facts.task == ident["user_task_id"]
    assert facts.attack == ident["attack_type"]
    assert facts.attack_task == ident["injection_task_id"]
    assert facts.harness_revision == truth["benchmark_version"]
    assert facts.injection_point == (",".join(sorted(truth["injections"])) or None)
    assert [(c.name, c.call_id) for c in episode.calls] == [(c["name"], c["id"]) for c in truth["tool_calls"]]
    for call, expected in zip(episode.calls, truth["tool_calls"], strict=True):
        assert call.arguments.shape == "object"
        assert call.arguments.value == expected["arguments"]
        # verbatim types: a float stays a float, a list stays a list
        assert json.dumps(call.arguments.value) == json.dumps(expected["arguments"])
        assert call.result is not None and call.result.stringified
        assert call.result.is_error is (not expected["succeeded"])
        if expected.get("error_contains"):
            assert call.result.text is not None and expected["error_contains"] in call.result.text
    turns_with_calls = [t for t in truth["assistant_turns"] if t["tool_calls"]]
    groups = sorted({c.parallel_group for c in episode.calls})
    assert len(groups) == len(turns_with_calls)
    for group, expected_turn in zip(groups, turns_with_calls, strict=True):
        names = [c.name for c in episode.calls if c.parallel_group == group]
        assert names == [c["name"] for c in expected_turn["tool_calls"]]
    assistant = [m for m in episode.messages if m.role == "assistant"]
    if truth["final_answer"] is not None:
        assert assistant[-1].text == truth["final_answer"]
    assert episode.truncations == () and truth["truncations"] == []
    if truth["error_contains"]:
        assert ("crash", None) in [(e.kind, e.where) for e in episode.errors]
        assert facts.outcome == "error"
    else:
        assert "crash" not in [e.kind for e in episode.errors]
    scores = {s.scorer: s for s in facts.scores}
    assert scores["agentdojo:utility"].value is truth["verdict"]["utility"]
    security = scores["agentdojo:security"]
    assert security.value is truth["verdict"]["security"]
    if ident["injection_task_id"] is None:
        assert security.attack_succeeded is None
    else:
        assert security.attack_succeeded is truth["verdict"]["security"]
    assert "results_stringified" in episode.losses


def test_exfiltration_call_is_kept_verbatim() -> None:
    path = RUNS / "scripted-model/workspace/user_task_14/injecagent/injection_task_100.json"
    truth = json.loads(path.with_name("injection_task_100.expected.json").read_text())["episodes"][0]
    (episode,) = load_file(path).episodes
    sends = [c for c in episode.calls if c.name == "send_email"]
    assert [c.arguments.value for c in sends] == [c["arguments"] for c in truth["tool_calls"][1:]]
    assert isinstance(sends[0].arguments.value["recipients"], str)
    assert isinstance(sends[1].arguments.value["recipients"], list)
    assert sends[0].result is not None and sends[0].result.error_kind == "tool_error"
    assert any(s.attack_succeeded for s in episode.facts.scores)


def test_null_ids_are_matched_by_their_call_copy() -> None:
    path = RUNS / "scripted-model/workspace/user_task_14/injecagent/injection_task_4.json"
    (episode,) = load_file(path).episodes
    nulls = [c for c in episode.calls if c.call_id is None]
    assert len(nulls) == 2 and all(c.result is not None for c in nulls)


def test_path_context_fills_what_the_file_does_not_say() -> None:
    context = path_context(("runs", "pipe", "suite", "task_3", "none", "none.json"))
    assert context == (("pipeline", "pipe"), ("suite", "suite"), ("user_task", "task_3"))
    assert path_context(("a.json",)) == ()
    doc = {"suite_name": None, "messages": []}
    episode = FORMAT.load(_source(doc, context), DEFAULT_FORMAT_LIMITS).episodes[0]
    assert episode.facts.task == "task_3" and episode.facts.model == "pipe"
    assert ("episode.user_task", "agentdojo:path.user_task") in [(p.field, p.source) for p in episode.provenance]
    # The facts may come from the path; the episode id never does (docs/cli.md, "Episode ids").
    assert episode.id == "none/none/none/none/none"
    elsewhere = path_context(("other", "p2", "s2", "task_9", "none", "none.json"))
    assert FORMAT.load(_source(doc, elsewhere), DEFAULT_FORMAT_LIMITS).episodes[0].id == episode.id


def test_string_content_and_missing_verdicts() -> None:
    evidence = FORMAT.load(_source(
        {
            "suite_name": "s",
            "pipeline_name": "p",
            "messages": [
                {"role": "user", "content": "hello"},
                {"role": "assistant", "content": None, "tool_calls": [{"function": "f", "args": {"n": 1}, "id": None}]},
                {"role": "tool", "content": "out", "tool_call_id": None, "tool_call": {"function": "f", "args": {"n": 1}}, "error": None},
                {"role": "assistant", "content": "done", "tool_calls": None},
            ],
        }
    ), DEFAULT_FORMAT_LIMITS)
    (episode,) = evidence.episodes
    assert [m.text for m in episode.messages] == ["hello", None, "out", "done"]
    assert episode.calls[0].result is not None and episode.calls[0].result.text == "out"
    assert episode.facts.scores == () and episode.facts.tool_version is None
    assert [t.input_runs for t in episode.turns] == [((0, 1),), ((0, 3),)]
    # no verdict: the run stopped before AgentDojo scored it (TraceLogger saves every step)
    assert [(p.kind, p.where, p.status) for p in evidence.run_problems] == [("not_finished", "verdict", "started")]


@pytest.mark.parametrize("present", [{"utility": True, "security": False}, {"utility": True}, {}])
def test_a_run_without_both_verdicts_did_not_finish(present: dict[str, Any]) -> None:
    doc = json.loads(CASES[0].read_text())
    for key in ("utility", "security", "duration"):
        doc.pop(key, None)
    doc.update(present)
    problems = FORMAT.load(_source(doc), DEFAULT_FORMAT_LIMITS).run_problems
    finished = "security" in present
    assert [(p.kind, p.status) for p in problems] == ([] if finished else [("not_finished", "started")])


def test_sniff_is_structural() -> None:
    good = b'{\n    "suite_name": "x",\n    "pipeline_name": "y"'
    assert FORMAT.sniff(good, ".json")
    assert not FORMAT.sniff(b'{"messages": [], "suite_name": "x"}', ".json")
    assert not FORMAT.sniff(b'{"record_type": "header"}\n', ".jsonl")


@pytest.mark.parametrize(
    ("doc", "code"),
    [
        ({"suite_name": "s", "messages": {"role": CANARY}}, Code.AGENTDOJO_SCHEMA),
        ({"suite_name": "s", "messages": [{"role": 3}]}, Code.AGENTDOJO_SCHEMA),
        ({"suite_name": "s", "messages": [], "security": CANARY}, Code.AGENTDOJO_SCHEMA),
        ({"suite_name": "s", "messages": [{"role": "assistant", "content": [], "tool_calls": [{"function": "f", "args": CANARY}]}]}, Code.AGENTDOJO_SCHEMA),
        ({"suite_name": "s", "messages": [], "injections": {CANARY: 5}}, Code.AGENTDOJO_SCHEMA),
        ([CANARY], Code.AGENTDOJO_SCHEMA),
        (b'{"suite_name": "' + CANARY.encode() + b'", "messages": [', Code.AGENTDOJO_INVALID_JSON),
        (b"[" * 100 + b"]" * 100, Code.AGENTDOJO_TOO_DEEP),
        (b"  \n", Code.AGENTDOJO_EMPTY),
    ],
)
def test_schema_errors_are_agentdojo_codes_and_echo_nothing(doc: Any, code: Code) -> None:
    with pytest.raises(FormatError) as caught:
        _load(doc)
    assert caught.value.finding.code == code
    assert CANARY not in str(caught.value.finding.as_dict())


def test_bounds() -> None:
    doc = {"suite_name": "s", "messages": [{"role": "user", "content": "x"}] * 20}
    with pytest.raises(FormatError) as caught:
        _load(doc, FormatLimits(items_per_episode=10))
    assert caught.value.finding.code == Code.AGENTDOJO_TOO_MANY_ITEMS
    with pytest.raises(FormatError) as caught:
        _load(doc, FormatLimits(member_bytes=100))
    assert caught.value.finding.code == Code.AGENTDOJO_DOCUMENT_TOO_LARGE
