"""``show -f json`` of a file of many episodes is written in pieces, never as one string
(docs/threat-model.md, "The Inspect archive reader"), and the pieces are byte for byte the
document the whole report gives."""

from __future__ import annotations

from pathlib import Path

import msgspec

from tracekit import REPORT_VERSION
from tracekit.cli.trace_input import consume_evidence, opened
from tracekit.report.jsonout import dumps_struct
from tracekit.report.show_render import EvidenceShow, evidence_show, render_json

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "third_party" / "inspect"


def _report() -> EvidenceShow:
    path = str(next(p for p in sorted(CORPUS.rglob("*.eval"))))
    with opened(path) as source:
        return consume_evidence(path, source, evidence_show)


def test_many_episodes_are_rendered_one_at_a_time_as_the_whole_document() -> None:
    one = _report()
    many = msgspec.structs.replace(one, episodes=one.episodes * (20_000 // len(one.episodes) + 1))
    many = msgspec.structs.replace(many, episode_count=len(many.episodes))
    chunks = render_json(many)
    assert not isinstance(chunks, str)
    pieces = list(chunks)
    assert max(len(piece) for piece in pieces) < 256 * 1024  # a piece is about an episode, not the file
    assert "".join(pieces) == dumps_struct(many, report_version=REPORT_VERSION)


def test_a_file_without_episodes_renders_as_before() -> None:
    empty = msgspec.structs.replace(_report(), episodes=(), episode_count=0)
    assert "".join(render_json(empty)) == dumps_struct(empty, report_version=REPORT_VERSION)


def test_a_check_report_of_many_episodes_is_streamed_as_the_whole_document() -> None:
    from tracekit.judging.findings.judge import AssertionVerdict
    from tracekit.report.findings_render import EpisodeEntry, FindingsReport
    from tracekit.report.jsonout import struct_chunks

    verdicts = (AssertionVerdict("no_exfil", "fail", "evidence \u00e9 \"quoted\""),)
    entries = tuple(EpisodeEntry(f"s{i}_epoch_1", "fail", verdicts) for i in range(5_000))
    report = FindingsReport(REPORT_VERSION, "exfil", "inspect", True, entries, 2)
    pieces = list(struct_chunks(report, "episodes"))
    assert len(pieces) > 10 and max(len(p) for p in pieces) < 256 * 1024
    assert "".join(pieces) == dumps_struct(report)
    empty = msgspec.structs.replace(report, episodes=())
    assert "".join(struct_chunks(empty, "episodes")) == dumps_struct(empty)
