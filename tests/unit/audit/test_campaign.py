"""The campaign summary: rerunnable counts, missing fields, distinct demonstrations."""

from __future__ import annotations

import json
from typing import Any

from gen import audit as audit_gen
from gen import base

from tests.helpers import CORPUS
from tests.unit.audit.support import AUDIT, audit_draft, audit_file, audit_harness_value
from tracekit.audit import summarise, worst_exit
from tracekit.audit.campaign import SHOWN_DIGEST
from tracekit.report.audit_render import render_json, render_markdown, render_table


def _corpus_traces() -> list[dict[str, Any]]:
    paths = sorted(p for p in AUDIT.glob("*/*.json*") if p.name != "expected.json")
    return [audit_file(p).to_dict() for p in paths]


def test_summary_over_the_audit_corpus() -> None:
    traces = _corpus_traces()
    summary = summarise(traces, skipped=2)
    assert summary["total"] == len(traces) == 15 + 11
    assert summary["skipped_non_trace_files"] == 2
    assert summary["formats"] == {"agentguard": 15, "harness": 11}
    assert summary["intact"] == 15 and summary["no_integrity_mechanism"] == 11
    assert summary["consistent"] == 1  # only the control
    assert summary["exit_codes"] == {"0": 2, "1": 24, "2": 0}
    rerunnable = {t["path"] for t in traces if t["rerunnable"]}
    assert any(p.endswith("complete.json") for p in rerunnable)
    assert any(p.endswith("consistent__clean_run.jsonl") for p in rerunnable)
    assert summary["rerunnable"] == len(rerunnable)
    assert summary["traces_by_finding_code"]["audit.result_truncated"] == 3
    gaps = summary["fields_missing_most"]
    assert gaps == sorted(
        gaps,
        key=lambda g: (-(g["missing"] + g["partial"]), -g["not_carried"], g["format"], g["field"]),
    )
    assert worst_exit(traces) == 1


def test_forty_hits_from_one_payload_are_one_demonstration() -> None:
    hit = audit_harness_value(audit_gen.complete()).to_dict()
    copies = [dict(hit, path=f"attempt-{n}.json") for n in range(40)]
    other = audit_gen.complete()
    other["tool_calls"][1]["arguments"] = {"to": "someone@evil.example", "subject": "x"}
    summary = summarise([*copies, audit_harness_value(other).to_dict()])
    demo = summary["demonstrations"]
    assert demo["traces_recording_a_hit"] == 41
    assert demo["distinct_demonstrations"] == 2
    assert demo["repeated"] == [{"digest": str(hit["demonstration"])[:SHOWN_DIGEST], "traces": 40}]


def test_agentguard_pass_is_not_a_hit() -> None:
    clean = audit_draft(base.clean_trace(name="pass")).to_dict()
    assert summarise([clean])["demonstrations"]["traces_recording_a_hit"] == 0


def test_renderers_are_byte_stable_and_say_integrity_is_not_authenticity() -> None:
    traces = _corpus_traces()
    summary = summarise(traces)
    document = json.loads(render_json(traces, summary))
    assert document["report_version"] == 1 and document["exit_code"] == 1
    assert set(document["traces"][0]) >= {
        "path",
        "format",
        "exit_code",
        "intact",
        "replay",
        "findings",
        "completeness",
    }
    assert set(document["traces"][0]["findings"][0]) >= {"code", "severity", "message", "line"}
    assert render_json(traces, summary) == render_json(traces, summary)
    table = render_table(traces, summary)
    assert "campaign summary" in table and "Integrity is not authenticity" in table
    markdown = render_markdown(traces, summary)
    assert markdown.startswith("# tracekit audit") and "## Campaign summary" in markdown
    assert "| field | status | needed to rerun | where |" in markdown


def test_unreadable_traces_count_in_the_summary() -> None:
    broken = audit_file(CORPUS / "invalid" / "chain__swapped_events.jsonl").to_dict()
    summary = summarise([broken])
    assert summary["not_intact"] == 1 and summary["exit_codes"]["2"] == 1
