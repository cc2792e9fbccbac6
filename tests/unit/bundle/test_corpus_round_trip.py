"""Round trip on every trace in the corpus that a format importer reads: seal, verify, and the
original's blob equal to the file's bytes; every format is covered."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

from tests.helpers import CORPUS
from tests.unit.bundle import frames as fr
from tests.unit.bundle.factory import key_pair
from tracekit.bundle.seal import seal
from tracekit.bundle.verify import verify_bundle
from tracekit.cli.bundle_io import load_finding
from tracekit.kernel.errors import TracekitError

ROOTS = [CORPUS / "third_party", CORPUS / "valid", CORPUS / "harness"]
FORMATS = {"agentguard", "harness", "inspect", "otel", "agentdojo", "garak"}


def _traces() -> list[Path]:
    found = []
    for root in ROOTS:
        for path in sorted(root.rglob("*")):
            if path.suffix in (".jsonl", ".json", ".eval") and "expected" not in path.name and path.stat().st_size < 4_000_000:
                found.append(path)
    return found


def test_every_importable_corpus_trace_round_trips() -> None:
    seed, public = key_pair()
    sealed: Counter[str] = Counter()
    for path in _traces():
        try:
            item = load_finding(str(path), None)
        except TracekitError:
            continue  # not a trace (a schema, an expected-results file)
        data = b"".join(seal([item], seed, False))
        report = verify_bundle(io.BytesIO(data), [public])
        assert report.exit_code == 0, (path.name, report.findings)
        digest = bytes.fromhex(report.originals[0][0])
        blobs = {p[:32]: fr.data_of(p) for k, p in fr.split(data) if k == b"B"}
        assert blobs[digest] == path.read_bytes(), path.name
        assert data == b"".join(seal([item], seed, False))
        sealed[item.evidence.format] += 1
    assert set(sealed) >= FORMATS, sealed
    assert sum(sealed.values()) >= 40, sealed
