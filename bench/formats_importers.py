"""OTel, AgentDojo and garak importer throughput on files built from the real corpus logs.

Builds (in a temporary directory) an OTLP/JSON file of N copies of the real span lines with fresh
trace and span ids, a garak report of N copies of the real attempts with fresh uuids, and loads
every real AgentDojo file N times; prints seconds, episodes, MB/s and the process's peak resident
memory. Prints numbers; asserts nothing.

Usage: python bench/formats_importers.py [COPIES]   (default 200)
"""

from __future__ import annotations

import re
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tracekit.formats.reading import load_file  # noqa: E402

THIRD = ROOT / "corpus" / "third_party"
_HEX_ID = re.compile(rb'"(traceId|spanId|parentSpanId)":"([0-9a-f]+)"')
_UUID = re.compile(rb'"uuid": "([0-9a-f-]{36})"')


def _renumber_otel(raw: bytes, copy: int) -> bytes:
    def fresh(match: re.Match[bytes]) -> bytes:
        value = match[2]
        prefix = f"{copy:08x}".encode()
        return b'"' + match[1] + b'":"' + prefix + value[len(prefix) :] + b'"'

    return _HEX_ID.sub(fresh, raw)


def _renumber_garak(raw: bytes, copy: int) -> bytes:
    return _UUID.sub(lambda m: b'"uuid": "' + f"{copy:08x}".encode() + m[1][8:] + b'"', raw)


def _report(label: str, path: Path) -> None:
    size = path.stat().st_size
    start = time.perf_counter()
    evidence = load_file(path)
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{label:34s} {size / 1e6:8.1f} MB {elapsed:7.2f} s {len(evidence.episodes):7d} episodes "
        f"{size / 1e6 / elapsed:7.1f} MB/s  peak RSS {peak:7.0f} MiB"
    )


def main() -> int:
    copies = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    with tempfile.TemporaryDirectory() as tmp:
        otel = Path(tmp) / "big.otlp.jsonl"
        raw = (THIRD / "otel" / "genai_content.otlp.jsonl").read_bytes()
        otel.write_bytes(b"".join(_renumber_otel(raw, i) for i in range(copies)))
        _report(f"otel content x{copies}", otel)
        garak = Path(tmp) / "big.report.jsonl"
        lines = [line + b"\n" for line in (THIRD / "garak" / "repeat.report.jsonl").read_bytes().splitlines()]
        attempts = b"".join(line for line in lines if b'"entry_type": "attempt"' in line)
        head = b"".join(line for line in lines if b'"entry_type": "attempt"' not in line)
        garak.write_bytes(head + b"".join(_renumber_garak(attempts, i) for i in range(copies)))
        _report(f"garak report x{copies}", garak)
    files = sorted(p for p in (THIRD / "agentdojo").rglob("*.json") if not p.name.endswith(".expected.json"))
    size = sum(p.stat().st_size for p in files) * copies
    start = time.perf_counter()
    for _ in range(copies):
        for path in files:
            load_file(path)
    elapsed = time.perf_counter() - start
    print(f"agentdojo {len(files)} files x{copies}            {size / 1e6:8.1f} MB {elapsed:7.2f} s "
          f"{len(files) * copies / elapsed:7.0f} files/s {size / 1e6 / elapsed:7.1f} MB/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
