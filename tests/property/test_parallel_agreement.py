"""Serial and parallel verification agree on tampered and forged traces, cut anywhere.

Forgeries re-chain every hash after the edit, so the walk reaches the later checks (order,
multiplicity, duplicate paths, a forged link with a matching event hash) instead of stopping at
the first hash mismatch; raw edits (byte flips, swapped, dropped or re-spaced lines, CRLF) cover
the loader and the exact path. The ranges are cut at random line boundaries and summarised in
the parent (tracekit.formats.agentguard.verify_parallel.run_ranges with ``workers=False``; the forked workers run
the same function, tests/unit/test_verify_parallel.py).
"""

from __future__ import annotations

import dataclasses
import json

import msgspec
from gen import base
from hypothesis import given
from hypothesis import strategies as st

from tracekit.formats.agentguard.chain import context_bytes_exact, sha256_hex
from tracekit.formats.agentguard.verify import (
    VerifyOptions,
    VerifyReport,
    verify_bytes,
    verify_walk,
)
from tracekit.formats.agentguard.verify_parallel import run_ranges
from tracekit.formats.agentguard.writer import DraftTrace, write_trace
from tracekit.kernel.canonical import agentguard_bytes


def _draft(version: int, extra: int) -> DraftTrace:
    draft = base.clean_trace(version, with_containment=version == 3)
    at = 4 if version == 3 else 3  # after the two commands of the clean run, before its changes
    more = []
    for index in range(extra):
        more.append(base.command(["echo", str(index)], stdout=f"line {index}\n"))
        more.append(base.file_change(f"src/module_{index}.py", added=index + 1, deleted=0))
    more.sort(key=lambda e: e.event_type != "agent_command")  # commands rank before changes
    draft.events[at:at] = more
    return draft


def _forge(draft: DraftTrace, edit: int, i: int, j: int) -> bytes:
    events = draft.events
    n = len(events)
    i, j = i % n, j % n
    changes = [k for k, e in enumerate(events) if e.event_type == "file_change"]
    if edit == 0 and len(changes) > 1:  # two file_change events name the same path
        first, second = sorted(((i % len(changes)), (j % len(changes))))
        second = second if second != first else len(changes) - 1 if first != len(changes) - 1 else 0
        events[changes[max(first, second)]].payload["path"] = events[changes[min(first, second)]].payload["path"]
    elif edit == 1:  # two events swapped
        events[i], events[j] = events[j], events[i]
    elif edit == 2:  # a wrong sequence number
        events[i].sequence = j + 1
    elif edit == 3:  # a negative-zero offset
        events[i].relative_offset_seconds = -0.0
    elif edit == 4:  # an event repeated
        events.insert(j, dataclasses.replace(events[i]))
    elif edit == 5:  # an event dropped
        del events[i]
    return write_trace(draft)


def _forge_link(data: bytes, line: int) -> bytes:
    """Line ``line`` records another previous hash, and an event hash that matches it."""
    lines = data.split(b"\n")
    line = 1 + line % (len(lines) - 2)
    version = json.loads(lines[0])["schema_version"]
    record = json.loads(lines[line])
    previous = sha256_hex(lines[line])
    record["previous_event_hash"] = previous
    record["event_hash"] = sha256_hex(context_bytes_exact(record, version, previous))
    lines[line] = agentguard_bytes(record)
    return b"\n".join(lines)


def _raw_edit(data: bytes, edit: int, at: int, other: int) -> bytes:
    lines = data.split(b"\n")
    k = 1 + at % (len(lines) - 2)
    if edit == 0:  # one byte flipped
        flipped = bytearray(data)
        flipped[at % len(data)] ^= 1 << other % 7
        return bytes(flipped)
    if edit == 1:  # one line re-spaced (same values)
        lines[k] = json.dumps(json.loads(lines[k]), sort_keys=True).encode()
    elif edit == 2:  # one line with CRLF
        lines[k] += b"\r"
    elif edit == 3:  # two lines swapped
        m = 1 + other % (len(lines) - 2)
        lines[k], lines[m] = lines[m], lines[k]
    elif edit == 4:  # truncated
        return data[: at % len(data)]
    elif edit == 5:  # an empty line
        lines.insert(k, b"")
    return b"\n".join(lines)


def _state(report: VerifyReport) -> list[object]:
    report.path = ""
    return [getattr(report, field.name) for field in msgspec.structs.fields(report)]


def _parallel(data: bytes, options: VerifyOptions, cuts: list[int]) -> VerifyReport:
    starts = [0]
    position = data.find(b"\n")
    while 0 <= position < len(data) - 1:
        starts.append(position + 1)
        position = data.find(b"\n", position + 1)
    chosen = sorted({starts[c % len(starts)] for c in cuts} | {0})
    bounds = [*chosen, len(data)]
    ranges = [(bounds[i], bounds[i + 1]) for i in range(len(chosen))]
    report = VerifyReport(path="", strict_sources=options.strict_sources)
    verify_walk(lambda walk: run_ranges(walk, data, ranges, workers=False), options, report, None)
    return report


OPTIONS = VerifyOptions(check_sources=False)


@given(
    version=st.sampled_from([1, 2, 3]),
    extra=st.integers(0, 6),
    forge=st.one_of(st.none(), st.tuples(st.integers(0, 6), st.integers(0, 40), st.integers(0, 40))),
    link=st.one_of(st.none(), st.integers(0, 40)),
    raw=st.one_of(st.none(), st.tuples(st.integers(0, 5), st.integers(0, 10**6), st.integers(0, 40))),
    cuts=st.lists(st.integers(0, 60), max_size=6),
    canonical=st.booleans(),
)
def test_parallel_reports_what_serial_reports(
    version: int,
    extra: int,
    forge: tuple[int, int, int] | None,
    link: int | None,
    raw: tuple[int, int, int] | None,
    cuts: list[int],
    canonical: bool,
) -> None:
    draft = _draft(version, extra)
    data = _forge(draft, *forge) if forge else write_trace(draft)
    if link is not None:
        data = _forge_link(data, link)
    if raw is not None:
        data = _raw_edit(data, *raw)
    options = msgspec.structs.replace(OPTIONS, canonical=canonical)
    expected = _state(verify_bytes(data, options))
    assert _state(_parallel(data, options, cuts)) == expected
