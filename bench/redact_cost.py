#!/usr/bin/env python3
"""What a unit of redaction's work budget costs in time, over shapes of text chosen to be costly
(docs/threat-model.md, "Work budget"; tracekit/bundle/credentials.py and redact.py).

Each shape is read as ``redact`` reads a held blob (``redact.Blob``), every charge is counted, and
``--secrets``' detector (or ``--match``'s search: ``--match``) runs over the views, in process.
It prints seconds, units a byte and nanoseconds a unit per shape, and the largest: the default
budget (``redact_work``) times that is the most a refused redaction scans here. The charges are
sound when no shape is far above the others. ``python bench/redact_cost.py [--match]``; about
a minute; ``make bench`` runs it after the worst-case table.
"""

from __future__ import annotations

import base64
import random
import re
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tracekit.bundle.container import BLOB, DIGEST_BYTES, RawFrame  # noqa: E402
from tracekit.bundle.credentials import detector  # noqa: E402
from tracekit.bundle.redact import Blob  # noqa: E402
from tracekit.kernel.limits import DEFAULT_BUDGET, Meter  # noqa: E402

Holds = Callable[[Iterable[str], Callable[[int], None]], bool]


def shapes() -> list[tuple[str, str]]:
    """(name, text): a slice of the realistic trace, then texts built to be costly per unit."""
    rng = random.Random(1)
    found: list[tuple[str, str]] = []
    trace = HERE / "data" / "trace-16mib.jsonl"
    if trace.exists():
        found.append(("realistic 1 MB", trace.read_bytes()[:1_000_000].decode("utf-8", "replace")))
    found += [
        ("short lines", "".join(f"aaaaaaaaaaaaaaa{rng.choice('abc')}\n" for _ in range(20_000))),
        ("tiny lines", "aaaaaaaa\n" * 50_000),
        ("empty lines", "\n" * 300_000),
        ("base64 keywords", "\n".join(" ".join(
            base64.b64encode(f"passwd{rng.randrange(99)}".encode()).decode() for _ in range(10)) for _ in range(2000))),
        ("8-hex runs", "\n".join(" ".join(f"{rng.getrandbits(32):08x}" for _ in range(10)) for _ in range(6000))),
        ("low-entropy words", "\n".join(" ".join(["Aa1" * 7] * 20) for _ in range(1000))),
        ("keyword lines", "\n".join(f"password = x{i}" for i in range(20_000))),
        ("keyword, long line", "\n".join("password " + "ab1 " * 2000 for _ in range(50))),
        ("quoted candidates", "\n".join(" ".join([f'"{"Aa1b" * 6}"'] * 40) for _ in range(300))),
        ("hex digests", "\n".join(" ".join(f"{rng.getrandbits(256):064x}" for _ in range(20)) for _ in range(300))),
        ("one long word", "a" * 1_000_000),
    ]
    for unit in ("pwd_", "pwd=`", "`a", "://a", "//", "sk-", "eyJ", "api_key", "password", "pwd='", 'pwd: "a', "`pwd",
                 "pwd ", "secret=`a`"):
        found.append((f"{unit!r} runs", "\n".join((unit * (1000 // len(unit) + 1))[:1000] + " pwd" for _ in range(40))))
    return found


def measure(text: str, holds: Holds) -> tuple[float, int]:
    """Seconds and units of one text, read as a held blob (``Blob.views`` charges it, the
    selector charges the rest)."""
    payload = bytes(DIGEST_BYTES) + text.encode()
    meter = Meter(1 << 62)
    blob = Blob(RawFrame(BLOB, payload, len(payload)), DIGEST_BYTES, meter)
    start = time.perf_counter()
    holds(blob.views(), blob.charge)
    return time.perf_counter() - start, meter.used


def main(match: bool = False) -> float:
    if match:
        pattern = re.compile("zzz-nowhere")

        def holds(texts: Iterable[str], _charge: Callable[[int], None]) -> bool:
            return any(pattern.search(text) for text in texts)
    else:
        holds = detector()
    print(f"{'shape':22s} {'bytes':>9s} {'seconds':>8s} {'units/B':>9s} {'ns/unit':>8s}")
    worst = 0.0
    for name, text in shapes():
        seconds, units = measure(text, holds)
        worst = max(worst, seconds / units * 1e9)
        print(f"{name:22s} {len(text):9d} {seconds:8.2f} {units / len(text):9.1f} {seconds / units * 1e9:8.1f}")
    budget = DEFAULT_BUDGET.redact_work
    print(f"largest {worst:.1f} ns a unit: the default budget ({budget} units) is at most {budget * worst / 1e9:.2f} s")
    return worst


if __name__ == "__main__":
    main(match="--match" in sys.argv[1:])
