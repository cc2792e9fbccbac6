"""Inspect importer throughput: the real corpus logs, and a large .eval built from them.

Builds (in a temporary directory) an archive of N copies of the real corpus's samples under new
ids, zstd-compressed as Inspect writes them, and prints load time, samples/s, compressed MB/s and the
process's peak resident memory. Prints numbers; asserts nothing.

Usage: python bench/formats_inspect.py [COPIES]   (default 200 copies of 9 samples)
"""

from __future__ import annotations

import json
import resource
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "corpus" / "hostile" / "inspect"))

from generate import zip_archive  # noqa: E402  (the hostile generator's zstd zip writer)

from tracekit.formats.reading import load_file  # noqa: E402

REAL = ROOT / "corpus" / "third_party" / "inspect" / "tracekit_corpus.eval"


def _timed(path: Path) -> tuple[float, int, int]:
    """Seconds, episodes, and the process's peak resident set so far (bytes)."""
    start = time.perf_counter()
    evidence = load_file(path)
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return elapsed, len(evidence.episodes), peak


def main() -> int:
    copies = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    with zipfile.ZipFile(REAL) as archive:  # the stdlib lists names; members are read raw
        names = [n for n in archive.namelist() if n.startswith("samples/")]
    from tracekit.formats import inspect_eval
    from tracekit.formats.base import DEFAULT_FORMAT_LIMITS as LIMITS

    with REAL.open("rb") as handle:
        size = REAL.stat().st_size
        members = {m.name: m for m in inspect_eval.members(handle, size, LIMITS)}
        budget = inspect_eval.Budget(LIMITS)
        raw = {n: inspect_eval.read_member(handle, members[n], size, LIMITS, budget) for n in members}
    built: list[tuple[str, bytes]] = [("header.json", raw["header.json"])]
    for copy in range(copies):
        for name in names:
            sample = json.loads(raw[name])
            sample["id"] = f"{sample['id']}_{copy}"
            built.append((f"samples/{sample['id']}_epoch_1.json", json.dumps(sample).encode()))
    decompressed = sum(len(d) for _, d in built)
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "big.eval"
        big.write_bytes(zip_archive(built))
        for label, path in (("real corpus .eval", REAL), (f"{copies}x corpus .eval", big)):
            elapsed, episodes, peak = _timed(path)
            stored = path.stat().st_size
            print(
                f"{label:22s} {episodes:6d} episodes  {elapsed:7.3f} s  "
                f"{episodes / elapsed:8.0f} episodes/s  {stored / elapsed / 1e6:6.1f} MB/s stored  "
                f"peak RSS {peak / 1e6:6.1f} MB"
            )
        print(f"decompressed size of the large archive: {decompressed / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
