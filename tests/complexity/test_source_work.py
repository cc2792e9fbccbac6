"""Source hashing is bounded per source and per trace (docs/threat-model.md, "Work budget"):
counted in bytes read, never in seconds."""

from __future__ import annotations

from pathlib import Path

import pytest
from gen import base

from tests.complexity.support import Reads, count_reads, source
from tracekit.formats.agentguard.sources import check_source
from tracekit.formats.agentguard.verify import VerifyOptions, verify_file
from tracekit.formats.agentguard.writer import write_trace
from tracekit.kernel.errors import Code
from tracekit.kernel.limits import DEFAULT_BUDGET, Meter


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Reads:
    return count_reads(monkeypatch)


def test_sources_share_one_total_bound_per_trace(tmp_path: Path, reads: Reads) -> None:
    # Each source is under the per-source bound; together they pass the per-trace one: the
    # source that would pass it is reported and not read, and the bytes read stay under it.
    for name in ("a", "b", "c"):
        (tmp_path / name).write_bytes(b"x" * 1000)
    total = Meter(2500)
    statuses = [check_source(i, source(n), tmp_path, {}, total=total) for i, n in enumerate("abc", 1)]
    assert [s.status for s in statuses] == ["changed", "changed", "too_large"]
    assert statuses[2].code is Code.SOURCE_TOO_LARGE
    assert total.used == 2000 and reads.bytes == 2000


def test_verify_hashes_at_most_the_total_bound(tmp_path: Path, reads: Reads) -> None:
    sources = []
    for index in range(20):  # 20 x 16 MiB sparse files: 320 MiB, over the 256 MiB total
        name = f"s{index}.bin"
        with (tmp_path / name).open("wb") as handle:
            handle.truncate(DEFAULT_BUDGET.source_bytes)
        sources.append({"path": name, "required": True, "role": f"part{index}", "sha256": base.EMPTY_SHA})
    draft = base.clean_trace()
    draft.header["source_artifacts"] = sources
    (tmp_path / "trace.jsonl").write_bytes(write_trace(draft))
    report = verify_file(tmp_path / "trace.jsonl", VerifyOptions())
    assert reads.bytes <= DEFAULT_BUDGET.source_total_bytes
    kinds = [s.status for s in report.sources]
    assert kinds.count("changed") == DEFAULT_BUDGET.source_total_bytes // DEFAULT_BUDGET.source_bytes
    assert kinds[-1] == "too_large" and report.exit_code == 1
