"""Record payloads encoded a batch at a time (tracekit/bundle/seal.py ``_payloads``) are each
record's own canonical encoding, for every record kind and mixture, turns with many input runs
included."""

from __future__ import annotations

import random

import msgspec

from tests.unit.bundle.factory import loop_evidence
from tracekit.bundle import seal as sealing
from tracekit.bundle.blobs import BlobStore
from tracekit.bundle.records import Ref, TurnRecord
from tracekit.bundle.seal import FindingInput


def _records() -> list[sealing.Record]:
    evidence = loop_evidence(40, secret="AKIAZZCANARY7EXAMPL3", epochs=3)
    store = BlobStore(b"k" * 32)
    item = FindingInput(b"{}", evidence)
    original, _ = sealing._original(item, store)
    return list(sealing._records(item, original, store, 3))


def _turn(runs: int) -> TurnRecord:
    ref = Ref("ab" * 32, 5)
    return TurnRecord(seq=9, finding=None, episode=0, index=1, input=tuple((2 * i, 1) for i in range(runs)),
                      model=ref, finish_reason=None, error=False)


def test_batches_of_any_records_encode_as_each_record_does() -> None:
    records = _records() + [_turn(n) for n in (0, 1, sealing.SMALL_TURN_RUNS, sealing.SMALL_TURN_RUNS + 1, 500)]
    # a manifest whose encoding needs escapes takes the per-record path inside any batch
    records.append(msgspec.structs.replace(records[0], format_version='v\u00e9"\n},{'))
    assert {type(r).__name__ for r in records} == {"Manifest", "EpisodeRecord", "MessageRecord", "CallRecord", "TurnRecord"}
    rng = random.Random(7)
    for _ in range(200):
        start = rng.randrange(len(records))
        chunk = records[start : start + rng.randrange(1, 60)]
        rng.shuffle(chunk)
        assert sealing._payloads(chunk) == [sealing._payload(r) for r in chunk]


def test_only_messages_and_turns_of_few_runs_are_batched() -> None:
    assert sealing._small(_turn(sealing.SMALL_TURN_RUNS))
    assert not sealing._small(_turn(sealing.SMALL_TURN_RUNS + 1))
    kinds = {type(r).__name__: sealing._small(r) for r in _records()}
    assert kinds == {"Manifest": False, "EpisodeRecord": False, "MessageRecord": True, "CallRecord": False,
                     "TurnRecord": True}
