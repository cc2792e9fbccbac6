"""audit of a file of many episodes holds none of them whole (docs/threat-model.md, "The Inspect
archive reader"): the worker encodes each episode's audit as it is made and spills a large
file's lines to the run's folder in the file's order, the rendered report is the one the whole
report gives, and a 20,000-episode file is audited in a bounded peak."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import msgspec
import pytest

from tests.cli.test_resources import _LAUNCHER  # peak RSS of tracekit as its own child
from tracekit.cli.audit_io import AuditJob, AuditOptions, audit_batch, audit_file
from tracekit.cli.audit_spool import INLINE, AuditSpool, SpillFolder
from tracekit.judging.audit.campaign import summarise
from tracekit.judging.audit.model import AuditFinding, AuditReport, with_episodes
from tracekit.kernel.errors import Code, Severity
from tracekit.report.audit_render import (
    FINDING_HEADERS,
    FINDING_WIDTHS,
    ROWS_AT_ONCE,
    _finding_table,
    _findings,
    json_chunks,
    markdown_chunks,
)
from tracekit.report.text import md_table, table

TRACEKIT = str(Path(sys.executable).parent / "tracekit")
HEADER = {"version": 2, "status": "success", "eval": {"task": "t", "model": "m/m", "packages": {"inspect_ai": "0.3.0"}}}


def _eval(path: Path, samples: int) -> Path:
    """An Inspect ``.eval`` of ``samples`` short samples, its members in the reverse of the
    file's episode order (so the episodes must be put back in order)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps(HEADER))
        for number in reversed(range(samples)):
            messages = [{"role": "user", "content": "q"}, {"role": "assistant", "content": f"a{number % 3}"}]
            archive.writestr(f"samples/{number}_epoch_1.json", json.dumps({"id": number, "epoch": 1, "messages": messages}))
    path.write_bytes(out.getvalue())
    return path


def test_a_large_file_is_spilled_in_order_and_renders_as_the_whole_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tracekit.cli import audit_spool

    # Episodes that share a pair name it in the file's table (a few bytes a line): with no room
    # in the table, every line carries its pair, as episodes whose pairs all differ would.
    monkeypatch.setattr(audit_spool, "TABLE_BYTES", 0)
    source = _eval(tmp_path / "many.eval", 400)
    job = AuditJob("many.eval", str(source), True, AuditOptions(False, (), None))
    folder = SpillFolder()
    folder.make()
    spool = AuditSpool(folder)
    try:
        batch = audit_batch([job], folder)
        (line,) = batch.lines
        assert line is not None and line.count(b"\n") == 0  # the head alone: the lines were spilled
        spilled = os.listdir(str(folder.path))
        assert len(spilled) == 1  # the reordered file only; the one in arrival order is gone
        assert os.path.getsize(os.path.join(str(folder.path), spilled[0])) > INLINE
        spool.add(line)
        whole = with_episodes(audit_file(job))  # type: ignore[arg-type]
        assert [e.id for e in whole.episodes][:3] == ["0_epoch_1", "1_epoch_1", "2_epoch_1"]
        (read,) = spool.read()
        assert len(read.episodes) == 400 and list(read.episodes) == list(whole.episodes)
        assert read.episodes[-1] == whole.episodes[-1] and read.episodes[2:5] == whole.episodes[2:5]
        assert msgspec.structs.replace(read, episodes=()) == msgspec.structs.replace(whole, episodes=())
        assert batch.tally.summary() == summarise([whole])
        streamed = "".join(json_chunks(spool.read(), batch.tally.summary(), read.exit_code))
        assert streamed == "".join(json_chunks([whole], summarise([whole]), whole.exit_code))
    finally:
        spool.close()
        folder.remove()
    assert folder.path is None and not any(Path(tmp_path).glob("tracekit-audit-*"))


def test_episodes_sharing_a_pair_name_it_in_the_table(tmp_path: Path) -> None:
    source = _eval(tmp_path / "many.eval", 400)
    batch = audit_batch([AuditJob("many.eval", str(source), True, AuditOptions(False, (), None))], SpillFolder())
    (line,) = batch.lines
    assert line is not None and line.count(b"\n") == 400 and len(line) < 40 * 400 + 20_000
    spool = AuditSpool(SpillFolder())
    try:
        spool.add(line)
        (read,) = spool.read()
        whole = with_episodes(audit_file(AuditJob("many.eval", str(source), True, AuditOptions(False, (), None))))  # type: ignore[arg-type]
        assert list(read.episodes) == list(whole.episodes)
    finally:
        spool.close()


def test_a_small_file_travels_inline_and_makes_no_folder(tmp_path: Path) -> None:
    source = _eval(tmp_path / "few.eval", 5)
    folder = SpillFolder()
    batch = audit_batch([AuditJob("few.eval", str(source), True, AuditOptions(False, (), None))], folder)
    (line,) = batch.lines
    assert line is not None and line.count(b"\n") == 5  # the head, then five episode lines
    assert folder.path is None




def test_twenty_thousand_episodes_are_audited_in_bounded_memory(tmp_path: Path) -> None:
    """Before the episodes were spooled one at a time this peaked at ~340 MiB (one report of
    ~190 MB of JSON, held several times over); now ~45 MiB, whatever the episode count."""
    source = _eval(tmp_path / "many.eval", 20_000)
    result = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, TRACEKIT, "audit", str(source), "-q", "-o", str(tmp_path / "out.txt")],
        capture_output=True,
        check=False,
    )
    stderr, _, peak = result.stderr.rpartition(b"\nmaxrss=")
    assert result.returncode == 1, stderr  # every episode lacks fields needed to rerun
    assert b"20000 episodes" in (tmp_path / "out.txt").read_bytes()
    assert int(peak) < 120 * 1024, int(peak)


def test_a_long_findings_table_is_laid_out_as_one_table() -> None:
    """A file's findings table is laid out a part at a time (audit_render.ROWS_AT_ONCE): the
    same bytes as one table, the widest cells (and wrapped ones) in any part."""
    part = ROWS_AT_ONCE

    def one(i: int) -> AuditFinding:  # the widest code, message and location each in another part
        code = Code.EVIDENCE_DANGLING_CALL_ID if part <= i < 2 * part else Code.AUDIT_FIELD_MISSING
        words = "long " * (i % 23 if i >= 2 * part else i % 3)
        where = None if i % 11 == 0 else f"episodes[{i}]" + " (x)" * (i % 13 if i < part else 1)
        return AuditFinding(code, Severity.ERROR if i % 5 else Severity.NOTICE, i if i % 7 == 0 else None,
                            "A message " + words, where)

    findings = tuple(one(i) for i in range(3 * part + 17))
    rules = {table(_findings(findings[s : s + part]), FINDING_HEADERS, widths=FINDING_WIDTHS).split("\n")[1]
             for s in range(0, len(findings), part)}
    assert len(rules) >= 3  # the parts laid out alone have other widths
    report = AuditReport("f.eval", "inspect", 1, True, None, False, None, None, None, (), None, None, findings, ())
    whole = table(_findings(findings), FINDING_HEADERS, widths=FINDING_WIDTHS)
    assert "".join(_finding_table(findings)) == whole
    assert "".join(_finding_table(findings[:40])) == table(_findings(findings[:40]), FINDING_HEADERS, widths=FINDING_WIDTHS)
    markdown = "".join(markdown_chunks([report], summarise([report])))
    assert "\n".join(["### Findings", "", *md_table(FINDING_HEADERS, _findings(findings)), "", ""]) in markdown
