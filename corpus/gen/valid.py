"""Valid traces: v1, v2, v3 with and without containment, offsets, diffs, guards, sources."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from gen import base
from gen.case import Case
from tracekit.formats.agentguard.writer import DraftEvent, write_trace

INTACT = {"verify": {"exit": 0, "code": None}}


def _v1() -> bytes:
    draft = base.clean_trace(1, "v1-run")
    return write_trace(draft)


def _with_guards() -> bytes:
    draft = base.clean_trace(2, "guarded")
    guard = DraftEvent(
        "guard_summary",
        {
            "files_observed": 14,
            "kill_required": False,
            "mode": "monitor",
            "monitor_duration_seconds": 3.25,
            "scan_count": 12,
            "terminated_agent": False,
            "triggered": False,
            "violations": [],
            "configured_ignore_patterns": [".git/**"],
            "live_lines_added": 6,
            "live_lines_deleted": 2,
            "line_measurement_complete": True,
            "line_measurement_skipped_files": 0,
            "line_measurement_error": None,
            "watcher_mode": "polling",
            "watcher_events_observed": 2,
            "watcher_events": [
                {"event_type": "modified", "observed_at_sequence": 1, "path": "src/widget.py",
                 "source": "polling"},
            ],
            "scan_complete": True,
            "incomplete_scan_count": 0,
            "scan_error": None,
        },
    )
    cmd_guard = DraftEvent(
        "command_guard_summary",
        {
            "event_file": None,
            "events_observed": 2,
            "kill_required": False,
            "mode": "enforce",
            "monitor_duration_seconds": 3.0,
            "scan_count": 6,
            "terminated_agent": False,
            "triggered": False,
            "violations": [],
        },
    )
    draft.events[3:3] = [guard, cmd_guard]
    return write_trace(draft)


def _offsets_and_diff() -> bytes:
    draft = base.clean_trace(2, "timed")
    for index, event in enumerate(draft.events):
        event.relative_offset_seconds = round(index * 0.125 + 1, 6)
    diff = "--- a/src/widget.py\n+++ b/src/widget.py\n@@ -1,2 +1,4 @@\n-return 1\n+return 2 \u00e9\u20ac\n"
    draft.events[3] = base.file_change("src/widget.py", added=4, deleted=2, diff=diff)
    draft.events[3].relative_offset_seconds = 1.375
    return write_trace(draft)


REPORT = b'{"result": "PASS", "score": 100}\n'
MANIFEST = b"{}\n"


def _sourced(name: str) -> bytes:
    draft = base.clean_trace(2, f"sourced-{name}")
    draft.header["source_artifacts"] = [
        {"path": "reports/report.json", "required": True, "role": "report",
         "sha256": hashlib.sha256(REPORT).hexdigest()},
        {"path": "manifest.json", "required": False, "role": "manifest",
         "sha256": hashlib.sha256(MANIFEST).hexdigest()},
    ]
    return write_trace(draft)


def _source_cases() -> Iterator[Case]:
    both = {"reports/report.json": REPORT, "manifest.json": MANIFEST}
    yield Case("sources/match", "trace.jsonl", _sourced("match"),
               {"verify": {"exit": 0, "code": "source.match"}},
               "Both recorded sources present and unchanged.", extra_files=both)
    yield Case("sources/changed", "trace.jsonl", _sourced("changed"),
               {"verify": {"exit": 1, "code": "source.changed"}},
               "The report changed after export.",
               extra_files={"reports/report.json": b'{"result": "FAIL"}\n', "manifest.json": MANIFEST})
    yield Case("sources/optional_missing", "trace.jsonl", _sourced("optional"),
               {"verify": {"exit": 0, "code": "source.unavailable"},
                "verify --strict-sources": {"exit": 1, "code": "source.unavailable"}},
               "The optional manifest is gone: a notice, or exit 1 with --strict-sources.",
               extra_files={"reports/report.json": REPORT})
    yield Case("sources/required_missing", "trace.jsonl", _sourced("required"),
               {"verify": {"exit": 1, "code": "source.required_unavailable"}},
               "The required report is gone: upstream ignores 'required', tracekit exits 1.",
               extra_files={"manifest.json": MANIFEST})


def cases() -> Iterator[Case]:
    yield Case("valid", "v1__minimal_run.jsonl", _v1(), INTACT, "Schema v1: no policy snapshot.")
    yield Case("valid", "v2__clean_run.jsonl", write_trace(base.clean_trace(2, "clean")), INTACT,
               "Schema v2: every check passes.")
    yield Case("valid", "v3__no_containment.jsonl", write_trace(base.clean_trace(3, "v3-plain")),
               INTACT, "Schema v3 without a containment_evidence event.")
    yield Case("valid", "v3__with_containment.jsonl",
               write_trace(base.clean_trace(3, "v3-contained", with_containment=True)), INTACT,
               "Schema v3 with containment_evidence directly after execution_started.")
    yield Case("valid", "v2__guard_summaries.jsonl", _with_guards(), INTACT,
               "Filesystem and command guard summaries with every optional group.")
    yield Case("valid", "v2__offsets_and_diff.jsonl", _offsets_and_diff(), INTACT,
               "Relative offsets and an included unified diff with non-ASCII text.")
    yield from _source_cases()
