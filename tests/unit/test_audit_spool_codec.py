"""The audit spool's episode lines (tracekit/cli/audit_spool.py, EpisodeCodec): every episode
audit comes back equal to what went in, a pair shared by many episodes is encoded and decoded
once and handed back as the same objects, and what the codec keeps is bounded."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tracekit.cli import audit_spool
from tracekit.cli.audit_spool import EpisodeCodec, EpisodeLines, SpillFolder, SpooledEpisodes
from tracekit.judging.audit.model import AuditFinding, EpisodeAudit, FieldStatus
from tracekit.kernel.errors import Code, Severity

TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=12)  # tabs, newlines, quotes, any script
ROWS = st.tuples(*[st.builds(FieldStatus, TEXT, st.sampled_from(["present", "missing", "partial"]), TEXT, st.booleans())] * 2)
FINDINGS = st.lists(
    st.builds(AuditFinding, st.sampled_from(list(Code)[:5]), st.sampled_from(list(Severity)),
              st.none() | st.integers(0, 10**6), TEXT, st.none() | TEXT),
    max_size=3,
).map(tuple)


@given(st.lists(st.tuples(TEXT, ROWS, FINDINGS), min_size=1, max_size=8))
def test_every_episode_comes_back_equal(episodes: list[tuple[str, tuple[FieldStatus, ...], tuple[AuditFinding, ...]]]) -> None:
    writer = EpisodeCodec()
    lines = [writer.line(EpisodeAudit(ident, rows, found)) for ident, rows, found in episodes]
    reader = EpisodeCodec(writer.table)  # the table travels in the file's head
    for (ident, rows, found), line in zip(episodes, lines, strict=True):
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        assert reader.episode(line) == EpisodeAudit(ident, rows, found) == reader.episode(line[:-1])


def test_a_shared_pair_is_encoded_once_and_read_back_as_the_same_objects(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = (FieldStatus("tool_arguments", "present", "turns[0]", True),)
    found = (AuditFinding(Code.AUDIT_FIELD_MISSING, Severity.WARNING, None, "m", "w"),)
    writer = EpisodeCodec()
    encoded: list[object] = []
    encode = writer._encode
    monkeypatch.setattr(writer, "_encode", lambda value: encoded.append(value) or encode(value))
    lines = [writer.line(EpisodeAudit(f"e{i}", rows, found)) for i in range(50)]
    assert sum(1 for value in encoded if isinstance(value, tuple)) == 1  # the pair, once; then ids
    assert len(writer.table) == 1 and all(len(line) < 16 for line in lines)  # each names it
    reader = EpisodeCodec(writer.table)
    back = [reader.episode(line) for line in lines]
    assert [e.id for e in back] == [f"e{i}" for i in range(50)]
    assert all(e.completeness is back[0].completeness and e.findings is back[0].findings for e in back)


def test_what_the_codec_keeps_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(audit_spool, "KEPT_PAIRS", 4)
    monkeypatch.setattr(audit_spool, "TABLE_BYTES", 500)
    writer = EpisodeCodec()
    reader = EpisodeCodec()
    reader.table = writer.table  # the same list: it sees the table grow
    for i in range(40):
        audit = EpisodeAudit(f"e{i}", (FieldStatus(f"f{i}", "present", "w", False),), ())
        line = writer.line(audit)
        assert reader.episode(line) == audit
        assert len(writer._texts) <= 4 and len(reader._pairs) <= 4
    assert sum(len(text) for text in writer.table) <= 500
    assert b"\t[" in line  # past the table's bound: the pair in its line


def test_spooled_lines_in_any_order_read_back_through_the_file() -> None:
    folder = SpillFolder()
    try:
        lines = EpisodeLines(folder)
        audits = [EpisodeAudit(f"e{i}\t\u00e9", (FieldStatus("f", "present", str(i % 3), True),), ()) for i in range(300)]
        for audit in audits:
            lines.add(audit)
        order = list(reversed(range(300)))
        body, name = lines.finish(order, inline=0)  # past the inline budget: spilled and reordered
        assert body == b"" and name is not None
        back = list(SpooledEpisodes(300, None, 0, 0, name, EpisodeCodec(lines.pairs)))
        assert back == [audits[i] for i in order]
    finally:
        folder.remove()


def test_a_batch_of_rows_sends_the_rows_of_the_whole_reports(tmp_path: Path) -> None:
    """A batch asked for the campaign table's rows alone sends, for files of every kind
    (intact, tampered, without integrity data, unreadable, with several episodes, none found,
    a walked file that is no trace), the rows made from the whole reports, the same tally,
    and the block of its first trace."""
    from tests.cli.test_audit_memory import _eval
    from tests.helpers import CORPUS
    from tracekit.cli.audit_io import AuditJob, AuditOptions, audit_batch
    from tracekit.cli.audit_spool import AuditSpool
    from tracekit.report.audit_rows import file_line, file_row

    (tmp_path / "other.json").write_text('{"not": "a trace"}')
    paths = [tmp_path / "other.json", *sorted((CORPUS / "valid").glob("*.jsonl"))[:3],
             *sorted((CORPUS / "invalid").glob("*.jsonl"))[:6],
             *sorted((CORPUS / "hostile" / "inspect").glob("*.eval"))[:4], _eval(tmp_path / "five.eval", 5)]
    opts = AuditOptions(False, (), None)
    jobs = [AuditJob(str(p), str(p), p.suffix != ".json", opts) for p in paths]
    folder = SpillFolder()
    whole, rows = audit_batch(jobs, folder), audit_batch(jobs, folder, rows=True)
    spool = AuditSpool(folder)
    try:
        assert whole.lines[0] is None and rows.lines[0] is None and whole.first is None
        for line in whole.lines[1:]:
            assert line is not None
            spool.add(line)
        reports = list(spool.read())
        made = [file_row(report, len(report.episodes)) for report in reports]
        assert rows.lines[1:] == [("\n" + file_line(row)).encode() for row in made]
        assert rows.first == whole.lines[1] and rows.tally.summary() == whole.tally.summary()
        assert {row.exit_code for row in made} == {0, 1, 2} and max(row.episodes for row in made) > 1
    finally:
        spool.close()
        folder.remove()
