"""``bundle prove`` keeps no record of the finding it proves (docs/threat-model.md, "seal"): its
record frames go to a spool the caller owns, and the blob pass stops at the first record. Before,
a campaign of the 99,999-episode `.eval` (800,000 records) took 242 MiB to prove; now 76 MiB."""

from __future__ import annotations

import hashlib
import io
import tempfile
import tracemalloc

from tests.unit.bundle.factory import check, sealed
from tracekit.bundle.campaign import prove
from tracekit.bundle.limits import DEFAULT_BUNDLE_LIMITS


def test_prove_spools_the_findings_records_and_gives_the_same_bundle() -> None:
    data = sealed(turns=6000, campaign=2)  # each finding 18,000 records, 8 MB
    report = check(data)
    held = b"".join(prove(io.BytesIO(data), DEFAULT_BUNDLE_LIMITS, 1, report.finding_roots))
    out = hashlib.sha256()
    tracemalloc.start()
    try:
        with tempfile.TemporaryFile() as spool:
            for chunk in prove(io.BytesIO(data), DEFAULT_BUNDLE_LIMITS, 1, report.finding_roots, spool):
                out.update(chunk)
            records = spool.seek(0, 2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out.digest() == hashlib.sha256(held).digest()
    assert check(held).exit_code == 0
    # Held, the records alone were `records` bytes; what stays is the set of the digests they
    # reference (30,000 here, about 4 MB) and one blob read whole (at most 1 MiB) at a time.
    assert records > 6_000_000 and peak < records, (records, peak)
