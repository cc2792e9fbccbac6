"""The campaign summary: rerunnable counts, missing fields, distinct demonstrations; typed
reports and their JSON derived with msgspec."""

from __future__ import annotations

import json
import pickle
import tracemalloc

import msgspec
from gen import audit as audit_gen
from gen import base

from tests.helpers import CORPUS
from tests.unit.audit.support import AUDIT, audit_draft, audit_file, audit_harness_value
from tracekit.judging.audit import AuditReport, Tally, summarise, with_episodes
from tracekit.judging.audit.campaign import SHOWN_DIGEST
from tracekit.kernel.errors import worst
from tracekit.report.audit_render import render_json, render_markdown, render_table


def _corpus_traces() -> list[AuditReport]:
    paths = sorted(p for p in AUDIT.glob("*/*.json*") if p.name != "expected.json")
    return [audit_file(p) for p in paths]


def test_summary_over_the_audit_corpus() -> None:
    traces = _corpus_traces()
    summary = summarise(traces, skipped=2)
    assert summary.total == len(traces) == 15 + 11
    assert summary.skipped_non_trace_files == 2
    assert summary.formats == {"agentguard": 15, "harness": 11}
    assert summary.intact == 15 and summary.no_integrity_mechanism == 11
    assert summary.consistent == 1  # only the control
    assert msgspec.to_builtins(summary.exit_codes) == {"0": 2, "1": 24, "2": 0}
    rerunnable = {t.path for t in traces if t.rerunnable}
    assert any(p.endswith("complete.json") for p in rerunnable)
    assert any(p.endswith("consistent__clean_run.jsonl") for p in rerunnable)
    assert summary.rerunnable == len(rerunnable)
    assert summary.not_rerunnable == len(traces) - len(rerunnable)
    assert summary.traces_by_finding_code["audit.result_truncated"] == 3
    gaps = summary.fields_missing_most
    assert gaps and list(gaps) == sorted(
        gaps, key=lambda g: (-(g.missing + g.partial), -g.not_carried, g.format, g.field)
    )
    assert worst(*(t.exit_code for t in traces)) == 1


def test_the_tally_counts_as_reports_arrive_and_holds_no_report() -> None:
    """Streaming: the tally's summary equals the summary over the whole list, and its memory
    does not grow with findings or messages (it keeps counters and digests)."""
    traces = [with_episodes(t) for t in _corpus_traces()]
    tally = Tally()
    for trace in traces:
        tally.add(trace)
    assert tally.summary(3) == summarise(traces, 3)
    assert tally.exit == 1 and tally.total == len(traces)
    assert tally.summary().episodes == sum(len(t.episodes) for t in traces) == len(traces)
    held = pickle.dumps(tally.__dict__)
    assert b"Evidence field" not in held and b"is missing" not in held


def test_tally_memory_per_trace_is_small() -> None:
    """Each further trace without a hit or recorded finding costs the tally no memory."""
    clean = with_episodes(audit_file(AUDIT / "agentguard" / "consistent__clean_run.jsonl"))
    copies = [msgspec.structs.replace(clean, path=f"t{n}.jsonl") for n in range(2000)]
    tally = Tally()
    tally.add(copies[0])
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for report in copies[1:]:
        tally.add(report)
    grown = sum(s.size_diff for s in tracemalloc.take_snapshot().compare_to(before, "filename"))
    tracemalloc.stop()
    assert tally.total == 2000
    assert grown < 64 * 1024, grown  # about 32 bytes a trace at most; 6.5 KB before the tally


def test_forty_hits_from_one_payload_are_one_demonstration() -> None:
    hit = audit_harness_value(audit_gen.complete())
    copies = [msgspec.structs.replace(hit, path=f"attempt-{n}.json") for n in range(40)]
    other = audit_gen.complete()
    other["tool_calls"][1]["arguments"] = {"to": "someone@evil.example", "subject": "x"}
    demo = summarise([*copies, audit_harness_value(other)]).demonstrations
    assert demo.traces_recording_a_hit == 41
    assert demo.distinct_demonstrations == 2
    assert hit.demonstration is not None
    assert [(r.digest, r.traces) for r in demo.repeated] == [(hit.demonstration[:SHOWN_DIGEST], 40)]


def test_agentguard_pass_is_not_a_hit() -> None:
    clean = audit_draft(base.clean_trace(name="pass"))
    assert summarise([clean]).demonstrations.traces_recording_a_hit == 0


def test_reports_survive_json_and_pickle_unchanged() -> None:
    """Workers return Structs (pickled) and the command spools them as JSON lines: both round
    trips give the same report, and the JSON has no key that is not a plain name."""
    for trace in _corpus_traces():
        assert pickle.loads(pickle.dumps(trace)) == trace
        assert msgspec.json.decode(msgspec.json.encode(trace), type=AuditReport) == trace

    def keys(value: object) -> set[str]:
        if isinstance(value, dict):
            return set(value) | {k for v in value.values() for k in keys(v)}
        if isinstance(value, list):
            return {k for v in value for k in keys(v)}
        return set()

    summary = summarise(_corpus_traces())
    document = json.loads(render_json(_corpus_traces(), summary))
    assert not {k for k in keys(document) if " " in k}
    assert isinstance(document["summary"]["total"], int)


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
    broken = audit_file(CORPUS / "invalid" / "chain__swapped_events.jsonl")
    summary = summarise([broken])
    assert summary.not_intact == 1 and summary.exit_codes.error == 1
