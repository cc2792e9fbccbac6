"""Study id, streaming aggregation and the streamed JSON document."""

from __future__ import annotations

import hashlib
import json

import msgspec
import pytest

from tests.helpers import CORPUS
from tests.unit.metamorphic.support import clean_bytes, sweep
from tracekit.judging.metamorphic import (
    NAMES,
    CaseResult,
    Klass,
    SkippedSource,
    StudyConfig,
    StudyReport,
    Tally,
    run_study,
    study_id,
    study_path,
)
from tracekit.judging.metamorphic.cases import SOURCE_TRANSFORM, TraceTask, run_trace
from tracekit.judging.metamorphic.cases import StudyConfig as Config
from tracekit.judging.metamorphic.report import FailedCase
from tracekit.report import metamorphic_render as render
from tracekit.report.jsonout import dumps


def test_study_id_is_upstreams_formula() -> None:
    paths = ["runs/a/trace.jsonl", "runs/b/trace.jsonl"]
    material = "|".join([*paths, "add_test_file", "timestamp_variation", "3"])
    expected = "metamorphic-" + hashlib.sha256(material.encode()).hexdigest()[:16]
    assert study_id(paths, ["add_test_file", "timestamp_variation"], 3) == expected
    assert study_id(paths, ["add_test_file", "timestamp_variation"], 3, seed=0) == expected


def test_study_id_depends_on_every_input() -> None:
    base = study_id(["a.jsonl"], ["add_test_file"], 1)
    assert len({
        base,
        study_id(["b.jsonl"], ["add_test_file"], 1),
        study_id(["a.jsonl"], ["change_test_exit"], 1),
        study_id(["a.jsonl"], ["add_test_file"], 2),
        study_id(["a.jsonl"], ["add_test_file"], 1, seed=9),
    }) == 5


@pytest.mark.parametrize(
    ("raw", "spelled"),
    [("./runs//a.jsonl", "runs/a.jsonl"), ("runs/x/", "runs/x"), ("a/../b.jsonl", "a/../b.jsonl")],
)
def test_study_paths_are_normalised_lexically(raw: str, spelled: str) -> None:
    assert study_path(raw) == spelled


def test_tally_counts_classes_transforms_and_skipped_sources() -> None:
    config = StudyConfig(transforms=NAMES, trials=2)
    tally = Tally(config)
    swept = sweep(clean_bytes(), NAMES, trials=2)
    tally.add(swept)
    v1 = CORPUS / "valid" / "v1__minimal_run.jsonl"
    tally.add(run_trace(TraceTask(2, "v1.jsonl", str(v1), config)))
    head = json.loads(msgspec.json.encode(tally.head("metamorphic-0123456789abcdef")))
    assert head["sources"] == {
        "total": 2, "swept": 1, "skipped": 1,
        "skipped_by_cause": [{"code": "metamorphic.source_not_replayable",
                              "cause": "replay.not_replayable_v1", "count": 1}],
    }
    assert list(head["summary"]) == ["preserving", "changing", "invalid"]
    total = sum(c["total"] + c["not_applicable"] for c in head["summary"].values())
    assert total == len(swept.cases) == 2 * len(NAMES)
    assert tally.failed == 0 and tally.total == sum(c["total"] for c in head["summary"].values())
    assert [t["name"] for t in head["transforms"]] == list(NAMES)
    assert set(head["transforms"][0]) == {"name", "class", "relation", "upstream", "passed", "total",
                                          "not_applicable"}
    assert "work_budget_exceeded" not in head and "scenario" not in head


def test_require_replayable_turns_a_skipped_source_into_upstreams_failed_case() -> None:
    config = Config(transforms=("add_test_file",), require_replayable=True)
    path = CORPUS / "third_party" / "agentguard" / "safe-trace-v2.jsonl"
    result = run_trace(TraceTask(1, "fixture.jsonl", str(path), config))
    assert result.skipped is not None and result.skipped.cause == "replay.score_weights"
    (case,) = result.cases
    assert (case.transform, case.klass, case.trial, case.passed) == (SOURCE_TRANSFORM, "invalid", 0, False)
    tally = Tally(config)
    tally.add(result)
    assert tally.failed == 1 and tally.head("x").transforms[-1].name == SOURCE_TRANSFORM


def test_an_unreadable_source_is_skipped_not_raised(tmp_path) -> None:  # type: ignore[no-untyped-def]
    config = Config(transforms=("add_test_file",))
    result = run_trace(TraceTask(1, "gone.jsonl", str(tmp_path / "gone.jsonl"), config))
    assert result.skipped is not None
    assert (result.skipped.code, result.skipped.cause) == ("metamorphic.source_invalid", "format.unreadable")


@pytest.mark.parametrize("cases", [0, 1, 3])
@pytest.mark.parametrize("skipped", [0, 2])
def test_streamed_json_equals_the_whole_document(cases: int, skipped: int) -> None:
    head = Tally(StudyConfig(transforms=("add_test_file",))).head("metamorphic-0000000000000000")
    case_structs = [
        CaseResult(f"t{i}\u00e9.jsonl", "add_test_file", Klass.CHANGING, i, i % 2 == 0, "test-tampering fails")
        for i in range(cases)
    ]
    case_list = [
        {"trace": f"t{i}\u00e9.jsonl", "transform": "add_test_file", "class": "changing",
         "trial": i, "passed": i % 2 == 0, "reason": "test-tampering fails"}
        for i in range(cases)
    ]
    skipped_list = [{"trace": f"s{i}", "code": "c", "cause": "d"} for i in range(skipped)]
    skipped_structs = [SkippedSource(f"s{i}", "c", "d") for i in range(skipped)]
    streamed = "".join(render.json_chunks(head, iter(case_structs), iter(skipped_structs)))
    document = {**msgspec.to_builtins(head), "cases": case_list, "skipped_sources": skipped_list}
    assert streamed == dumps(document)
    assert json.loads(streamed)["cases"] == case_list


def test_run_study_streams_in_path_order() -> None:
    paths = [str(CORPUS / "valid" / name) for name in ("v3__no_containment.jsonl", "v2__clean_run.jsonl")]
    results = list(run_study(paths, StudyConfig(transforms=("change_test_exit",))))
    assert [r.index for r in results] == [1, 2]
    assert [r.trace for r in results] == [study_path(p) for p in paths]


def test_renderers_show_failures_and_escape_paths() -> None:
    tally = Tally(StudyConfig(transforms=("add_test_file",)))
    report = tally.report("metamorphic-0000000000000000")
    failed = FailedCase("a\x1b[31m|b.jsonl", "add_test_file", 1, "test-tampering did not fail")
    report = StudyReport(report.head, (failed,), 1)
    table = render.render_table(report)
    markdown = render.render_markdown(report)
    for text in (table, markdown):
        assert "\x1b" not in text and "test-tampering did not fail" in text
    assert "a\\\\x1b[31m\\|b.jsonl" in markdown
    assert render.summary_line(report).startswith("tracekit metamorphic: 0/0 relation(s) hold")
