#!/usr/bin/env python3
"""Where ``verify_file`` spends its time on the 16 MiB benchmark trace (docs/performance.md,
"The 16 MiB trace"), one cumulative stage after another, in this process.

Each stage repeats the previous ones and adds one piece of the fast path (docs/trace-format.md
step 3, formats/agentguard/records.py ``_decode_fast``), so the difference between two lines is
what that piece costs: reading the file; cutting it into lines (the loader, with every limit);
msgspec's typed decode of each event line (the schema check); the sorted re-encoding that proves
a line canonical; the comparison with the line as read (lines with non-ASCII text are escaped
first, as Python's json writes them); the chain hash of each event's schema context. Then the
fast path's own function (all of the above plus its checks) and the whole verifier. CPU time
(``process_time``), the best of ``--reps`` runs, so other processes on the machine count less.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from inputs import ensure_trace

from tracekit.formats.agentguard.chain import context_hash_in_place
from tracekit.formats.agentguard.fastpath import (
    AFTER_PAYLOAD,
    ENCODE,
    FAST_EVENT_TYPES,
    PAYLOAD_KEY,
    line_decoder,
    same_as_read,
)
from tracekit.formats.agentguard.loader import iter_buffer
from tracekit.formats.agentguard.records import decode_fast
from tracekit.formats.agentguard.verify import verify_file
from tracekit.kernel.limits import DEFAULT_LIMITS


def stages(path: Path) -> dict[str, Callable[[], object]]:
    """Each stage as a function of no arguments, cumulative, in order."""
    decode = line_decoder()

    def read() -> bytes:
        with open(path, "rb") as handle:
            return handle.read()

    def lines() -> list[bytes]:
        return [line.raw for line in iter_buffer(read(), DEFAULT_LIMITS)][1:]

    def typed(compare: bool = False, hashed: bool = False, encode: bool = False) -> None:
        for raw in lines():
            record = decode(raw)
            if encode or compare or hashed:
                encoded = ENCODE(record)
                if (compare or hashed) and encoded != raw:
                    same_as_read(encoded, raw)
                if hashed:
                    start = raw.index(PAYLOAD_KEY) + len(PAYLOAD_KEY)
                    context_hash_in_place(raw, start, raw.rindex(AFTER_PAYLOAD), FAST_EVENT_TYPES[type(record)], 2)

    def fast_path() -> None:
        previous = None
        for number, raw in enumerate(lines(), 2):
            record = decode_fast(raw, number, 2, previous, DEFAULT_LIMITS)
            assert record is not None, "every event line of the benchmark trace takes the fast path"
            previous = record.event_hash

    return {
        "read the file": read,
        "+ cut it into lines (loader)": lines,
        "+ typed decode of each line (schema)": typed,
        "+ sorted re-encoding": lambda: typed(encode=True),
        "+ compared with the line as read": lambda: typed(compare=True),
        "+ chain hash of the schema context": lambda: typed(hashed=True),
        "the fast path (records.decode_fast) per line": fast_path,
        "verify_file (the whole verifier)": lambda: verify_file(path),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args()
    path = ensure_trace()
    found = stages(path)
    best = {name: float("inf") for name in found}
    for _ in range(args.reps):  # interleaved, so that a busy moment hits every stage alike
        for name, stage in found.items():
            started = time.process_time()
            stage()
            best[name] = min(best[name], time.process_time() - started)
    size = path.stat().st_size / (1024 * 1024)
    print(f"{path.name}: {size:.1f} MiB, CPU seconds, best of {args.reps}")
    for name, seconds in best.items():
        print(f"  {name:48s} {seconds * 1000:7.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
