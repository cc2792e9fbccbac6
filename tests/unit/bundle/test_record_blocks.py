"""Record frames read a block at a time (tracekit/bundle/record_step.py, container.record_block)
and messages and turns matched against their templates (tracekit/bundle/templates.py): the same
reports as reading and checking each record frame by itself, on valid and damaged bundles."""

from __future__ import annotations

import io
import random

import pytest

from tests.unit.bundle import frames as fr
from tests.unit.bundle.factory import key_pair, loop_evidence, original_for, sealed
from tracekit.bundle import jcs, record_step
from tracekit.bundle.container import RECORD, FrameHead, FrameReader
from tracekit.bundle.limits import BundleLimits
from tracekit.bundle.record_step import canonical_record
from tracekit.bundle.records import MessageRecord, Ref, TurnRecord
from tracekit.bundle.seal import FindingInput, seal
from tracekit.bundle.templates import MAX_RUNS, MESSAGE_GROUPS, RUN, TEMPLATES
from tracekit.bundle.verify import BundleReport, verify_bundle
from tracekit.kernel.evidence import Episode, EvidenceFile, Message, ModelTurn, RunFacts

D1, D2 = "0123456789abcdef" * 4, "fedcba9876543210" * 4


def _one_by_one(payloads: list[bytes], first: int, state: record_step.State) -> None:
    for offset, raw in enumerate(payloads):
        record_step._general(raw, FrameHead(first + offset, RECORD, len(raw)), state)


def _both(data: bytes, limits: BundleLimits | None = None) -> tuple[BundleReport, BundleReport]:
    """The report as verified now, and as verified reading and checking each record frame by
    itself (the path every record took before blocks)."""
    trusted = [key_pair()[1]]
    args = (trusted,) if limits is None else (trusted, limits)
    now = verify_bundle(io.BytesIO(data), *args)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(record_step, "_block", _one_by_one)
        patch.setattr(FrameReader, "record_block", lambda self: [])
        before = verify_bundle(io.BytesIO(data), *args)
    return now, before


def _plain_loop(messages: int, turns: int, episodes: int = 2) -> EvidenceFile:
    """Messages (some without text) and turns without input, model or finish reason: the rows
    a block accepts as runs."""
    texts = [Message(i, "user" if i % 2 else "assistant", None if i % 5 == 3 else f"m{i % 7}") for i in range(messages)]
    model_turns = tuple(ModelTurn(index=t) for t in range(turns))
    return EvidenceFile(
        format="inspect",
        format_version="2",
        episodes=tuple(
            Episode(id=f"e{e}", facts=RunFacts(tool="inspect_ai"), messages=tuple(texts), calls=(), turns=model_turns)
            for e in range(episodes)
        ),
    )


def _bundles() -> list[bytes]:
    seed = key_pair()[0]
    plain = _plain_loop(30, 12)
    loop = loop_evidence(4)
    campaign = [FindingInput(original_for(ev), ev) for ev in (plain, loop, _plain_loop(3, 1, 1))]
    return [
        b"".join(seal([FindingInput(original_for(plain), plain)], seed, False)),
        sealed(3),
        b"".join(seal(campaign, seed, True)),
    ]


def _record_region(data: bytes) -> tuple[int, int]:
    """The byte range of a bundle's record frames."""
    position, start, end = len(fr.MAGIC), None, 0
    for kind, payload in fr.split(data):
        if kind == b"R" and start is None:
            start = position
        position += 9 + len(payload)
        if kind == b"R":
            end = position
    assert start is not None
    return start, end


def test_valid_bundles_report_as_before() -> None:
    for data in _bundles():
        now, before = _both(data)
        assert now == before
        assert now.exit_code == 0, now.findings


@pytest.mark.parametrize("which", [0, 1, 2])
def test_damaged_records_report_as_before(which: int) -> None:
    data = _bundles()[which]
    start, end = _record_region(data)
    chooser = random.Random(which)
    for position in sorted(chooser.sample(range(start, end), 150)):
        for byte in b'0 9}{,"\n':
            damaged = data[:position] + bytes([byte]) + data[position + 1 :]
            now, before = _both(damaged)
            assert now == before, (position, byte)
    for position in range(start, end, 97):  # a byte dropped or doubled: lengths no longer fit
        for damaged in (data[:position] + data[position + 1 :], data[:position] + data[position - 1 :]):
            assert _both(damaged)[0] == _both(damaged)[1]


