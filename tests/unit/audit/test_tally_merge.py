"""A campaign's tally merged from batches (docs/cli.md, "Executors") is the tally of the whole
campaign counted in order, whatever the cut, and the spool blocks a batch sends back read back
as the reports the parent would have rendered."""

from __future__ import annotations

import msgspec
import pytest

from tests.helpers import CORPUS
from tracekit.cli.audit_io import AuditJob, AuditOptions, audit_batch, audit_file
from tracekit.cli.audit_spool import AuditSpool, SpillFolder
from tracekit.judging.audit.campaign import Tally, summarise
from tracekit.judging.audit.model import with_episodes

FILES = sorted(
    str(p) for folder in ("valid", "audit", "invalid", "third_party") for p in (CORPUS / folder).rglob("*")
    if p.suffix in (".jsonl", ".json", ".eval") and not p.name.endswith(".expected.json")
)[:80]


@pytest.fixture(scope="module")
def jobs() -> list[AuditJob]:
    opts = AuditOptions(False, (), None)
    return [AuditJob(path, path, False, opts) for path in FILES]


@pytest.mark.parametrize("size", [1, 3, 7, 80])
def test_merged_batches_are_the_campaign(jobs: list[AuditJob], size: int) -> None:
    reports = [with_episodes(r) for r in (audit_file(job) for job in jobs) if r is not None]
    merged = Tally()
    lines: list[bytes] = []
    for start in range(0, len(jobs), size):
        batch = audit_batch(jobs[start : start + size])
        merged.merge(batch.tally)
        lines += [line for line in batch.lines if line is not None]
    serial = Tally()
    for report in reports:
        serial.add(report)
    assert merged.summary(2) == serial.summary(2) == summarise(reports, 2)
    assert (merged.exit, merged.total) == (serial.exit, serial.total) == (serial.exit, len(reports))
    assert len({r.exit_code for r in reports}) > 1  # the cut crosses traces of every verdict
    spool = AuditSpool(SpillFolder())
    for line in lines:
        spool.add(line)
    try:
        read = [msgspec.structs.replace(r, episodes=tuple(r.episodes)) for r in spool.read()]
    finally:
        spool.close()
    assert read == reports
