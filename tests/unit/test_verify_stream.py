"""A campaign's verify report rendered from a spool in chunks (tracekit/report/verify_stream.py)
is byte for byte the report of the whole list, whatever the chunk size."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from tests.helpers import CORPUS
from tracekit.cli.verify_job import VerifyJob, verify_job
from tracekit.report import verify_stream
from tracekit.report.skipped import SkippedFile
from tracekit.report.verify_render import (
    VerifyTrace,
    render_json,
    render_table,
    summary_line,
    summary_text,
)
from tracekit.report.verify_stream import VerifyTally, json_chunks, table_chunks


@pytest.fixture(scope="module")
def traces() -> list[VerifyTrace]:
    files = sorted(p for folder in ("valid", "invalid", "noncanonical", "sources") for p in (CORPUS / folder).rglob("*.jsonl"))
    found = [verify_job(VerifyJob(str(p), str(p), False, False, ())) for p in files]
    out = [t for t in found if t is not None]
    # paths of every length and a wide character, so that columns change width between chunks
    wide = "\u754c"
    return [msgspec.structs.replace(t, path=f"{'d/' * (n % 7)}{wide if n % 5 == 0 else ''}{Path(t.path).name}")
            for n, t in enumerate(out)]


@pytest.mark.parametrize("rows", [1, 2, 5, 1000])
def test_table_in_chunks_is_the_whole_table(traces: list[VerifyTrace], rows: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(verify_stream, "CHUNK_ROWS", rows)
    tally = VerifyTally()
    for trace in traces:
        tally.add(trace)
    assert tally.details > rows or rows == 1000  # the second part is chunked too
    assert "".join(table_chunks(lambda: iter(traces), tally)) == render_table(traces)


def test_json_and_summary_from_a_tally(traces: list[VerifyTrace]) -> None:
    tally = VerifyTally()
    for trace in traces:
        tally.add(trace)
    skipped = [SkippedFile("x.json", "format.unknown")]
    assert "".join(json_chunks(iter(traces), tally, skipped)) == render_json(traces, skipped)
    assert "".join(json_chunks(iter(traces), tally)) == render_json(traces)
    assert summary_text(tally.summary()) == summary_line(traces)
    assert tally.exit_code == max(t.exit_code for t in traces) == 2