def test_moved_records_and_limits_report_as_before() -> None:
    data = _bundles()[0]
    frames = fr.split(data)
    records = [i for i, (kind, _) in enumerate(frames) if kind == b"R"]
    for a, b in ((records[3], records[4]), (records[5], records[40]), (records[-1], records[-2])):
        swapped = list(frames)
        swapped[a], swapped[b] = swapped[b], swapped[a]
        assert _both(fr.join(swapped))[0] == _both(fr.join(swapped))[1]
    for dropped in (records[2], records[33], records[-1]):
        assert _both(fr.join(frames[:dropped] + frames[dropped + 1 :]))[0].exit_code == 2
    for limits in (BundleLimits(frames=len(frames) - 5), BundleLimits(total_bytes=len(data) - 300), BundleLimits(depth=3)):
        now, before = _both(data, limits)
        assert now == before


def test_changed_counts_report_as_before() -> None:
    """An episode that declares fewer or more messages or turns than follow."""
    frames = fr.split(_bundles()[0])
    episode = next(i for i, (kind, payload) in enumerate(frames) if kind == b"R" and b'"type":"episode"' in payload)
    for old, new in ((b'"messages":30', b'"messages":20'), (b'"messages":30', b'"messages":39'), (b'"turns":12', b'"turns":10'), (b'"turns":12', b'"turns":19')):
        changed = list(frames)
        changed[episode] = (b"R", frames[episode][1].replace(old, new))
        assert changed[episode] != frames[episode]
        now, before = _both(fr.join(changed))
        assert now == before
        assert now.exit_code == 2


def _records() -> list[MessageRecord | TurnRecord]:
    refs = [None, Ref(digest=D1, length=0), Ref(digest=D2, length=10**15 - 1)]
    found: list[MessageRecord | TurnRecord] = []
    for finding in (None, 0, 12):
        for n in (0, 1, 999_999_999_999_999, 10**15, 2**53):
            found.append(MessageRecord(seq=n, finding=finding, episode=1, index=n, role="tool", capture="not_carried", text=refs[n % 3]))
            for runs in (None, (), ((0, 1),), ((0, n or 1), (n + 2, 3))):
                found.append(TurnRecord(seq=5, finding=finding, episode=n, index=2, input=runs, model=refs[1], finish_reason=refs[n % 3], error=n % 2 == 0))
    return found


def _row(raw: bytes) -> tuple[bytes, ...]:
    rows: list[tuple[bytes, ...]] = TEMPLATES.findall(raw)
    assert len(rows) == 1
    return rows[0]


def test_templates_match_exactly_the_canonical_records() -> None:
    """Every canonical message and turn with integers under 15 digits matches its template, and
    a match yields the record's fields."""
    for record in _records():
        raw = jcs.dumps_record(record)
        row = _row(raw)
        numbers = [n for run in record.input or () for n in run] if isinstance(record, TurnRecord) else []
        small = max(record.seq, record.index, record.episode, record.finding or 0, *numbers) < 10**15
        if isinstance(record, MessageRecord):
            assert bool(row[0]) == small
            if small:
                text = record.text
                fields = (record.capture, record.episode, record.finding, record.index, record.seq, text and text.digest, text and text.length)
                assert row[:MESSAGE_GROUPS] == tuple(b"" if f is None else str(f).encode() for f in fields)
        else:
            assert bool(row[MESSAGE_GROUPS + 1]) == small
            if small:
                given = row[MESSAGE_GROUPS + 6]
                runs = None if given == b"null" else tuple((int(a), int(b)) for a, b in RUN.findall(given))
                assert runs == record.input
                assert row[-1] == str(record.seq).encode()


def test_a_template_match_is_a_canonical_valid_record() -> None:
    """Damaged spellings (a byte changed, dropped or doubled): whatever a template matches
    decodes strictly to a record of its type that encodes back to the same bytes."""
    for record in _records()[::3]:
        raw = jcs.dumps_record(record)
        for position in range(len(raw)):
            variants = [raw[:position] + raw[position + 1 :], raw[:position] + raw[position:position + 1] * 2 + raw[position + 1 :]]
            variants += [raw[:position] + bytes([b]) + raw[position + 1 :] for b in b' 0-1e"{}[],:nA\\']
            for variant in variants:
                if b"\n" in variant:
                    continue
                row = _row(variant)
                if row[0] or row[MESSAGE_GROUPS + 1]:
                    typed = canonical_record(variant)
                    assert typed is not None, variant
                    assert isinstance(typed, MessageRecord if row[0] else TurnRecord)


def test_the_run_bound_is_the_schemas() -> None:
    import msgspec

    info = msgspec.inspect.type_info(TurnRecord)
    field = next(f for f in info.fields if f.name == "input")  # type: ignore[attr-defined]
    assert field.type.types[0].max_length == MAX_RUNS
